// The data layer's front door: every read and write the domain makes goes through a repository here.
// Repositories are the only home of SQL text and Prisma calls. The hot paths (create, lookup, release, outbox,
// recovery claims) run on the driver; cold paths on Prisma Client over the same connections (db/prisma/).
// Dialect differences are chosen once, here, when the store is built: a dialect may supply a faster form of a
// repository (dialect/postgres/*.ts) behind the same interface; nothing outside db/ asks which dialect it runs on.
//
//   store.tasks.findByExternalId(ws, id)              one autocommit statement
//   store.transaction(async (tx) => { … tx.tasks … }) one transaction; `tx` holds the transactional repositories
import { PostgresDb, SqliteDb, sqlDialect, type SqlDialect } from './drivers';
import { PostgresCreationStore } from './dialect/postgres/creation';
import { PostgresTaskRepository } from './dialect/postgres/tasks';
import { PostgresWorkspaceRepository } from './dialect/postgres/workspaces';
import { SqliteTaskRepository } from './dialect/sqlite/tasks';
import { createPrisma, type Prisma } from './prisma';
import { ColdAgentProfileRepository } from './repositories/agent-profiles';
import { AttestationRequestRepository } from './repositories/attestation-requests';
import { ColdAttachmentRepository } from './repositories/attachments';
import { ConsoleRepository } from './repositories/console';
import { CreationStore, type Transactor } from './repositories/creation-store';
import { ColdGitRepoRepository } from './repositories/git-repos';
import { IdentityRepository } from './repositories/identities';
import { PulseRepository } from './repositories/pulse';
import { ColdReleaseRepository } from './repositories/releases';
import { SessionRepository } from './repositories/sessions';
import { SetupTokenRepository } from './repositories/setup-tokens';
import { SignInThrottleRepository } from './repositories/sign-in-throttles';
import { StatsRepository } from './repositories/stats';
import type { TaskRepository } from './repositories/tasks';
import { TokenRepository } from './repositories/tokens';
import { UserRepository } from './repositories/users';
import { ColdWebhookRepository } from './repositories/webhooks';
import { ColdWorkspaceRepository } from './repositories/workspaces';
import type { Db, Dialect } from './types';
import { txRepositories, type TxRepositories } from './repositories';

export type { TxRepositories };

/**
 * The store's one table of repositories: the hot ones (repositories/index.ts) over the pool, with their cold forms
 * and the dialect's faster forms in their place, then the cold-only ones.
 */
function repositories(driver: Db, dialect: SqlDialect, prisma: () => Promise<Prisma>, transaction: Transactor) {
  const pg = driver instanceof PostgresDb;
  return {
    ...txRepositories(driver, dialect),
    // SQLite's form remembers the Found path's read (drivers/sqlite.ts, remembered reads): it needs the driver itself.
    tasks: (driver instanceof SqliteDb
      ? new SqliteTaskRepository(driver)
      : new PostgresTaskRepository(driver)) as TaskRepository,
    /** The create protocol's writes (SPEC §4, §6): on PostgreSQL in one statement each, elsewhere as transactions. */
    creation: pg ? new PostgresCreationStore(driver, transaction) : new CreationStore(driver, dialect, transaction),
    releases: new ColdReleaseRepository(driver, dialect, prisma),
    workspaces: pg
      ? new PostgresWorkspaceRepository(driver, prisma)
      : new ColdWorkspaceRepository(driver, dialect, prisma),
    attachments: new ColdAttachmentRepository(driver, dialect, prisma),
    agentProfiles: new ColdAgentProfileRepository(driver, dialect, prisma),
    gitRepos: new ColdGitRepoRepository(driver, dialect, prisma),
    webhooks: new ColdWebhookRepository(driver, dialect, prisma),
    users: new UserRepository(driver, prisma),
    sessions: new SessionRepository(driver, prisma),
    tokens: new TokenRepository(driver, prisma),
    setupTokens: new SetupTokenRepository(driver, prisma),
    console: new ConsoleRepository(driver, dialect, prisma),
    /** The console's task browser and identity history. */
    identities: new IdentityRepository(driver, prisma),
    attestationRequests: new AttestationRequestRepository(driver),
    /** Failed console sign-ins per account and client address, shared by every process (SPEC §11). */
    signInThrottles: new SignInThrottleRepository(driver),
    /** What the metrics endpoint reads at scrape time. */
    stats: new StatsRepository(driver),
    /** The open operations, summarized: what the console polls to follow creates in flight (SPEC §13). */
    pulse: new PulseRepository(driver),
  };
}

/** Everything the store offers outside a transaction (the cold repositories included). */
export type Repositories = Readonly<ReturnType<typeof repositories>>;

// The store's repositories are its own fields, typed by the table above (declared once, there).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Store extends Repositories {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Store {
  readonly dialect: Dialect;
  private readonly sqlDialect: SqlDialect;
  private prismaClient?: Promise<Prisma>;

  /** `driver` is the connection pool (PostgreSQL) or the one connection (SQLite) this store owns. */
  constructor(readonly driver: Db) {
    this.dialect = driver.dialect;
    this.sqlDialect = sqlDialect(driver.dialect);
    Object.assign(
      this,
      repositories(
        driver,
        this.sqlDialect,
        () => this.prisma(),
        (fn) => this.transaction(fn),
      ),
    );
  }

  /** Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE). Throwing rolls it back. */
  transaction<T>(fn: (tx: TxRepositories) => Promise<T>): Promise<T> {
    return this.driver.transaction((sql) => fn(txRepositories(sql, this.sqlDialect)));
  }

  /** Whether Prisma Client has been built: not until a cold path needs it (db/prisma/). */
  get prismaLoaded(): boolean {
    return this.prismaClient !== undefined;
  }

  /** Prisma Client over this store's connections, built on first use. */
  prisma(): Promise<Prisma> {
    this.prismaClient ??= createPrisma(this.driver);
    return this.prismaClient;
  }

  /** A trivial round trip (the CLI: is the database there at all?). */
  async ping(): Promise<void> {
    await this.driver.one('SELECT 1 AS ok');
  }

  /** Whether the database serves this process now, writes included (health; Db.probe). */
  probe(): Promise<void> {
    return this.driver.probe();
  }

  private closing?: Promise<void>;

  /** Idempotent: the server and a test may both close the same store. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const prisma = this.prismaClient;
      if (prisma) await (await prisma).$disconnect().catch(() => {});
      await this.driver.close();
    })();
    return this.closing;
  }
}
