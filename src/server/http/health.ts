// GET /api/health (SPEC §12): whether this process may serve external identities, and why not.
// 200 when ready, 503 when not, so load balancers and `curl --fail` can use the status alone.
// It answers from the attestation held in memory plus one trivial query, so it stays cheap enough to poll.
// Anyone may ask, so the body names no task, identity or operation of a workspace the caller cannot see (SPEC §11):
// legacy rows and failing cleanups are counted for everyone and listed only for a signed-in person or token that
// can read their workspace (the console's health panel sends its session cookie).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate } from '../auth/authenticate';
import { can, type Actor } from '../domain/access';
import type { Services } from '../services';
import { CLEANUP_FAILING_AFTER } from '../domain/creation/cleanup';
import { sendJson } from './body';

export interface HealthBody {
  status: 'ok' | 'degraded';
  ready: boolean;
  dialect: 'sqlite' | 'postgres';
  migration_version: number;
  database: 'up' | 'down';
  attestation: {
    ready: boolean;
    reasons: string[];
    /** Legacy rows blocking readiness, in every workspace. */
    legacy_count: number;
    /** Those of them in workspaces the caller can read (empty for an anonymous caller). */
    legacy: Array<{ task_id: string; workspace_id: string; external_id: string }>;
    checked_at: string;
  };
  /**
   * SPEC §4.4: compensations handed to cleanup that the runtime is still retrying (`pending`), and those that keep
   * failing — for operators to look at. Readiness does not depend on it. Null when the database cannot say.
   */
  cleanup: { pending: number; failing_count: number; failing: CleanupBody[] } | null;
}

interface CleanupBody {
  operation_id: string;
  workspace_id: string;
  step_index: number;
  kind: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
}

const FAILING_SHOWN = 20;

async function cleanupBody(services: Services, sees: (workspaceId: string) => boolean): Promise<HealthBody['cleanup']> {
  try {
    const { pending, failing } = await services.store.cleanup.summary(CLEANUP_FAILING_AFTER, FAILING_SHOWN);
    // The list is capped; the count is not.
    const failingCount =
      failing.length < FAILING_SHOWN
        ? failing.length
        : await services.store.cleanup.countFailing(CLEANUP_FAILING_AFTER);
    return {
      pending,
      failing_count: failingCount,
      failing: failing
        .filter((f) => sees(f.workspaceId))
        .map((f) => ({
          operation_id: f.operationId,
          workspace_id: f.workspaceId,
          step_index: f.stepIndex,
          kind: f.kind,
          attempts: f.attempts,
          last_error: f.lastError,
          next_attempt_at: f.nextAttemptAt,
        })),
    };
  } catch {
    return null;
  }
}

/** SPEC §12: health says `database: down` within a second of losing it — a database slower than this to answer is
 *  not serving anyone either. */
const PING_TIMEOUT_MS = 1_000;

/**
 * Whether the database serves this process now, writes included (a read-only PostgreSQL node or a SQLite file that
 * refuses writes is down: Db.probe), with a deadline: an unreachable PostgreSQL must not make the health check hang.
 */
async function pingDatabase(services: Services): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  try {
    const ping = services.store.probe().then(
      () => true,
      () => false,
    );
    return await Promise.race([ping, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** `actor`: who asked (undefined: anonymous, e.g. a load balancer) — decides which rows are listed. */
export async function healthBody(services: Services, actor?: Actor): Promise<HealthBody> {
  const sees = (workspaceId: string) => actor !== undefined && can(actor, workspaceId, 'read');
  const attestation = services.readiness.current;
  const databaseUp = await pingDatabase(services);
  const ready = attestation.ready && databaseUp;
  return {
    status: ready ? 'ok' : 'degraded',
    ready,
    dialect: services.store.dialect,
    migration_version: services.readiness.version,
    database: databaseUp ? 'up' : 'down',
    attestation: {
      ready: attestation.ready,
      reasons: attestation.reasons,
      legacy_count: attestation.legacyTotal,
      legacy: attestation.legacy.filter((l) => sees(l.workspace_id)),
      checked_at: attestation.checkedAt,
    },
    cleanup: databaseUp ? await cleanupBody(services, sees) : null,
  };
}

export async function handleHealth(req: IncomingMessage, res: ServerResponse, services: Services): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, HEAD' });
    return;
  }
  const body = await healthBody(services, await caller(services, req));
  sendJson(res, body.ready ? 200 : 503, body);
}

/** The caller, if it presented a valid credential; health never refuses anyone, so a bad one is just anonymous. */
async function caller(services: Services, req: IncomingMessage): Promise<Actor | undefined> {
  if (!req.headers.authorization && !req.headers.cookie) return undefined;
  try {
    return (await authenticate(services, req.headers, { method: 'GET' }))?.actor;
  } catch {
    return undefined; // the database may be what is down: health still answers
  }
}
