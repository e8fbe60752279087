// SPEC §4.1 step 10 / §5: asynchronous dispatch after Complete. Launch intents are launched only for tasks whose
// creation is `completed` (the repository's reads join on it), so nothing asynchronous ever starts before Complete;
// a deferred intent is promoted when the last of its blockers sits in a done step. Each launch is claimed with a
// compare-and-set and recorded once (agent_launches is unique per intent).
import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable } from '../db/errors';
import type { CreationDispatcher } from '../domain/creation/operation';
import { stableId } from '../domain/creation/stable-id';
import { toTaskBody } from '../model/task';
import type { AgentExit } from './agent-runners';
import type { Services } from '../services';

const MAX_LAUNCH_ATTEMPTS = 5;

/**
 * Promotes waiting deferred intents whose blockers are all done: prepares the session and makes the intent
 * pending. A blocker that was deleted no longer blocks.
 */
export async function promoteDeferred(services: Services): Promise<number> {
  const { store } = services;
  let promoted = 0;
  for (const intent of await store.launches.listWaiting()) {
    if ((await store.launches.countOpenBlockers(intent.blockedBy)) > 0) continue;
    const sessionId = stableId(intent.id, 'session');
    const at = new Date().toISOString();
    promoted += await store.transaction(async (tx) => {
      if (!(await tx.launches.markPending(intent.id, sessionId, at))) return 0;
      await tx.launches.prepareSession({ ...intent, id: sessionId, operationId: null, stepIndex: null, at });
      return 1;
    });
  }
  return promoted;
}

/** Launches one intent if this process wins its claim. */
async function launchOne(services: Services, intentId: string): Promise<boolean> {
  const { store } = services;
  const now = new Date();
  const until = new Date(now.getTime() + services.leaseMs).toISOString();
  if (!(await store.launches.claim(intentId, services.instanceId, until, now.toISOString()))) return false;
  const target = await store.launches.findTarget(intentId);
  if (!target) return false;
  const task = await store.tasks.findById(target.taskId);
  if (!task) return false;
  const runner = services.agentRunners.get(target.profile?.runner ?? null);
  // A run may end before its launch is recorded: its end is written only after the launch row exists.
  let launchRecorded!: (recorded: boolean) => void;
  const recorded = new Promise<boolean>((resolve) => (launchRecorded = resolve));
  let detail: Record<string, unknown> = {};
  try {
    detail =
      (await runner.launch({
        intentId,
        sessionId: target.sessionId,
        taskId: target.taskId,
        workspaceId: target.workspaceId,
        identifier: target.identifier,
        title: target.title,
        profile: target.profile,
        task: toTaskBody(task),
        onExit: (exit) =>
          services.agentRunners.track(
            recordExit(services, intentId, target.sessionId, recorded, () => ({ ...detail, ...exit }), exit),
          ),
      })) ?? {};
    const at = new Date().toISOString();
    await store.transaction(async (tx) => {
      await tx.launches.insertLaunch({
        id: randomUUID(),
        intentId,
        sessionId: target.sessionId,
        taskId: target.taskId,
        runner: runner.name,
        detail,
        at,
      });
      await tx.launches.markSessionRunning(target.sessionId, at);
      await tx.launches.markLaunched(intentId, at);
    });
    launchRecorded(true);
    return true;
  } catch (err) {
    launchRecorded(false);
    // The database is away: nothing is recorded and no attempt is spent on it. The claim's lease runs out and a later
    // pass launches again, with the same intent id (a runner that keys on it runs the agent once).
    if (isDatabaseUnavailable(err)) throw err;
    // Best effort (SPEC §5): a failed launch never changes the creation's outcome; it is retried a few times.
    const state = target.attempts >= MAX_LAUNCH_ATTEMPTS ? 'failed' : 'pending';
    services.log.warn(
      {
        intent_id: intentId,
        task_id: target.taskId,
        runner: runner.name,
        err: (err as Error).message,
        gave_up: state === 'failed',
      },
      'agent launch failed',
    );
    await store.launches.releaseClaim(intentId, state, (err as Error).message, new Date().toISOString());
    return false;
  }
}

/** Records how a built-in run ended, once its launch is recorded: `finished` for exit 0, else `failed`. */
async function recordExit(
  services: Services,
  intentId: string,
  sessionId: string,
  recorded: Promise<boolean>,
  detail: () => Record<string, unknown>,
  exit: AgentExit,
): Promise<void> {
  if (!(await recorded)) return;
  const state = exit.exit_code === 0 && !exit.timed_out ? 'finished' : 'failed';
  try {
    await services.store.transaction((tx) =>
      tx.launches.recordExit(intentId, sessionId, detail(), state, new Date().toISOString()),
    );
  } catch (err) {
    services.log.warn({ intent_id: intentId, err: (err as Error).message }, 'could not record how an agent run ended');
  }
}

/** One dispatch pass: promote deferred intents, then launch every launchable one. Returns launches made. */
export async function dispatchLaunches(services: Services): Promise<number> {
  await promoteDeferred(services);
  let launched = 0;
  for (const id of await services.store.launches.listDue(new Date().toISOString(), 100))
    if (await launchOne(services, id)) launched++;
  return launched;
}

/**
 * What Services calls right after a successful Complete (never before): starts a dispatch pass without making the
 * caller wait. Creates with nothing to launch skip it, keeping the plain create path free of extra queries. The
 * recovery runtime's poll picks up anything this pass misses.
 */
export function launchDispatcher(services: () => Services): CreationDispatcher {
  return {
    afterComplete(plan) {
      if (plan.startPolicy !== 'immediate') return;
      setImmediate(() => {
        dispatchLaunches(services()).catch((err: unknown) =>
          services().log.warn({ err: (err as Error).message }, 'agent dispatch failed'),
        );
      });
    },
  };
}
