// Pluggable agent runners (issue 5): what "launching a prepared session" means. The dispatcher records the launch
// and marks the session running once the runner accepts it; a runner only has to hand the session over. The
// registry hangs on Services (`services.agentRunners`): each process (and each test) has its own.
import type { LaunchProfile } from '../db/repositories/launches';

export interface LaunchRequest {
  intentId: string;
  sessionId: string;
  taskId: string;
  workspaceId: string;
  identifier: string;
  title: string;
  profile: LaunchProfile | null;
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

/** The runners profiles can name in their `runner` column. */
export class AgentRunners {
  private readonly runners = new Map<string, AgentRunner>([
    [builtinRunner.name, builtinRunner],
    [webhookRunner.name, webhookRunner],
  ]);

  /** Adds (or replaces) a runner. */
  register(runner: AgentRunner): void {
    this.runners.set(runner.name, runner);
  }

  /** The named runner (no name: the built-in one). */
  get(name: string | null): AgentRunner {
    const runner = this.runners.get(name ?? 'builtin');
    if (!runner) throw new Error(`no agent runner named ${name}`);
    return runner;
  }
}
