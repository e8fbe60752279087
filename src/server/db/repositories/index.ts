// The repositories of one store, and the set that takes part in a driver transaction (db/store.ts builds them).
import { POSTGRES, type SqlDialect } from '../drivers';
import { PostgresEventRepository } from '../dialect/postgres/events';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { AgentProfileRepository } from './agent-profiles';
import type { AttestationRequestRepository } from './attestation-requests';
import { AttachmentRepository } from './attachments';
import { CleanupRepository } from './cleanup';
import type { ConsoleRepository } from './console';
import { ContributionRepository } from './contributions';
import { CreationRepository } from './creation';
import { EventRepository } from './events';
import { GitRepoRepository } from './git-repos';
import type { IdentityRepository } from './identities';
import { LaunchRepository } from './launches';
import { LegacyRepository } from './legacy';
import { ReleaseRepository } from './releases';
import type { SessionRepository } from './sessions';
import type { SetupTokenRepository } from './setup-tokens';
import type { SignInThrottleRepository } from './sign-in-throttles';
import { TaskRepository } from './tasks';
import type { TokenRepository } from './tokens';
import type { UserRepository } from './users';
import { WebhookRepository } from './webhooks';
import { WorkspaceRepository } from './workspaces';

/** The repositories that take part in a driver transaction (Prisma Client is not part of one). */
export interface TxRepositories {
  readonly tasks: TaskRepository;
  readonly events: EventRepository;
  readonly releases: ReleaseRepository;
  readonly creation: CreationRepository;
  readonly workspaces: WorkspaceRepository;
  readonly launches: LaunchRepository;
  readonly attachments: AttachmentRepository;
  readonly contributions: ContributionRepository;
  readonly agentProfiles: AgentProfileRepository;
  readonly gitRepos: GitRepoRepository;
  readonly webhooks: WebhookRepository;
  readonly legacy: LegacyRepository;
  readonly cleanup: CleanupRepository;
}

/** Everything the store offers outside a transaction (cold-path repositories on Prisma Client included). */
export interface Repositories extends TxRepositories {
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly tokens: TokenRepository;
  readonly setupTokens: SetupTokenRepository;
  readonly console: ConsoleRepository;
  readonly identities: IdentityRepository;
  readonly attestationRequests: AttestationRequestRepository;
  readonly signInThrottles: SignInThrottleRepository;
}

/** Inside a driver transaction a repository method that would go through Prisma Client fails loudly: Prisma
 *  would run it on another connection, outside the transaction (and on SQLite, wait forever for the mutex). */
const NO_PRISMA = (): never => {
  throw new Error('Prisma Client is not part of a driver transaction; call this outside store.transaction()');
};

export function txRepositories(
  sql: Sql,
  dialect: SqlDialect,
  prisma: () => Promise<Prisma> = NO_PRISMA,
): TxRepositories {
  return {
    tasks: new TaskRepository(sql, dialect),
    // The horizon sample has only a dialect form (not a faster one), so transactions get PostgreSQL's too.
    events: dialect === POSTGRES ? new PostgresEventRepository(sql) : new EventRepository(sql, dialect),
    releases: new ReleaseRepository(sql, dialect, prisma),
    creation: new CreationRepository(sql, dialect),
    workspaces: new WorkspaceRepository(sql, dialect, prisma),
    launches: new LaunchRepository(sql, dialect),
    attachments: new AttachmentRepository(sql, dialect, prisma),
    contributions: new ContributionRepository(sql, dialect),
    agentProfiles: new AgentProfileRepository(sql, dialect, prisma),
    gitRepos: new GitRepoRepository(sql, dialect, prisma),
    webhooks: new WebhookRepository(sql, dialect, prisma),
    legacy: new LegacyRepository(sql, dialect),
    cleanup: new CleanupRepository(sql, dialect),
  };
}
