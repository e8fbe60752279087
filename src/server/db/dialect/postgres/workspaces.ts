// PostgreSQL's form of the create path's workspace read: creates validated in the same turn of the event loop share
// one statement (statement-batch.ts); each gets exactly what its single-row read would return. Only the store's
// (cold) form has it: inside a transaction every statement belongs to that transaction.
import { StatementBatch } from './statement-batch';
import type { Prisma } from '../../prisma';
import { ColdWorkspaceRepository, toTarget, type CreateTarget, type TargetRow } from '../../repositories/workspaces';
import type { Db } from '../../types';
import { jsonParam } from '../../values';
import { POSTGRES } from '../../drivers/index';

interface Item {
  workspaceId: string;
  stepId: string | null;
}

export class PostgresWorkspaceRepository extends ColdWorkspaceRepository {
  private readonly targets: StatementBatch<Item, TargetRow | undefined>;

  constructor(db: Db, prisma: () => Promise<Prisma>) {
    super(db, POSTGRES, prisma);
    this.targets = new StatementBatch(async (items) => {
      const rows = await db.query<TargetRow & { i: unknown }>(
        `SELECT k.i, w.root_path, s.id AS step_id, s.wip_limit
         FROM jsonb_to_recordset($1::jsonb) AS k(i int, ws text, step text)
         JOIN workspaces w ON w.id = k.ws
         LEFT JOIN LATERAL (
           SELECT id, wip_limit FROM workflow_steps
           WHERE workspace_id = w.id AND (k.step IS NULL OR id = k.step) ORDER BY position LIMIT 1
         ) s ON true`,
        [jsonParam(items.map((it, i) => ({ i: i + 1, ws: it.workspaceId, step: it.stepId })))],
      );
      const byIndex = new Map(rows.map((r) => [Number(r.i), r]));
      return items.map((_, i) => byIndex.get(i + 1));
    });
  }

  override async createTarget(workspaceId: string, stepId: string | null): Promise<CreateTarget | undefined> {
    const row = await this.targets.push('', { workspaceId, stepId });
    return row ? toTarget(row) : undefined;
  }
}
