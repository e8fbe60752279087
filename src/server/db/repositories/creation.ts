// Creation operations and their steps (SPEC §4, §5, §6).
import type { SqlDialect } from '../dialect';
import type { Sql } from '../types';

export class CreationRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** SPEC §7, holder `preparing`: its operation's Complete will yield CreatedIdentityLost. False if not preparing. */
  async markIdentityReleased(taskId: string, at: string): Promise<boolean> {
    const n = await this.sql.run(
      `UPDATE creation_operations SET identity_released = $2, updated_at = $3 WHERE task_id = $1 AND state = 'preparing'`,
      [taskId, true, at],
    );
    return n > 0;
  }
}
