// Release operations (SPEC §7): replay evidence, keyed by (workspace, Idempotency-Key), retained forever. The
// release itself runs on the driver inside its transaction; the history the console shows is a cold read on Prisma.
import type { SqlDialect } from '../drivers';
import type { Prisma } from '../prisma';
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
  /** The operator's reason, if one was given. */
  reason: string | null;
  /** SPEC §13: the X-Request-Id of the request that made it; null in process and before request ids were kept. */
  requestId: string | null;
}

/** A release request that met a stored release without making one (release_attempts): a replay, or a key conflict. */
export interface ReleaseAttemptRecord {
  id: string;
  releaseId: string;
  workspaceId: string;
  kind: 'replay' | 'conflict';
  actorId: string;
  source: string;
  /** The external id the attempt named (for a conflict, not the release's). */
  externalId: string;
  requestId: string | null;
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
  reason: unknown;
  request_id: unknown;
}

const COLUMNS =
  'id, workspace_id, idempotency_key, request_hash, actor_id, source, external_id, holder_task_id, result_status, result_body, created_at, reason, request_id';

/** One release as an identity's history and the releases list show it, with the holder's identifier. */
export interface ReleaseHistoryEntry {
  id: string;
  idempotencyKey: string;
  actorId: string;
  source: string;
  externalId: string;
  holderTaskId: string | null;
  /** Null when the holder has since been deleted. */
  holderIdentifier: string | null;
  resultStatus: number;
  createdAt: string;
  reason: string | null;
  requestId: string | null;
}

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
    reason: strOrNull(r.reason),
    requestId: strOrNull(r.request_id),
  };
}

/** Hot: driver SQL only, so it takes part in a driver transaction (TxRepositories). */
export class ReleaseRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  async findByKey(workspaceId: string, idempotencyKey: string): Promise<ReleaseRecord | undefined> {
    const row = await this.sql.one<ReleaseRow>(
      `SELECT ${COLUMNS} FROM release_operations WHERE workspace_id = $1 AND idempotency_key = $2`,
      [workspaceId, idempotencyKey],
    );
    return row ? toRelease(row) : undefined;
  }

  /** A concurrent insert with the same key fails on uniq_release_operations_key (the caller replays). */
  async insert(r: ReleaseRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO release_operations (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
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
        r.reason,
        r.requestId,
      ],
    );
  }

  async insertAttempt(a: ReleaseAttemptRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO release_attempts (id, release_id, workspace_id, kind, actor_id, source, external_id, request_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [a.id, a.releaseId, a.workspaceId, a.kind, a.actorId, a.source, a.externalId, a.requestId, a.createdAt],
    );
  }
}

/** Cold: the hot repository plus its reads and writes on Prisma Client; the store hands it out, never a transaction. */
export class ColdReleaseRepository extends ReleaseRepository {
  constructor(
    sql: Sql,
    dialect: SqlDialect,
    protected readonly prisma: () => Promise<Prisma>,
  ) {
    super(sql, dialect);
  }

  /** The releases of one external id, newest first (SPEC §13: an identity's history). */
  async listHistory(workspaceId: string, limit: number, externalId: string): Promise<ReleaseHistoryEntry[]> {
    const prisma = await this.prisma();
    const releases = await prisma.releaseOperation.findMany({
      where: { workspaceId, externalId },
      select: {
        id: true,
        idempotencyKey: true,
        actorId: true,
        source: true,
        externalId: true,
        holderTaskId: true,
        resultStatus: true,
        createdAt: true,
        reason: true,
        requestId: true,
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
    });
    const holderIds = [...new Set(releases.flatMap((r) => (r.holderTaskId ? [r.holderTaskId] : [])))];
    const holders = holderIds.length
      ? await prisma.task.findMany({ where: { id: { in: holderIds } }, select: { id: true, identifier: true } })
      : [];
    const identifiers = new Map(holders.map((t) => [t.id, t.identifier]));
    return releases.map((r) => ({
      id: r.id,
      idempotencyKey: r.idempotencyKey,
      actorId: r.actorId,
      source: r.source,
      externalId: r.externalId,
      holderTaskId: r.holderTaskId,
      holderIdentifier: r.holderTaskId ? (identifiers.get(r.holderTaskId) ?? null) : null,
      resultStatus: r.resultStatus,
      createdAt: r.createdAt.toISOString(),
      reason: r.reason,
      requestId: r.requestId,
    }));
  }
}
