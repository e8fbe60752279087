// A creating request that stalled past its lease lost the operation to the recovery runtime (SPEC §4.2, §6).
// It does not fight for it: it waits (bounded) for the runtime's decision and reports that.
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { CreateOutcome, CreationHandle } from './operation';
import { loadError } from './steps/records';

export async function awaitRecoveredOutcome(services: Services, handle: CreationHandle): Promise<CreateOutcome> {
  const deadline = Date.now() + Math.max(10_000, services.leaseMs * 3);
  for (;;) {
    const op = await services.store.creation.findOperation(handle.operationId);
    const task = await services.store.tasks.findById(handle.taskId);
    if (!op) throw new DomainError('task_not_created');
    if (op.state === 'completed') {
      const outcome = op.outcome ?? { kind: 'gone' };
      if (!task || outcome.kind === 'gone') throw new DomainError('task_not_created');
      return { kind: outcome.kind === 'created_identity_lost' ? 'created_identity_lost' : 'created', task };
    }
    if (op.state === 'aborted') {
      throw op.error ? loadError(op.error, 'workspace_attachment') : new DomainError('task_not_created');
    }
    // Still running under recovery: the honest answer is the unsettled holder (SPEC §3, FoundUnsettled).
    if (Date.now() > deadline) {
      if (!task) throw new DomainError('task_not_created');
      return { kind: 'found_unsettled', task };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
