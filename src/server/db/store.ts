// The data layer's front door: every read and write the domain makes goes through a repository here.
// Repositories are the only home of SQL text and Prisma calls. The hot paths (create, lookup, release, outbox,
// recovery claims) run on the driver; cold paths on Prisma Client over the same connections (db/prisma.ts).
// Dialect differences are chosen once, here, when the store is built: a dialect may supply a faster form of a
// repository (dialect/postgres/*.ts) behind the same interface; nothing outside db/ asks which dialect it runs on.
//
//   store.tasks.findByExternalId(ws, id)              one autocommit statement
//   store.transaction(async (tx) => { … tx.tasks … }) one transaction; `tx` holds the transactional repositories
import { PostgresDb, sqlDialect, type SqlDialect } from './drivers';
import { PostgresCreationStore } from './dialect/postgres/creation';
import { PostgresTaskRepository } from './dialect/postgres/tasks';
import { PostgresWorkspaceRepository } from './dialect/postgres/workspaces';
import { SqliteTaskRepository } from './dialect/sqlite/tasks';
import { createPrisma, type Prisma } from './prisma';
import { AgentProfileRepository } from './repositories/agent-profiles';
import { AttestationRequestRepository } from './repositories/attestation-requests';
import { CleanupRepository } from './repositories/cleanup';
import { AttachmentRepository } from './repositories/attachments';
import { ContributionRepository } from './repositories/contributions';
import { ConsoleRepository } from './repositories/console';
import { CreationStore } from './repositories/creation-store';
import { EventRepository } from './repositories/events';
import { GitRepoRepository } from './repositories/git-repos';
import { IdentityRepository } from './repositories/identities';
import { LaunchRepository } from './repositories/launches';
import { LegacyRepository } from './repositories/legacy';
import { PulseRepository } from './repositories/pulse';
import { ReleaseRepository } from './repositories/releases';
import { SessionRepository } from './repositories/sessions';
import { SetupTokenRepository } from './repositories/setup-tokens';
import { SignInThrottleRepository } from './repositories/sign-in-throttles';
import { StatsRepository } from './repositories/stats';
import { TaskRepository } from './repositories/tasks';
import { TokenRepository } from './repositories/tokens';
import { UserRepository } from './repositories/users';
import { WebhookRepository } from './repositories/webhooks';
import { WorkspaceRepository } from './repositories/workspaces';
import type { Db, Dialect } from './types';
import { txRepositories, type Repositories, type TxRepositories } from './repositories';

export type { Repositories, TxRepositories };

export class Store implements Repositories {
  readonly dialect: Dialect;
  readonly tasks: TaskRepository;
  readonly events: EventRepository;
  readonly releases: ReleaseRepository;
  /** The create protocol's transactions (SPEC §4, §6): on PostgreSQL in one statement each, elsewhere as transactions. */
  readonly creation: CreationStore;
  readonly workspaces: WorkspaceRepository;
  readonly launches: LaunchRepository;
  readonly attachments: AttachmentRepository;
  readonly contributions: ContributionRepository;
  readonly agentProfiles: AgentProfileRepository;
  readonly gitRepos: GitRepoRepository;
  readonly webhooks: WebhookRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly tokens: TokenRepository;
  readonly setupTokens: SetupTokenRepository;
  readonly console: ConsoleRepository;
  /** The console's task browser and identity history. */
  readonly identities: IdentityRepository;
  readonly legacy: LegacyRepository;
  readonly cleanup: CleanupRepository;
  readonly attestationRequests: AttestationRequestRepository;
  /** Failed console sign-ins per account and client address, shared by every process (SPEC §11). */
  readonly signInThrottles: SignInThrottleRepository;
  /** What the metrics endpoint reads at scrape time. */
  readonly stats: StatsRepository;
  /** The open operations, summarized: what the console polls to follow creates in flight (SPEC §13). */
  readonly pulse: PulseRepository;
  private readonly sqlDialect: SqlDialect;
  private prismaClient?: Promise<Prisma>;

  /** `driver` is the connection pool (PostgreSQL) or the one connection (SQLite) this store owns. */
  constructor(readonly driver: Db) {
    this.dialect = driver.dialect;
    this.sqlDialect = sqlDialect(driver.dialect);
    const prisma = () => this.prisma();
    const base = txRepositories(driver, this.sqlDialect, prisma);
    const pg = driver instanceof PostgresDb;
    this.tasks = pg ? new PostgresTaskRepository(driver) : new SqliteTaskRepository(driver);
    this.events = base.events;
    this.releases = base.releases;
    const transaction = <T>(fn: (tx: TxRepositories) => Promise<T>) => this.transaction(fn);
    this.creation = pg
      ? new PostgresCreationStore(driver, transaction)
      : new CreationStore(driver, this.sqlDialect, transaction);
    this.workspaces = pg ? new PostgresWorkspaceRepository(driver, prisma) : base.workspaces;
    this.launches = base.launches;
    this.attachments = base.attachments;
    this.contributions = base.contributions;
    this.agentProfiles = base.agentProfiles;
    this.gitRepos = base.gitRepos;
    this.webhooks = base.webhooks;
    this.users = new UserRepository(driver, prisma);
    this.sessions = new SessionRepository(driver, prisma);
    this.tokens = new TokenRepository(driver, prisma);
    this.setupTokens = new SetupTokenRepository(driver, prisma);
    this.console = new ConsoleRepository(driver, this.sqlDialect, prisma);
    this.identities = new IdentityRepository(driver, prisma);
    this.legacy = base.legacy;
    this.cleanup = base.cleanup;
    this.attestationRequests = new AttestationRequestRepository(driver);
    this.signInThrottles = new SignInThrottleRepository(driver);
    this.stats = new StatsRepository(driver);
    this.pulse = new PulseRepository(driver);
  }

  /** Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE). Throwing rolls it back. */
  transaction<T>(fn: (tx: TxRepositories) => Promise<T>): Promise<T> {
    return this.driver.transaction((sql) => fn(txRepositories(sql, this.sqlDialect)));
  }

  /** Whether Prisma Client has been built: not until a cold path needs it (db/prisma.ts). */
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
