// The StepContext a step kind runs with, built from its stored record (creation_steps, db/repositories/creation.ts),
// and how a step's error is stored and read back.
import type { StepRecord } from '../../../db/repositories/creation';
import { json } from '../../../db/values';
import type { Services } from '../../../services';
import { DomainError, type ErrorCode } from '../../errors/domain-error';
import type { CreationHandle } from '../operation';
import type { StepKind } from '../plan';
import type { StepContext } from './types';

export function stepContext(services: Services, handle: CreationHandle, step: StepRecord): StepContext {
  const { store } = services;
  return {
    services,
    handle,
    index: step.index,
    params: step.params,
    prior: step.evidence,
    async identifier() {
      const task = await store.tasks.findById(handle.taskId);
      if (!task) throw new DomainError('task_not_created');
      return task.identifier;
    },
    async note(evidence) {
      await store.creation.recordStep(handle, step.index, { evidence }, 'running');
    },
    tx: (fn) => store.creation.fenced(handle, fn),
  };
}

/**
 * The error a step failed with, as stored and as the caller sees it (SPEC §4.4: mapped through DomainError). Only a
 * permanent failure is one: the caller first sets aside a database failure, whose outcome is unknown
 * (isDatabaseUnavailable) — it never becomes a step failure.
 */
export function toStepError(err: unknown, kind: StepKind): DomainError {
  if (err instanceof DomainError) return err;
  return new DomainError('creation_step_failed', kind);
}

export function storeError(err: DomainError): string {
  return JSON.stringify({ code: err.code, detail: err.detail ?? null, message: err.message });
}

export function loadError(stored: string | null, kind: StepKind): DomainError {
  try {
    const e = json<{ code: ErrorCode; detail: string | null }>(stored ?? '');
    return new DomainError(e.code, e.detail ?? undefined);
  } catch {
    return new DomainError('creation_step_failed', kind);
  }
}
