// The one gate every external-identity read and write calls (SPEC §12): until attestation passes they
// answer 503 with the reason; creates without an identity keep working.
import { attest, type AttestationResult } from './db/attest';
import { schemaVersion } from './db/migrate';
import type { Db } from './db/types';
import { DomainError } from './domain/errors/domain-error';

export class Readiness {
  private result: AttestationResult = {
    ready: false,
    reasons: ['attestation has not run yet'],
    legacy: [],
    checkedAt: new Date(0).toISOString(),
  };
  version = 0;

  get current(): AttestationResult {
    return this.result;
  }

  async refresh(db: Db): Promise<AttestationResult> {
    this.version = await schemaVersion(db);
    this.result = await attest(db);
    return this.result;
  }

  /** Throws the 503 unless the identity schema attested. */
  requireIdentity(): void {
    if (!this.result.ready) throw new DomainError('identity_not_ready', this.result.reasons.join('; '));
  }
}
