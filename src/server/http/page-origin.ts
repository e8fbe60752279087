// A console page that must answer a real 404 for a task or operation that does not exist (or that the person may not
// see) asks the API — over HTTP, as pages always do (they never import server code) — before it renders. It needs this
// server's own address for that, and must not take it from the request's Host header (anyone can set that, and the page
// forwards the session cookie). So every request handed to Next carries the address of the socket it arrived on, set
// here; whatever a client sent in that header is overwritten.
import type { IncomingMessage } from 'node:http';
import { API_ORIGIN_HEADER } from '../../trpc/api-origin';

export function markPageRequest(req: IncomingMessage): void {
  const { localAddress, localPort } = req.socket;
  if (!localAddress || !localPort) {
    delete req.headers[API_ORIGIN_HEADER];
    return;
  }
  // An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is reachable as the IPv4 one; other IPv6 addresses need brackets.
  const host = localAddress.startsWith('::ffff:')
    ? localAddress.slice(7)
    : localAddress.includes(':')
      ? `[${localAddress}]`
      : localAddress;
  req.headers[API_ORIGIN_HEADER] = `http://${host}:${localPort}`;
}
