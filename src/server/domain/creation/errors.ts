// The creation protocol's own failures (SPEC §4.2, §4.4). They are not DomainErrors: no caller ever sees them as
// an answer — a creating request that loses its lease waits for recovery's outcome, and an unknown step waits for
// recovery to verify it. LeaseLostError, which the fenced statement raises, is the data layer's (db/errors.ts).

/** A step whose outcome is unknown blocks Complete and Abort until recovery verifies it (SPEC §4.4). */
export class UnknownStepError extends Error {
  constructor(operationId: string) {
    super(`creation operation ${operationId} has a step whose outcome is unknown`);
    this.name = 'UnknownStepError';
  }
}

/** The operation's error when its task was deleted while its creation ran (SPEC §4.3: not-found, no dispatch). */
export const TASK_GONE = 'task was deleted while its creation ran';
