// Release operations (SPEC §7): replay evidence, keyed by (workspace, Idempotency-Key), retained forever.
import type { SqlDialect } from '../dialect';
import type { Sql } from '../types';
import { json, num, str, strOrNull } from '../values';

export interface ReleaseRecord {
  id: string;
  workspaceId: string;
  idempotencyKey: string;
  requestHash: string;
  actorId: string;
  /** Where the request came from (`rest`, `trpc`, `console`, `cli`). */
  source: string;
  externalId: string;
  holderTaskId: string | null;
  resultStatus: 204 | 404;
  resultBody: { error: string } | null;
  createdAt: string;
}

interface ReleaseRow {
  id: unknown;
  workspace_id: unknown;
  idempotency_key: unknown;
  request_hash: unknown;
  actor_id: unknown;
  source: unknown;
  external_id: unknown;
  holder_task_id: unknown;
  result_status: unknown;
  result_body: unknown;
  created_at: unknown;
}

const COLUMNS =
  'id, workspace_id, idempotency_key, request_hash, actor_id, source, external_id, holder_task_id, result_status, result_body, created_at';

function toRelease(r: ReleaseRow): ReleaseRecord {
  return {
    id: str(r.id),
    workspaceId: str(r.workspace_id),
    idempotencyKey: str(r.idempotency_key),
    requestHash: str(r.request_hash),
    actorId: str(r.actor_id),
    source: str(r.source),
    externalId: str(r.external_id),
    holderTaskId: strOrNull(r.holder_task_id),
    resultStatus: num(r.result_status) as 204 | 404,
    resultBody: r.result_body ? json<{ error: string }>(r.result_body) : null,
    createdAt: str(r.created_at),
  };
}

export class ReleaseRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  async findByKey(workspaceId: string, idempotencyKey: string): Promise<ReleaseRecord | undefined> {
    const row = await this.sql.one<ReleaseRow>(`SELECT ${COLUMNS} FROM release_operations WHERE workspace_id = $1 AND idempotency_key = $2`, [
      workspaceId,
      idempotencyKey,
    ]);
    return row ? toRelease(row) : undefined;
  }

  /** A concurrent insert with the same key fails on uniq_release_operations_key (the caller replays). */
  async insert(r: ReleaseRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO release_operations (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        r.id,
        r.workspaceId,
        r.idempotencyKey,
        r.requestHash,
        r.actorId,
        r.source,
        r.externalId,
        r.holderTaskId,
        r.resultStatus,
        r.resultBody ? JSON.stringify(r.resultBody) : null,
        r.createdAt,
      ],
    );
  }
}
