// A small SSE client over fetch for tests: collects `id`/`event`/`data` frames and lets a test wait for them. The
// answer and, on REST, every event are held to the OpenAPI document: a mismatch fails the next waitFor.
import { checkRestResponse, checkStreamedEvent } from '../../support/openapi-check';

export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

export interface SseConnection {
  status: number;
  frames: SseFrame[];
  /** Waits until at least `n` frames arrived. */
  waitFor(n: number, ms?: number): Promise<SseFrame[]>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  checkRestResponse('GET', url, { status: res.status, headers: res.headers, text: res.ok ? '' : await res.text() });
  const frames: SseFrame[] = [];
  let wake: (() => void) | undefined;
  let mismatch: unknown;
  const rest = new URL(url).pathname.startsWith('/api/v1/'); // tRPC's SSE frames are tRPC's, not the document's
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let end;
          while ((end = buf.indexOf('\n\n')) !== -1) {
            const block = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const frame: SseFrame = { data: '' };
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('id:')) frame.id = line.slice(3).trim();
              else if (line.startsWith('event:')) frame.event = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (data.length === 0) continue; // comments, retry hints
            frame.data = data.join('\n');
            try {
              if (rest) checkStreamedEvent(JSON.parse(frame.data));
            } catch (err) {
              mismatch ??= err;
            }
            frames.push(frame);
            wake?.();
          }
        }
      } catch {
        /* closed */
      }
    })();
  }
  return {
    status: res.status,
    frames,
    async waitFor(n, ms = 10_000) {
      const end = Date.now() + ms;
      while (frames.length < n) {
        if (mismatch) throw mismatch;
        if (Date.now() > end) throw new Error(`expected ${n} SSE frames, got ${frames.length}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
      if (mismatch) throw mismatch;
      return frames;
    },
    close: () => abort.abort(),
  };
}
