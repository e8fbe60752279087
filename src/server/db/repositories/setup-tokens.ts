// First-run setup tokens (SPEC §11): sha256 of the one-time link's token, spent once. Cold path on
// Prisma Client, except the token a server start issues: that is on the driver, so that starting a process does not
// load Prisma Client (db/prisma/). The spend is a conditional update so that of two racing submissions exactly
// one wins.
import type { Prisma } from '../prisma';
import type { Db } from '../types';

export class SetupTokenRepository {
  constructor(
    private readonly db: Db,
    private readonly prisma: () => Promise<Prisma>,
  ) {}

  /** Stores this token and drops any unspent one, in one transaction (only the newest link works). */
  async replaceUnspent(tokenHash: string, at: string): Promise<void> {
    await this.db.transaction(async (sql) => {
      await sql.run('DELETE FROM setup_tokens WHERE used_at IS NULL');
      await sql.run('INSERT INTO setup_tokens (token_hash, created_at) VALUES ($1, $2)', [tokenHash, at]);
    });
  }

  async isUnspent(tokenHash: string): Promise<boolean> {
    const prisma = await this.prisma();
    return (
      (await prisma.setupToken.findFirst({ where: { tokenHash, usedAt: null }, select: { tokenHash: true } })) !== null
    );
  }

  /** Spends the token, but only while no user exists (one transaction); true when this call spent it. */
  async spendWhileNoUsers(tokenHash: string, at: string): Promise<boolean> {
    const prisma = await this.prisma();
    return prisma.$transaction(async (tx) => {
      if (await tx.user.findFirst({ select: { id: true } })) return false;
      const { count } = await tx.setupToken.updateMany({
        where: { tokenHash, usedAt: null },
        data: { usedAt: new Date(at) },
      });
      return count > 0;
    });
  }

  /** Gives a spent token back (the admin it was spent for could not be created). */
  async unspend(tokenHash: string): Promise<void> {
    const prisma = await this.prisma();
    await prisma.setupToken.updateMany({ where: { tokenHash }, data: { usedAt: null } });
  }
}
