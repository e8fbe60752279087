// Pluggable agent runners (issue 5): what "launching a prepared session" means. The dispatcher records the launch
// and marks the session running once the runner accepts it; a runner only has to hand the session over.
import { json, str } from '../db/values';

export interface LaunchRequest {
  intentId: string;
  sessionId: string;
  taskId: string;
  workspaceId: string;
  identifier: string;
  title: string;
  profile: { id: string; name: string; runner: string; config: Record<string, unknown> } | null;
}

export interface AgentRunner {
  readonly name: string;
  /** Hands the session over. Throwing leaves the intent pending for a later attempt. May be called again for
   * the same intent after a crash: runners that call out should pass `intentId` on as an idempotency key. */
  launch(req: LaunchRequest): Promise<Record<string, unknown> | undefined>;
}

/** Built-in: nothing to hand over — the dispatcher's record of the launch and the running session is the launch. */
export const builtinRunner: AgentRunner = {
  name: 'builtin',
  async launch() {
    return undefined;
  },
};

/** Posts the launch to the profile's configured URL (`config.url`) with the intent id as Idempotency-Key. */
export const webhookRunner: AgentRunner = {
  name: 'webhook',
  async launch(req) {
    const url = req.profile?.config.url;
    if (typeof url !== 'string') throw new Error('webhook agent profile has no url');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': req.intentId },
      body: JSON.stringify({
        intent_id: req.intentId,
        session_id: req.sessionId,
        task_id: req.taskId,
        workspace_id: req.workspaceId,
        identifier: req.identifier,
        title: req.title,
        profile: req.profile ? { id: req.profile.id, name: req.profile.name } : null,
      }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`webhook runner answered ${res.status}`);
    return { status: res.status };
  },
};

const runners = new Map<string, AgentRunner>([
  [builtinRunner.name, builtinRunner],
  [webhookRunner.name, webhookRunner],
]);

/** Adds (or replaces) a runner; profiles name it in their `runner` column. */
export function registerAgentRunner(runner: AgentRunner): void {
  runners.set(runner.name, runner);
}

export function runnerFor(name: string | null): AgentRunner {
  const runner = runners.get(name ?? 'builtin');
  if (!runner) throw new Error(`no agent runner named ${name}`);
  return runner;
}

export function profileFromRow(r: Record<string, unknown> | undefined): LaunchRequest['profile'] {
  if (!r) return null;
  return { id: str(r.id), name: str(r.name), runner: str(r.runner), config: json<Record<string, unknown>>(r.config) };
}
