'use client';
// Shows whether this Tether process may serve external identities (SPEC §12), from GET /api/health — and agrees with
// what the page's own requests meet (SPEC §13): while the console's API answers server errors, or nothing answers at
// all, the panel says so first, whatever the health endpoint said last (it may be served while the API is not, and a
// browser that is offline holds its requests back). Fetched in the browser: the page must not import server code.
import { useQuery } from '@tanstack/react-query';
import { useConnection } from './connection';
import { ExternalId } from './external-id';
import { Time } from './time';

/** The fields of the health body the console shows (src/server/http/health.ts). */
interface Health {
  status: 'ok' | 'degraded';
  ready: boolean;
  dialect: string;
  migration_version: number;
  database: 'up' | 'down';
  /** `legacy` lists only rows in workspaces this session can read; `legacy_count` counts them all. */
  attestation: {
    ready: boolean;
    reasons: string[];
    legacy_count: number;
    legacy: Array<{ task_id: string; workspace_id: string; external_id: string }>;
  };
}

async function fetchHealth(): Promise<Health> {
  // 503 still carries the body with the reasons: only a body that is not health JSON is an error.
  const res = await fetch('/api/health', { cache: 'no-store' });
  const body = (await res.json().catch(() => null)) as Health | null;
  if (!body || typeof body.ready !== 'boolean') throw new Error(`health check answered HTTP ${res.status}`);
  return body;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function HealthStatus() {
  const health = useQuery({ queryKey: ['health'], queryFn: fetchHealth, refetchInterval: 10_000 });
  const { status, lastAnswer, apiFailure } = useConnection();

  if (status === 'offline') {
    return (
      <section className="health health--down" aria-labelledby="health-title" data-testid="health">
        <h2 id="health-title">Offline</h2>
        <p>
          The server cannot be reached from this browser.{' '}
          {lastAnswer !== null && (
            <>
              Its last answer came at <Time iso={iso(lastAnswer)} everyMs={1_000} />.
            </>
          )}
        </p>
      </section>
    );
  }
  if (apiFailure) {
    return (
      <section className="health health--down" aria-labelledby="health-title" data-testid="health">
        <h2 id="health-title">Console API failing</h2>
        <p>
          The console’s requests fail: {apiFailure.message} ({apiFailure.path},{' '}
          <Time iso={iso(apiFailure.at)} everyMs={1_000} />)
        </p>
        {health.data && (
          <p className="small">
            The health endpoint says {health.data.ready ? 'ready' : 'not ready'}, database {health.data.database}: it
            answers on its own, so it can be up while the API fails.
          </p>
        )}
      </section>
    );
  }
  if (health.isPending) return <p className="health health--pending">Checking health…</p>;
  if (health.isError) {
    return (
      <section className="health health--down" aria-labelledby="health-title" data-testid="health">
        <h2 id="health-title">Unreachable</h2>
        <p>{health.error.message}</p>
      </section>
    );
  }

  const h = health.data;
  return (
    <section
      className={h.ready ? 'health health--ready' : 'health health--not-ready'}
      aria-labelledby="health-title"
      data-testid="health"
    >
      <h2 id="health-title">{h.ready ? 'Ready' : 'Not ready'}</h2>
      <dl className="health__facts">
        <dt>Database</dt>
        <dd>
          {h.dialect} ({h.database})
        </dd>
        <dt>Schema version</dt>
        <dd>{h.migration_version}</dd>
        <dt>Identity schema attested</dt>
        <dd>{h.attestation.ready ? 'yes' : 'no'}</dd>
      </dl>
      {h.attestation.reasons.length > 0 && (
        <>
          <h3>Reasons</h3>
          <ul className="health__reasons">
            {h.attestation.reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </>
      )}
      {h.attestation.legacy.length > 0 && (
        <>
          <h3>Legacy identities blocking readiness</h3>
          <ul className="health__reasons">
            {h.attestation.legacy.map((l) => (
              <li key={l.task_id}>
                <ExternalId value={l.external_id} copy={false} /> on task <code>{l.task_id}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {h.attestation.legacy_count > h.attestation.legacy.length && (
        <p>
          {h.attestation.legacy_count - h.attestation.legacy.length} more legacy identit
          {h.attestation.legacy_count - h.attestation.legacy.length === 1 ? 'y' : 'ies'} in workspaces you cannot see
          (or beyond the first listed).
        </p>
      )}
    </section>
  );
}
