'use client';
// Shows whether this Tether process may serve external identities (SPEC §12), from GET /api/health.
// Fetched in the browser, not during rendering: the page must not import server code.
import { useQuery } from '@tanstack/react-query';
import { ExternalId } from './external-id';

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

export function HealthStatus() {
  const health = useQuery({ queryKey: ['health'], queryFn: fetchHealth, refetchInterval: 10_000 });

  if (health.isPending) return <p className="health health--pending">Checking health…</p>;
  if (health.isError) {
    return (
      <section className="health health--down" aria-labelledby="health-title">
        <h2 id="health-title">Unreachable</h2>
        <p>{health.error.message}</p>
      </section>
    );
  }

  const h = health.data;
  return (
    <section className={h.ready ? 'health health--ready' : 'health health--not-ready'} aria-labelledby="health-title">
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
