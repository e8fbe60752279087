// The response class of Tether's HTTP server (node:http's `ServerResponse` option, server.ts): every answer the process
// gives — API or console page — is one of these, so what every answer needs is done here, once, by the class rather
// than by each request:
// - the two headers every response carries (`X-Content-Type-Options: nosniff`, and the request's `X-Request-Id`,
//   issue 17) are added where the status line is written. Setting them ahead with `setHeader` would send every
//   `writeHead` with a header object down Node's slower path (each header validated and stored twice; ~5 µs of a
//   REST Found, docs/BENCHMARKS.md);
// - an answer given before its request body has arrived is held until the client stops sending (issue 18, `end`).
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

/** An answer given before the request body has arrived waits at most this long for the client to stop sending. */
export const LINGER_MS = 5_000;

export const REQUEST_ID_HEADER = 'x-request-id';

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

export class TetherResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Echoed as `X-Request-Id`; the observer sets it when the request opens (http/observe.ts). */
  requestId = '';
  /** `end` was called while the request body was still arriving: its end waits (see `end`). */
  private holding = false;

  override writeHead(statusCode: number, reason?: string | Headers, headers?: Headers): this {
    if (typeof reason === 'string') return super.writeHead(statusCode, reason, this.withOwnHeaders(headers));
    return super.writeHead(statusCode, this.withOwnHeaders(reason));
  }

  /** Ours, then the caller's: a header the caller gives under the same (lower-case) name is the caller's. */
  private withOwnHeaders(given: Headers | undefined): Headers {
    if (Array.isArray(given)) {
      // Node's array forms ([k, v, k, v] or [[k, v], …]) are rare here: set ours the progressive way.
      this.setOwnHeaders();
      return given;
    }
    const own: OutgoingHttpHeaders = { 'x-content-type-options': 'nosniff' };
    if (this.requestId) own[REQUEST_ID_HEADER] = this.requestId;
    return given ? Object.assign(own, given) : own;
  }

  private setOwnHeaders(): void {
    if (!this.hasHeader('x-content-type-options')) this.setHeader('x-content-type-options', 'nosniff');
    if (this.requestId && !this.hasHeader(REQUEST_ID_HEADER)) this.setHeader(REQUEST_ID_HEADER, this.requestId);
  }

  /**
   * Issue 18: an answer given before the whole request body has arrived (a 413, or any early refusal) must not be
   * followed by the connection closing under a client that is still sending: the kernel answers the next bytes with a
   * reset, and a reset throws away the answer the client has not read yet (it saw EPIPE instead of the 413). So the
   * answer is written at once but its end — and with it Node's close, when the connection is not kept alive — waits
   * until the rest of the body has been read and dropped, or LINGER_MS.
   */
  override end(...args: unknown[]): this {
    const req = this.req;
    if (this.holding || req.complete || req.destroyed || !carriesBody(req)) return super.end(...(args as [])) as this;
    this.holding = true;
    // end(cb) | end(chunk, cb) | end(chunk, encoding, cb): write the chunk now, end (with the callback) later.
    const [chunk, encoding, done] = typeof args[0] === 'function' ? [undefined, undefined, args[0]] : typeof args[1] === 'function' ? [args[0], undefined, args[1]] : args;
    if (chunk !== undefined && chunk !== null) this.write(chunk as string | Uint8Array, (encoding ?? 'utf8') as BufferEncoding);
    const finish = () => {
      clearTimeout(timer);
      req.off('end', finish).off('close', finish);
      super.end(done as () => void);
    };
    const timer = setTimeout(finish, LINGER_MS);
    req.on('end', finish).on('close', finish);
    req.resume(); // read and drop the rest of the body
    return this;
  }
}

function carriesBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}
