// Pluggable agent runners: what "launching a prepared session" means. The dispatcher records the launch and marks the
// session running once the runner accepts it; a runner only has to hand the session over. The registry hangs on
// Services (`services.agentRunners`): each process (and each test) has its own.
//
// A launch must start something: the built-in runner runs a real command — the one the operator configured for this
// server (TETHER_AGENT_COMMAND, an argv, never a shell line) — once per launch, with the task as JSON on stdin, a
// timeout, and its exit status and the tail of its output recorded. The command comes from the server's configuration
// only, never from data (profiles, requests): whoever can write the database must not be able to run programs on the
// server. Without a command, launches through it fail, and the failure is recorded on the intent. The webhook runner
// hands sessions to a remote service instead, through the same destination policy as webhooks (a profile's URL is a
// workspace's configuration).
import { spawn, type ChildProcess } from 'node:child_process';
import { agentCommandEnv, type Config } from '../config';
import type { LaunchProfile } from '../db/repositories/launches';
import { DestinationPolicy } from '../domain/outbound/destinations';
import type { TaskBody } from '../model/task';
import { postGuarded } from './outbound-http';

export interface LaunchRequest {
  intentId: string;
  sessionId: string;
  taskId: string;
  workspaceId: string;
  identifier: string;
  title: string;
  profile: LaunchProfile | null;
  /** The task as every surface shows it (SPEC §10 task body). */
  task: TaskBody;
  /** Runners that run something to its end report how it ended (the built-in runner does; webhooks do not). */
  onExit?: (exit: AgentExit) => void;
}

/** How a built-in run ended, as recorded on the launch. */
export interface AgentExit {
  exit_code: number | null;
  signal: string | null;
  /** Stopped because it ran longer than TETHER_AGENT_TIMEOUT_MS. */
  timed_out: boolean;
  duration_ms: number;
  /** The last OUTPUT_TAIL_BYTES of stdout and stderr, interleaved as they arrived. */
  output_tail: string;
}

export interface AgentRunner {
  readonly name: string;
  /** Hands the session over. Throwing leaves the intent pending for a later attempt. May be called again for
   * the same intent after a crash: runners that call out should pass `intentId` on as an idempotency key. */
  launch(req: LaunchRequest): Promise<Record<string, unknown> | undefined>;
}

const OUTPUT_TAIL_BYTES = 4096;
/** How long the webhook runner waits for the runner service's answer. */
const WEBHOOK_RUNNER_TIMEOUT_MS = 10_000;
/** After the timeout's SIGTERM, how long a command gets before SIGKILL. */
const KILL_GRACE_MS = 5_000;

/** The last `limit` bytes of a stream of chunks. */
class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}

  push = (chunk: Buffer): void => {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit)
      this.size -= this.chunks.shift()!.length;
  };

  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}

export type AgentCommandSettings = Config['agents'];

/** The built-in runner: runs the configured command per launch (see the top of this file). */
export class CommandRunner implements AgentRunner {
  readonly name = 'builtin';
  private readonly running = new Set<ChildProcess>();

  constructor(private readonly settings: AgentCommandSettings) {}

  async launch(req: LaunchRequest): Promise<Record<string, unknown>> {
    const command = this.settings.command;
    if (!command)
      throw new Error(
        'no agent command is configured for the built-in runner: set TETHER_AGENT_COMMAND (README, "Agents")',
      );
    const [file, ...args] = command as [string, ...string[]];
    const child = spawn(file, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: agentCommandEnv({
        TETHER_INTENT_ID: req.intentId,
        TETHER_SESSION_ID: req.sessionId,
        TETHER_TASK_ID: req.taskId,
        TETHER_TASK_IDENTIFIER: req.identifier,
        TETHER_WORKSPACE_ID: req.workspaceId,
      }),
    });
    // Started, or not at all (no such program, not executable): then the intent stays pending and is retried.
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.on('error', () => {}); // a later error (a failed kill) must not crash the server; 'close' still reports
    this.running.add(child);
    const started = Date.now();
    const tail = new OutputTail(OUTPUT_TAIL_BYTES);
    child.stdout!.on('data', tail.push);
    child.stderr!.on('data', tail.push);
    child.stdin!.on('error', () => {}); // a command that does not read its input closes stdin early (EPIPE)
    child.stdin!.end(
      `${JSON.stringify({ intent_id: req.intentId, session_id: req.sessionId, task: req.task, profile: req.profile })}\n`,
    );

    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      killer.unref();
    }, this.settings.timeoutMs);
    timer.unref();
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      this.running.delete(child);
      req.onExit?.({
        exit_code: code,
        signal,
        timed_out: timedOut,
        duration_ms: Date.now() - started,
        output_tail: tail.text(),
      });
    });
    return { command: file, pid: child.pid ?? null };
  }

  /** Stops every command still running (the server is stopping) and waits until each has ended. */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.running].map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('close', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS).unref();
          }),
      ),
    );
  }
}

/**
 * Posts the launch to the profile's configured URL (`config.url`) with the intent id as Idempotency-Key. The URL is
 * a workspace's configuration, so it goes through the destination policy like a webhook (SPEC §9, outbound-http.ts).
 */
export function webhookRunner(destinations: DestinationPolicy): AgentRunner {
  return {
    name: 'webhook',
    async launch(req) {
      const url = req.profile?.config.url;
      if (typeof url !== 'string') throw new Error('webhook agent profile has no url');
      const result = await postGuarded(destinations, url, {
        timeoutMs: WEBHOOK_RUNNER_TIMEOUT_MS,
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
      });
      if (!result.ok) throw new Error(`webhook runner: ${result.error}`);
      return { status: result.status };
    },
  };
}

/** The runners profiles can name in their `runner` column. */
export class AgentRunners {
  private readonly builtin: CommandRunner;
  private readonly runners: Map<string, AgentRunner>;
  /** Records still being written for runs that ended (the server waits for them before closing the store). */
  private readonly pending = new Set<Promise<unknown>>();

  /** `destinations`: where the webhook runner may post (SPEC §9); by default public addresses only. */
  constructor(
    settings: AgentCommandSettings = { command: null, timeoutMs: 30 * 60_000 },
    destinations = new DestinationPolicy(),
  ) {
    this.builtin = new CommandRunner(settings);
    const webhook = webhookRunner(destinations);
    this.runners = new Map<string, AgentRunner>([
      [this.builtin.name, this.builtin],
      [webhook.name, webhook],
    ]);
  }

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

  /** Work that must finish before the process closes its store (recording how a run ended). */
  track(work: Promise<unknown>): void {
    const held = work.finally(() => this.pending.delete(held));
    this.pending.add(held);
  }

  /** Stops the built-in runner's commands and waits for the records of every run that ended. */
  async close(): Promise<void> {
    await this.builtin.stopAll();
    await Promise.allSettled([...this.pending]);
  }
}
