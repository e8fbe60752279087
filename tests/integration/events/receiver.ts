// A real webhook receiver on 127.0.0.1 for tests: records every request (raw body, headers) and answers with the
// status `respond` chooses (a number, or 'hang' to never answer).
// Loopback is not a public address, so Tether refuses to call it (SPEC §9) unless the test allows it: servers that
// deliver to a receiver run with TETHER_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** TETHER_WEBHOOK_ALLOWED_NETWORKS for tests whose receivers listen on loopback. */
export const LOOPBACK_NETWORKS = '127.0.0.0/8,::1/128';

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
  status: number | 'hang';
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Bodies answered 2xx, parsed. */
  accepted(): Array<{ id: string; seq: number; type: string; task_id: string; revision: number }>;
  close(): Promise<void>;
}

export async function startReceiver(respond: (n: number, body: string) => number | 'hang'): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = respond(received.length + 1, body);
      received.push({ body, headers: req.headers, status });
      if (status === 'hang') return;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    accepted: () =>
      received.filter((r) => typeof r.status === 'number' && r.status < 300).map((r) => JSON.parse(r.body)),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
