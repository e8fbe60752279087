// Requests to re-attest readiness now (SPEC §12: "on demand (CLI and console)"). A request is one row;
// every server process polls the newest (readiness.ts `watch`) and re-attests when it changes, so `tether attest`
// run from another machine reaches every process without a restart. On the driver: polled about once a second.
import type { Sql } from '../types';
import { strOrNull } from '../values';

export interface AttestationRequest {
  id: string;
  /** Who asked (a user, a token, or `cli:<os user>`). */
  actorId: string;
  /** `cli`, `console`, or `legacy` (a legacy row was resolved). */
  source: string;
  requestedAt: string;
}

export class AttestationRequestRepository {
  constructor(protected readonly sql: Sql) {}

  async insert(r: AttestationRequest): Promise<void> {
    await this.sql.run(
      'INSERT INTO attestation_requests (id, actor_id, source, requested_at) VALUES ($1, $2, $3, $4)',
      [r.id, r.actorId, r.source, r.requestedAt],
    );
  }

  /** The id of the newest request (undefined when there is none): what `watch` compares between polls. */
  async latestId(): Promise<string | undefined> {
    const row = await this.sql.one<{ id: unknown }>(
      'SELECT id FROM attestation_requests ORDER BY requested_at DESC, id DESC LIMIT 1',
    );
    return strOrNull(row?.id) ?? undefined;
  }
}
