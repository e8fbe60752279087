// SPEC §9: where Tether may send requests on behalf of a workspace's configuration (webhooks, the webhook agent
// runner). Those URLs are written by workspace admins, not by the operator, so they are untrusted: without this
// policy a workspace admin could make the server POST to its own database port, the cloud metadata service or
// anything else on the inside of its network (server-side request forgery).
//
// The rule: a destination must be a public address. Loopback, link-local, private, unique-local, carrier-grade NAT,
// unspecified, multicast and reserved addresses are refused — IPv4-mapped IPv6 forms included — unless the operator
// lists the network in TETHER_WEBHOOK_ALLOWED_NETWORKS (config.ts). Address matching is Node's own `net.BlockList`
// (which also matches `::ffff:a.b.c.d` against IPv4 rules); URL hosts are read by the WHATWG URL parser, which turns
// the odd spellings (`127.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`) into the dotted address they mean.
//
// Two checks, one policy:
// - at registration (`urlRefusal`): a host that IS a refused address (or a `localhost` name) is a 400, nothing stored.
//   A host name is not resolved there: DNS may answer differently at delivery, and a registration-time lookup would
//   tell a workspace admin which internal names exist.
// - at delivery (`lookup`, used by runtime/outbound-http.ts): every address the host resolves to is checked before
//   the connection is made, so the address actually connected to is always one the policy allows.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { AllowedNetwork } from '../../config';

/** The networks that are not public (the SPEC's list, plus the reserved and deprecated site-local ranges). */
const NOT_PUBLIC: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", including the unspecified 0.0.0.0
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.168.0.0', 16, 'ipv4'], // private
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
  ['::', 96, 'ipv6'], // unspecified ::, loopback ::1 and the deprecated IPv4-compatible forms
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated private)
  ['ff00::', 8, 'ipv6'], // multicast
];

/** Why a destination was refused, in words a workspace admin can act on (the registration 400's detail). */
export const NOT_PUBLIC_REFUSAL =
  'the destination is not a public address (loopback, private, link-local, unique-local, carrier-grade NAT, unspecified or multicast); ' +
  'the operator can allow its network with TETHER_WEBHOOK_ALLOWED_NETWORKS';

/**
 * What a delivery records when the destination was refused, always the same words: whether the host did not resolve
 * or resolved to an address that is not allowed, and whatever the inside would have answered, are not told apart.
 */
export const DESTINATION_REFUSED = 'destination refused: the host does not resolve to a public address';

/** Thrown (through the lookup) when a destination is refused; runtime/outbound-http.ts records DESTINATION_REFUSED. */
export class DestinationRefusedError extends Error {
  readonly code = 'ETETHER_DESTINATION_REFUSED';
  constructor() {
    super(DESTINATION_REFUSED);
    this.name = 'DestinationRefusedError';
  }
}

/** `dns.lookup`'s shape (with `all: true`), so a test can give a host name answers that change. */
export type ResolveAll = (
  hostname: string,
  options: { family?: number; hints?: number },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolveAll: ResolveAll = (hostname, options, callback) =>
  dnsLookup(hostname, { ...options, all: true }, callback);

/** `[::1]` → `::1`; a zone (`fe80::1%eth0`) is not part of the address the lists match. */
function bareAddress(host: string): string {
  return host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

export class DestinationPolicy {
  private readonly notPublic = new BlockList();
  private readonly allowed = new BlockList();

  constructor(
    allowedNetworks: readonly AllowedNetwork[] = [],
    private readonly resolveAll: ResolveAll = systemResolveAll,
  ) {
    for (const [address, prefix, family] of NOT_PUBLIC) this.notPublic.addSubnet(address, prefix, family);
    for (const n of allowedNetworks) this.allowed.addSubnet(n.address, n.prefix, n.family);
  }

  /** Whether a connection to this IP address is allowed: a public address, or one in an allowed network. */
  allows(address: string): boolean {
    const bare = bareAddress(address);
    const version = isIP(bare);
    if (version === 0) return false;
    const family = version === 4 ? 'ipv4' : 'ipv6';
    return this.allowed.check(bare, family) || !this.notPublic.check(bare, family);
  }

  /**
   * Null when `url` may be registered, else why not. Only http(s) URLs; a host that is an IP address (in any
   * spelling the URL parser accepts) must be allowed; `localhost` and `*.localhost` are loopback by definition
   * (RFC 6761). Other host names are checked when they are resolved, at delivery.
   */
  urlRefusal(url: string): string | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'must be an http(s) URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
    const host = bareAddress(parsed.hostname).toLowerCase().replace(/\.$/, '');
    if (isIP(host) !== 0) return this.allows(host) ? null : NOT_PUBLIC_REFUSAL;
    if (host === 'localhost' || host.endsWith('.localhost'))
      return this.allows('127.0.0.1') ? null : NOT_PUBLIC_REFUSAL;
    return null;
  }

  /**
   * A `lookup` for `net`/`http` connections: resolves the host and hands back its addresses only when EVERY one is
   * allowed (a name answering one public and one private address is refused: the connection could use either).
   * A host that does not resolve fails the same way, so the two cannot be told apart. Node skips `lookup` for a
   * host that is already an IP address: callers check those with `allows` first (runtime/outbound-http.ts).
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const done = callback as (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    this.resolveAll(
      hostname,
      { family: typeof options.family === 'number' ? options.family : undefined, hints: options.hints },
      (err, addresses) => {
        if (err || addresses.length === 0 || !addresses.every((a) => this.allows(a.address)))
          return done(new DestinationRefusedError(), '');
        if (options.all) return done(null, addresses);
        return done(null, addresses[0]!.address, addresses[0]!.family);
      },
    );
  };
}
