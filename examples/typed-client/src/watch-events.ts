// The workspace's event stream (SPEC §9) as a tRPC subscription, authenticated with the same bearer token. Each
// event carries its sequence number as its id; subscribing with `lastEventId` delivers every later event exactly once,
// in order — which is also how a client starts without a gap: read the position first, then act, then listen.
import type { RouterOutputs, TetherClient } from 'tether/client';

type Tracked = RouterOutputs['event']['onEvent'];
export type TetherEvent = Tracked extends AsyncIterable<infer E> ? E : never;

const PAGE = 500;

/** The workspace's position in its event history: a subscription from here misses nothing that happens next. */
export async function currentPosition(tether: TetherClient, workspaceId: string): Promise<number> {
  for (let after = 0; ;) {
    const page = await tether.event.list.query({ workspace_id: workspaceId, after, limit: PAGE });
    if (page.events.length < PAGE) return page.next_after;
    after = page.next_after;
  }
}

/** Resolves with the first event after `position` that `match` accepts; rejects after `timeoutMs`. */
export function waitForEvent(
  tether: TetherClient,
  workspaceId: string,
  position: number,
  match: (event: TetherEvent) => boolean,
  timeoutMs = 15_000,
): Promise<TetherEvent> {
  return new Promise<TetherEvent>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unsubscribe();
      reject(new Error('no matching event in time'));
    }, timeoutMs);
    const sub = tether.event.onEvent.subscribe(
      { workspace_id: workspaceId, lastEventId: String(position) },
      {
        onData: (e) => {
          if (!match(e)) return;
          clearTimeout(timer);
          sub.unsubscribe();
          resolve(e);
        },
        onError: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      },
    );
  });
}
