'use client';
// Overview per workspace (SPEC §13): counts, unsettled identities, creations in flight, releases in the last
// 24 h, creates by outcome over time, recent events — refreshed live as events arrive (polled only without the stream) — and the process's health.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { CreatesChart } from '../../components/creates-chart';
import { EventsList } from '../../components/events-list';
import { HealthStatus } from '../../components/health-status';
import { useLivePoll } from '../../components/live';
import { WithWorkspace } from '../../components/session';
import { PageHeader, QueryState } from '../../components/ui';
import { useTRPC } from '../../trpc/client';

function Overview({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.console.overview.queryOptions({ workspace_id: workspaceId }, { refetchInterval: useLivePoll(5_000) }));
  return (
    <QueryState query={q} minHeight="20rem">
      {(o) => (
        <>
          <ul className="stats" aria-label="Counts">
            <li className="stat">
              <Link href="/tasks">
                <span className="stat__value">{o.counts.tasks}</span> <span className="stat__label">tasks</span>
              </Link>
              <span className="muted small">{o.counts.archived} archived</span>
            </li>
            <li className={o.counts.unsettled > 0 ? 'stat stat--warn' : 'stat'}>
              <Link href="/unsettled">
                <span className="stat__value">{o.counts.unsettled}</span> <span className="stat__label">unsettled identities</span>
              </Link>
            </li>
            <li className="stat">
              <Link href="/operations?state=open">
                <span className="stat__value">{o.counts.creations_in_flight}</span> <span className="stat__label">creations in flight</span>
              </Link>
            </li>
            <li className="stat">
              <Link href="/releases">
                <span className="stat__value">{o.counts.releases_24h}</span> <span className="stat__label">releases, last 24 h</span>
              </Link>
              <span className="muted small">{o.counts.released_24h} freed an identity</span>
            </li>
          </ul>
          <div className="grid-2">
            <section className="panel" aria-labelledby="chart-title">
              <h2 id="chart-title">Creates by outcome</h2>
              <CreatesChart hours={o.creates_by_hour} />
            </section>
            <section className="panel" aria-labelledby="events-title">
              <h2 id="events-title">Recent events</h2>
              {o.recent_events.length === 0 ? <p className="muted">No events yet: they appear here as tasks are created and changed through the API.</p> : <EventsList events={o.recent_events} />}
            </section>
          </div>
        </>
      )}
    </QueryState>
  );
}

export default function OverviewPage() {
  return (
    <>
      <PageHeader title="Overview" />
      <WithWorkspace>{(w) => <Overview workspaceId={w.id} />}</WithWorkspace>
      <h2 className="section-title">Server</h2>
      <HealthStatus />
    </>
  );
}
