// The hot repositories: driver SQL only, so each takes part in a driver transaction. This table is what
// `store.transaction(fn)` hands `fn`; the store (db/store.ts) builds its table from it, over the pool, swapping in the
// cold forms (the hot repository plus its Prisma-backed methods) and the dialect's faster forms. What may join a
// transaction is therefore a compile-time fact: a cold method is not on the type a transaction gets.
import { POSTGRES, type SqlDialect } from '../drivers';
import { PostgresEventRepository } from '../dialect/postgres/events';
import type { Sql } from '../types';
import { AgentProfileRepository } from './agent-profiles';
import { AttachmentRepository } from './attachments';
import { CleanupRepository } from './cleanup';
import { ContributionRepository } from './contributions';
import { CreationRepository } from './creation';
import { EventRepository } from './events';
import { GitRepoRepository } from './git-repos';
import { LaunchRepository } from './launches';
import { LegacyRepository } from './legacy';
import { ReleaseRepository } from './releases';
import { TaskRepository } from './tasks';
import { WebhookRepository } from './webhooks';
import { WorkspaceRepository } from './workspaces';

export function txRepositories(sql: Sql, dialect: SqlDialect) {
  return {
    tasks: new TaskRepository(sql, dialect),
    // The horizon sample has only a dialect form (not a faster one), so transactions get PostgreSQL's too.
    events: dialect === POSTGRES ? new PostgresEventRepository(sql) : new EventRepository(sql, dialect),
    releases: new ReleaseRepository(sql, dialect),
    creation: new CreationRepository(sql, dialect),
    workspaces: new WorkspaceRepository(sql, dialect),
    launches: new LaunchRepository(sql, dialect),
    attachments: new AttachmentRepository(sql, dialect),
    contributions: new ContributionRepository(sql, dialect),
    agentProfiles: new AgentProfileRepository(sql, dialect),
    gitRepos: new GitRepoRepository(sql, dialect),
    webhooks: new WebhookRepository(sql, dialect),
    legacy: new LegacyRepository(sql, dialect),
    cleanup: new CleanupRepository(sql, dialect),
  };
}

/** The repositories that take part in a driver transaction (Prisma Client is not part of one). */
export type TxRepositories = Readonly<ReturnType<typeof txRepositories>>;
