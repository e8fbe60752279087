// A creating request that stalled past its lease lost the operation to the recovery runtime (SPEC §4.2, §6).
// It does not fight for it: it waits (bounded) for the runtime's decision and reports that.
import { findTaskById } from '../../db/repositories/tasks';
import { json, str } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { CreateOutcome, CreationHandle } from './operation';
import { loadError } from './steps/records';

export async function awaitRecoveredOutcome(services: Services, handle: CreationHandle): Promise<CreateOutcome> {
  const deadline = Date.now() + Math.max(10_000, services.leaseMs * 3);
  for (;;) {
    const op = await services.db.one<{ state: unknown; outcome: unknown; error: unknown }>(
      'SELECT state, outcome, error FROM creation_operations WHERE id = $1',
      [handle.operationId],
    );
    const task = await findTaskById(services.db, handle.taskId);
    if (!op) throw new DomainError('task_not_created');
    const state = str(op.state);
    if (state === 'completed') {
      const outcome = op.outcome ? json<{ kind: string }>(op.outcome) : { kind: 'gone' };
      if (!task || outcome.kind === 'gone') throw new DomainError('task_not_created');
      return { kind: outcome.kind === 'created_identity_lost' ? 'created_identity_lost' : 'created', task };
    }
    if (state === 'aborted') {
      throw op.error ? loadError(typeof op.error === 'string' ? op.error : null, 'workspace_attachment') : new DomainError('task_not_created');
    }
    // Still running under recovery: the honest answer is the unsettled holder (SPEC §3, FoundUnsettled).
    if (Date.now() > deadline) {
      if (!task) throw new DomainError('task_not_created');
      return { kind: 'found_unsettled', task };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
