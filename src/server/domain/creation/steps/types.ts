// SPEC §5: what every step kind provides. Each is idempotent under (operation id, step index): running it again
// after a crash finds its own effect instead of making a second one.
import type { TxRepositories } from '../../../db/store';
import type { Services } from '../../../services';
import type { CreationHandle } from '../operation';

export type Evidence = Record<string, unknown>;

export interface StepContext {
  services: Services;
  handle: CreationHandle;
  index: number;
  params: Record<string, unknown>;
  /** What an earlier attempt noted before its effect (e.g. the commit a branch was to point at). */
  prior: Evidence | null;
  /** The task's identifier (`OPS-42`): names the folder and the branch. Only `execute` needs it. */
  identifier(): Promise<string>;
  /** Records evidence before the effect, so a crash mid-effect can still be verified and compensated. */
  note(evidence: Evidence): Promise<void>;
  /** A fenced transaction: database effects of a stale owner roll back whole. */
  tx<T>(fn: (tx: TxRepositories) => Promise<T>): Promise<T>;
}

export interface StepKindImpl {
  /** Makes the effect (or finds it made) and returns its evidence. Throws a DomainError for a permanent failure. */
  execute(ctx: StepContext): Promise<Evidence>;
  /** The effect's evidence if it exists and still holds, else null. */
  verify(ctx: StepContext, evidence: Evidence | null): Promise<Evidence | null>;
  /** Undoes the effect if it exists. Idempotent; works from noted evidence or the deterministic key alone. */
  compensate(ctx: StepContext, evidence: Evidence | null): Promise<void>;
}
