// A raw TCP connection to the test server that records what comes back and when: for what fetch cannot do (send a body
// byte by byte, half-close, keep sending after the server's FIN) — tests/integration/hostile/slow-clients.test.ts,
// connection-edges.test.ts.
import { connect, type Socket } from 'node:net';

export interface Probe {
  socket: Socket;
  received: string;
  /** ms from connect until a whole answer had arrived (`answerComplete`). */
  answeredAfter?: number;
  /** ms from connect until the server ended its side (FIN). */
  endedAfter?: number;
  /** ms from connect until the connection closed (undefined while open). */
  closedAfter?: number;
}

/** Whether `received` holds a whole answer: its Content-Length reached, or the last chunk of a chunked body. */
export function answerComplete(received: string): boolean {
  const end = received.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const head = received.slice(0, end);
  const body = received.slice(end + 4);
  const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
  return length !== undefined ? Buffer.byteLength(body) >= Number(length) : body.endsWith('0\r\n\r\n');
}

/**
 * Connects to `baseUrl` and calls `start` with the socket once connected. `allowHalfOpen`: the client's side stays
 * open after the server's FIN (it goes on sending until it closes itself), where Node's default ends it too.
 */
export function openProbe(
  baseUrl: string,
  start: (s: Socket) => void = () => {},
  allowHalfOpen = false,
): Promise<Probe> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const began = Date.now();
    const socket = connect({ port: Number(u.port), host: u.hostname, allowHalfOpen });
    const probe: Probe = { socket, received: '' };
    socket.on('data', (d) => {
      probe.received += String(d);
      if (probe.answeredAfter === undefined && answerComplete(probe.received)) probe.answeredAfter = Date.now() - began;
    });
    socket.on('end', () => (probe.endedAfter = Date.now() - began));
    socket.on('close', () => (probe.closedAfter = Date.now() - began));
    socket.on('error', () => {});
    socket.once('connect', () => {
      start(socket);
      resolve(probe);
    });
    socket.once('error', reject);
  });
}

/** Writes `piece()` every 200 ms until the socket closes: a client that is slow, not silent. */
export function trickle(socket: Socket, piece: () => string): void {
  const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(piece())), 200);
}
