'use client';
// Overview per workspace (SPEC §13): counts, unsettled identities, creations in flight, releases in the last
// 24 h, the same by id namespace (which integration makes unsettled or released work), creates by outcome over time,
// recent events — refreshed live as events arrive (polled only without the stream) — and the process's health, which
// agrees with what the page's own requests meet (components/health-status.tsx).
import { useQuery } from '@tanstack/react-query';
import { ConsoleLink as Link } from '../../components/console-link';
import { CreatesChart } from '../../components/creates-chart';
import { EventsList } from '../../components/events-list';
import { HealthStatus } from '../../components/health-status';
import { ListTable } from '../../components/list-controls';
import { useLivePoll } from '../../components/live';
import { WithWorkspace } from '../../components/session';
import { PageHeader, QueryState } from '../../components/ui';
import { useTRPC } from '../../trpc/client';

/** Counts per id namespace: the part of an external id before its first `:` (`jira`, `gh`, `gmail`). */
function Namespaces({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const q = useQuery(
    trpc.console.namespaces.queryOptions({ workspace_id: workspaceId }, { refetchInterval: useLivePoll(10_000) }),
  );
  return (
    <section className="panel" aria-labelledby="namespaces-title">
      <h2 id="namespaces-title">By id namespace</h2>
      <p className="muted small">
        The part of each external id before its first “:”, so each integration’s work can be told apart. Creates and
        releases: the last 24 hours.
      </p>
      <ListTable
        query={q}
        rows={(rows) => rows}
        minHeight="6rem"
        testId="namespaces"
        caption="Counts per id namespace"
        columns={['Namespace', 'Tasks holding an id', 'Unsettled', 'Creates', 'Aborted', 'Releases']}
        empty="No external ids yet."
        row={(r) => {
          const prefix = r.namespace === null ? null : `${r.namespace}:`;
          const name = r.other ? 'all others' : r.namespace === null ? 'no namespace' : r.namespace;
          return (
            <tr key={r.other ? '(other)' : (r.namespace ?? '(none)')}>
              <th scope="row" data-label="Namespace">
                {r.namespace !== null ? <code>{r.namespace}</code> : <span className="muted">{name}</span>}
              </th>
              <td data-label="Tasks holding an id">
                {prefix ? (
                  <Link href={`/tasks?${new URLSearchParams({ q: prefix })}`}>{r.held.toLocaleString('en')}</Link>
                ) : (
                  r.held.toLocaleString('en')
                )}
              </td>
              <td data-label="Unsettled" className={r.unsettled > 0 ? 'warn-text' : undefined}>
                {prefix && r.unsettled > 0 ? (
                  <Link href={`/tasks?${new URLSearchParams({ q: prefix, settlement: 'unsettled' })}`}>
                    {r.unsettled}
                  </Link>
                ) : (
                  r.unsettled
                )}
              </td>
              <td data-label="Creates">
                {prefix ? (
                  <Link href={`/operations?${new URLSearchParams({ prefix })}`}>{r.creates.toLocaleString('en')}</Link>
                ) : (
                  r.creates.toLocaleString('en')
                )}
              </td>
              <td data-label="Aborted">
                {prefix && r.aborted > 0 ? (
                  <Link href={`/operations?${new URLSearchParams({ prefix, state: 'aborted' })}`}>{r.aborted}</Link>
                ) : (
                  r.aborted
                )}
              </td>
              <td data-label="Releases">
                {prefix && r.releases > 0 ? (
                  <Link href={`/releases?${new URLSearchParams({ prefix })}`}>{r.releases}</Link>
                ) : (
                  r.releases
                )}
                {r.releases > 0 && <span className="muted small"> ({r.released} freed)</span>}
              </td>
            </tr>
          );
        }}
      />
    </section>
  );
}

function Overview({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const q = useQuery(
    trpc.console.overview.queryOptions({ workspace_id: workspaceId }, { refetchInterval: useLivePoll(5_000) }),
  );
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
                <span className="stat__value">{o.counts.unsettled}</span>{' '}
                <span className="stat__label">unsettled identities</span>
              </Link>
            </li>
            <li className="stat">
              <Link href="/operations?state=open">
                <span className="stat__value">{o.counts.creations_in_flight}</span>{' '}
                <span className="stat__label">creations in flight</span>
              </Link>
            </li>
            <li className="stat">
              <Link href="/releases">
                <span className="stat__value">{o.counts.releases_24h}</span>{' '}
                <span className="stat__label">releases, last 24 h</span>
              </Link>
              <span className="muted small">{o.counts.released_24h} freed an identity</span>
            </li>
          </ul>
          <Namespaces workspaceId={workspaceId} />
          <div className="grid-2">
            <section className="panel" aria-labelledby="chart-title">
              <h2 id="chart-title">Creates by outcome</h2>
              <CreatesChart hours={o.creates_by_hour} />
            </section>
            <section className="panel" aria-labelledby="events-title">
              <h2 id="events-title">Recent events</h2>
              {o.recent_events.length === 0 ? (
                <p className="muted">
                  No events yet: they appear here as tasks are created and changed through the API.
                </p>
              ) : (
                <EventsList events={o.recent_events} />
              )}
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
