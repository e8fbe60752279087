// What the data layer and the domain both say about a create in flight (SPEC §4.2): a fenced write that found its
// operation owned by a newer generation.

/** Raised from a fenced transaction, so that it rolls back whole; the creating request then waits for recovery. */
export class LeaseLostError extends Error {
  constructor(operationId: string) {
    super(`creation operation ${operationId} is now owned by a newer generation`);
    this.name = 'LeaseLostError';
  }
}
