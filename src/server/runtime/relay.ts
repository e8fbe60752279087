// SPEC §9: the outbox relay every server process runs. One loop proves how far the outbox is final (the horizon,
// domain/events/horizon.ts) and publishes each advance to this process's live streams (the hub); a second loop
// delivers to webhooks (runtime/webhooks.ts), so a slow webhook never delays live subscribers.
// Settings (config.ts): TETHER_RELAY_POLL_MS (default 250) for both loops, plus the TETHER_WEBHOOK_* settings.
import { isDatabaseUnavailable } from '../db/errors';
import { MAX_PAGE, readEvents } from '../domain/events/history';
import { isSettled, type HorizonSample } from '../domain/events/horizon';
import type { Services } from '../services';
import { passLog } from './outage-log';
import { webhookPass, type WebhookSettings } from './webhooks';

export interface RelayOptions {
  pollMs?: number;
  webhooks?: Partial<WebhookSettings>;
}

export type StopRelay = () => Promise<void>;

const RELAY = 'event relay';

/** Starts the relay for this process; the returned function stops it, ends live streams and frees webhook leases. */
export function startRelay(services: Services, options: RelayOptions = {}): StopRelay {
  const pollMs = options.pollMs ?? services.config.relay.pollMs;
  const settings = { ...services.config.webhooks, ...options.webhooks };
  const hub = services.hub;
  hub.stopped = false;
  hub.safe = undefined;
  hub.last = undefined;
  hub.databaseUnavailable = false;
  let stopped = false;
  let candidate: HorizonSample | undefined;

  /** One horizon step: returns the newly proven bound, if any. */
  const prove = async (): Promise<number | undefined> => {
    const now = await services.store.events.sampleHorizon();
    if (isSettled(now, now)) {
      candidate = undefined;
      return now.maxSeq;
    }
    // Keep the oldest unproven sample: it is the first to settle, even under continuous writes.
    if (!candidate) {
      candidate = now;
      return undefined;
    }
    if (!isSettled(candidate, now)) return undefined;
    const proven = candidate.maxSeq;
    candidate = now;
    return proven;
  };

  const relayPass = async () => {
    const bound = await prove();
    if (bound === undefined || stopped) return;
    if (hub.safe === undefined) return hub.start(bound); // everything before the first bound is history
    // The events are read only for live streams waiting in this process; with none (a server nobody is watching),
    // the bound alone moves: thousands of creates need not be read back by every server process.
    if (!hub.awaited) {
      if (bound > hub.safe) hub.skipTo(bound);
      return;
    }
    while (hub.safe < bound && !stopped) {
      const from: number = hub.safe;
      const events = await readEvents(services, { after: from, upTo: bound, limit: MAX_PAGE });
      const to = events.length === MAX_PAGE ? events.at(-1)!.seq : bound;
      hub.advance({ from, to, events });
    }
  };

  const webhooksPass = async () => {
    if (hub.safe === undefined) return;
    // Drain: a pass that claimed webhooks may have left more due work.
    while (!stopped && (await webhookPass(services, hub.safe, settings, () => stopped)) > 0);
  };

  const loop = (name: string, pass: () => Promise<void>) => {
    let timer: NodeJS.Timeout | undefined;
    let current: Promise<void> = Promise.resolve();
    const log = passLog(services, name, 'relay pass failed');
    const run = () => {
      current = pass()
        .then(() => {
          if (name === RELAY) hub.databaseUnavailable = false;
          log.succeeded();
        })
        .catch((err: unknown) => {
          if (name === RELAY) hub.databaseUnavailable = isDatabaseUnavailable(err);
          // The database may be away for a while: keep polling, never crash the server.
          log.failed(err);
        })
        .finally(() => {
          if (stopped) return;
          timer = setTimeout(run, pollMs);
          timer.unref?.();
        });
    };
    run();
    return async () => {
      if (timer) clearTimeout(timer);
      await current;
    };
  };

  const stopRelayLoop = loop(RELAY, relayPass);
  const stopWebhookLoop = loop('webhook delivery', webhooksPass);

  return async () => {
    stopped = true;
    hub.stop();
    await Promise.all([stopRelayLoop(), stopWebhookLoop()]);
  };
}
