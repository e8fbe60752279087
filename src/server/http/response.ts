// The response class of Tether's HTTP server (node:http's `ServerResponse` option, server.ts): every answer the process
// gives — API or console page — is one of these, so what every answer needs is done here, once, by the class rather
// than by each request:
// - the two headers every response carries (`X-Content-Type-Options: nosniff`, and the request's `X-Request-Id`,
//   which ties an answer to its log line) are added where the status line is written. Setting them ahead with
//   `setHeader` would send every `writeHead` with a header object down Node's slower path (each header validated
//   and stored twice; ~5 µs of a REST Found, docs/history/2026-12-benchmarks-history.md);
// - an answer given before its request body has arrived (a 413, a 401 in front of an upload) is sent whole at once;
//   if the body is still arriving, the connection then closes, lingering while the client still sends (`end`) —
//   rather than waiting out the request timeout for a body nobody will read (a slow one held it 30 s);
// - a server-sent event stream ends when its client hangs up (FIN), since the server answers half-closed connections
//   (server.ts) and a stream never finishes by itself.
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

/** After an answer given before the request body has arrived, how long the connection waits for the client to stop sending. */
export const LINGER_MS = 5_000;

export const REQUEST_ID_HEADER = 'x-request-id';

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

export class TetherResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Echoed as `X-Request-Id`; the observer sets it when the request opens (http/observe.ts). */
  requestId = '';
  /** `end` was called while the request body was still arriving, and waits one turn of the event loop (see `end`). */
  private endDeferred = false;

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
    if (isEventStream(given?.['content-type'] ?? this.getHeader('content-type'))) this.endOnHangUp();
    return given ? Object.assign(own, given) : own;
  }

  private setOwnHeaders(): void {
    if (!this.hasHeader('x-content-type-options')) this.setHeader('x-content-type-options', 'nosniff');
    if (this.requestId && !this.hasHeader(REQUEST_ID_HEADER)) this.setHeader(REQUEST_ID_HEADER, this.requestId);
    if (isEventStream(this.getHeader('content-type'))) this.endOnHangUp();
  }

  /** An event stream whose client has sent FIN is over: nobody will read what it would still send. */
  private endOnHangUp(): void {
    const socket = this.socket;
    if (!socket) return;
    const hangUp = () => this.destroy();
    if (socket.readableEnded) {
      setImmediate(hangUp);
      return;
    }
    socket.once('end', hangUp);
    this.once('close', () => socket.off('end', hangUp));
  }

  /**
   * An answer given before the whole request body has been read. What came with the request is parsed before the
   * event loop turns, so `end` waits for that: a body that arrived with its request ends the answer as usual, and the
   * connection stays open for the next request. A body still arriving then is slow or large (a 413, a 401 in front of
   * an upload): the answer ends at once all the same — a chunked one with its last chunk, so the client has all of it
   * — and the connection closes after it (`closeAfterAnswer`), instead of reading that body until the request timeout.
   */
  override end(...args: unknown[]): this {
    const req = this.req;
    if (this.endDeferred || this.writableEnded || !bodyStillArriving(req)) return super.end(...(args as [])) as this;
    this.endDeferred = true;
    setImmediate(() => {
      if (bodyStillArriving(req) && this.socket) closeAfterAnswer(this, this.socket, req);
      super.end(...(args as []));
    });
    return this;
  }
}

/**
 * The connection of an answer whose request body is still arriving closes once the answer is out: FIN at once (the
 * client sees the answer end), then what the client still sends is read and dropped until it stops (the body ends, or
 * it closes) or for LINGER_MS, and only then the descriptor closes. Closing the descriptor at once — what Node's
 * `destroySoon` does for a `Connection: close` answer such as a 413 — makes the kernel answer the client's next bytes
 * with a reset, and a reset throws away the answer the client has not read yet (clients saw EPIPE instead of a 413).
 */
function closeAfterAnswer(res: ServerResponse, socket: Socket, req: IncomingMessage): void {
  let lingering = false;
  const linger = () => {
    if (lingering) return;
    lingering = true;
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    // As Node's own destroySoon: the descriptor closes once everything written has gone out.
    const close = () => {
      clearTimeout(timer);
      if (socket.writableFinished) socket.destroy();
      else socket.once('finish', () => socket.destroy());
    };
    if (req.complete || req.destroyed) return close();
    req.once('end', close).once('close', close);
    req.resume(); // read and drop the rest of the body
  };
  socket.destroySoon = linger; // how Node closes after a `Connection: close` answer
  res.once('finish', linger); // and a keep-alive one closes all the same: this connection serves no next request
}

function carriesBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}

/** The request has a body and not all of it has arrived: an answer now is an early one. */
function bodyStillArriving(req: IncomingMessage): boolean {
  return !req.complete && !req.destroyed && carriesBody(req);
}

function isEventStream(contentType: OutgoingHttpHeader | undefined): boolean {
  return typeof contentType === 'string' && contentType.toLowerCase().startsWith('text/event-stream');
}
