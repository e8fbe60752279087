// The one way the runtime calls out on behalf of a workspace's configuration (SPEC §9): webhook deliveries and the
// webhook agent runner. A POST through node:http(s) whose connection is made only to an address the destination
// policy allows (domain/outbound/destinations.ts): a host that is an IP address is checked before connecting, a host
// name through the policy's `lookup`, which sees every address DNS gives at the moment of connecting — so a name
// that pointed outside at registration and points inside now is refused now. Redirects are never followed
// (node:http does not), and nothing is read from the answer but its status.
//
// What a failure says is a short fixed phrase, never the network stack's own words: a refused destination always
// records DESTINATION_REFUSED whatever the inside would have answered, and the other phrases (`connection failed`,
// `TLS handshake failed`, `timed out after N ms`, `HTTP 503`) only ever describe an address the policy allows.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { DESTINATION_REFUSED, DestinationRefusedError, type DestinationPolicy } from '../domain/outbound/destinations';

export interface OutboundResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The answer's status, or null when there was none (refused, unreachable, timed out). */
  status: number | null;
  /** Null when ok; otherwise one of the fixed phrases above. */
  error: string | null;
}

export interface OutboundRequest {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** The fixed phrase for a request that got no answer. */
function failureOf(err: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number): string {
  // The policy's lookup turns a name that does not resolve into the same refusal as one that resolves inside.
  if (err instanceof DestinationRefusedError) return DESTINATION_REFUSED;
  if (timedOut) return `timed out after ${timeoutMs} ms`;
  const code = err.code ?? '';
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_CERT)/.test(code))
    return 'TLS handshake failed';
  return 'connection failed';
}

function answerOf(status: number): OutboundResult {
  if (status >= 200 && status < 300) return { ok: true, status, error: null };
  if (status >= 300 && status < 400) return { ok: false, status, error: `HTTP ${status}: redirects are not followed` };
  return { ok: false, status, error: `HTTP ${status}` };
}

/** POSTs `request.body` to `url` if the policy allows where it leads; never throws. */
export function postGuarded(policy: DestinationPolicy, url: string, request: OutboundRequest): Promise<OutboundResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ ok: false, status: null, error: DESTINATION_REFUSED });
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const secure = target.protocol === 'https:';
  if ((!secure && target.protocol !== 'http:') || (isIP(host) !== 0 && !policy.allows(host))) {
    return Promise.resolve({ ok: false, status: null, error: DESTINATION_REFUSED });
  }
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    const finish = (result: OutboundResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = (secure ? httpsRequest : httpRequest)(
      target,
      {
        method: 'POST',
        // A fresh connection each time: a pooled socket would carry a connection made for an earlier resolution.
        agent: false,
        lookup: policy.lookup,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      },
      (res: IncomingMessage) => {
        finish(answerOf(res.statusCode ?? 0));
        res.destroy(); // only the status matters; never read (or wait for) what the destination sends
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timed out'));
    }, request.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ ok: false, status: null, error: failureOf(err, timedOut, request.timeoutMs) }),
    );
    req.end(request.body);
  });
}
