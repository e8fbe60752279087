// Attachments (SPEC §1, §5): the upload record is a cold path (Prisma Client); the `attachment_claim` step's
// statements run on the driver inside its fenced transaction.
import type { SqlDialect } from '../drivers';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { num, placeholders } from '../values';

export interface AttachmentRecord {
  id: string;
  workspaceId: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  storagePath: string;
  uploadedBy: string;
  createdAt: string;
}

/** Who claims: the task, and the step (operation + index) whose deterministic key makes a re-run a no-op. */
export interface Claim {
  workspaceId: string;
  taskId: string;
  operationId: string;
  stepIndex: number;
}

/** Hot: driver SQL only, so it takes part in a driver transaction (TxRepositories). */
export class AttachmentRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** How many of `ids` are attachments of the workspace (claimed or not). */
  async countInWorkspace(workspaceId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await this.sql.query(
      `SELECT id FROM attachments WHERE workspace_id = $1 AND id IN (${placeholders(2, ids.length)})`,
      [workspaceId, ...ids],
    );
    return rows.length;
  }

  /** Binds the attachments that are free or already this step's own; the number bound (all or the caller rolls back). */
  async claim(c: Claim, ids: readonly string[], at: string): Promise<number> {
    return this.sql.run(
      `UPDATE attachments SET task_id = $1, claim_operation_id = $2, claim_step = $3, claimed_at = $4
       WHERE workspace_id = $5 AND id IN (${placeholders(6, ids.length)})
         AND (claim_operation_id IS NULL OR (claim_operation_id = $2 AND claim_step = $3))`,
      [c.taskId, c.operationId, c.stepIndex, at, c.workspaceId, ...ids],
    );
  }

  /** Attachments bound to the task by this step. */
  async countClaimed(c: Omit<Claim, 'workspaceId'>): Promise<number> {
    const row = await this.sql.one<{ n: unknown }>(
      'SELECT COUNT(*) AS n FROM attachments WHERE claim_operation_id = $1 AND claim_step = $2 AND task_id = $3',
      [c.operationId, c.stepIndex, c.taskId],
    );
    return num(row?.n ?? 0);
  }

  async unclaim(operationId: string, stepIndex: number): Promise<void> {
    await this.sql.run(
      `UPDATE attachments SET task_id = NULL, claim_operation_id = NULL, claim_step = NULL, claimed_at = NULL
       WHERE claim_operation_id = $1 AND claim_step = $2`,
      [operationId, stepIndex],
    );
  }
}

/** Cold: the hot repository plus its reads and writes on Prisma Client; the store hands it out, never a transaction. */
export class ColdAttachmentRepository extends AttachmentRepository {
  constructor(
    sql: Sql,
    dialect: SqlDialect,
    protected readonly prisma: () => Promise<Prisma>,
  ) {
    super(sql, dialect);
  }

  async insert(a: AttachmentRecord): Promise<void> {
    const prisma = await this.prisma();
    await prisma.attachment.create({
      data: {
        id: a.id,
        workspaceId: a.workspaceId,
        filename: a.filename,
        contentType: a.contentType,
        sizeBytes: a.sizeBytes,
        sha256: a.sha256,
        storagePath: a.storagePath,
        uploadedBy: a.uploadedBy,
        createdAt: new Date(a.createdAt),
      },
      select: { id: true },
    });
  }
}
