'use client';
// Creation operations (SPEC §4.2, §13), newest first, filtered by state. The filter lives in the URL (?state=).
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { Suspense } from 'react';
import { CleanupPanel } from '../../../components/cleanup-panel';
import { useLivePoll } from '../../../components/live';
import { WithWorkspace } from '../../../components/session';
import { ExternalId, OperationState, PageHeader, QueryState, Time } from '../../../components/ui';
import { useTRPC } from '../../../trpc/client';

const FILTERS = ['all', 'open', 'preparing', 'completing', 'completed', 'aborting', 'aborted'] as const;
type Filter = (typeof FILTERS)[number];

function Operations({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const raw = useSearchParams().get('state');
  const filter: Filter = FILTERS.includes(raw as Filter) ? (raw as Filter) : 'all';
  const q = useQuery(
    trpc.console.operations.queryOptions({ workspace_id: workspaceId, state: filter === 'all' ? null : filter }, { refetchInterval: useLivePoll(5_000) }),
  );
  return (
    <>
      <label className="field field--inline">
        <span>State</span>
        <select value={filter} onChange={(e) => router.replace(e.target.value === 'all' ? pathname : `${pathname}?state=${e.target.value}`)}>
          {FILTERS.map((f) => (
            <option key={f} value={f}>
              {f === 'open' ? 'in flight (preparing, completing, aborting)' : f}
            </option>
          ))}
        </select>
      </label>
      <QueryState query={q} minHeight="12rem" isEmpty={(d) => d.length === 0} empty="No creation operations match this filter.">
        {(ops) => (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">Creation operations</caption>
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col">State</th>
                  <th scope="col">Task</th>
                  <th scope="col">External id</th>
                  <th scope="col">Steps</th>
                  <th scope="col">Started</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody>
                {ops.map((o) => (
                  <tr key={o.id}>
                    <td data-label="Operation">
                      <Link href={`/operations/${o.id}`}>{o.id.slice(0, 8)}</Link>
                    </td>
                    <td data-label="State">
                      <OperationState state={o.state} />
                    </td>
                    <td data-label="Task">{o.task_identifier ? <Link href={`/tasks/${o.task_id}`}>{o.task_identifier}</Link> : <span className="muted">removed</span>}</td>
                    <td data-label="External id">
                      <ExternalId value={o.external_id} />
                    </td>
                    <td data-label="Steps">
                      {o.steps_succeeded}/{o.steps_total}
                    </td>
                    <td data-label="Started">
                      <Time iso={o.created_at} />
                    </td>
                    <td data-label="Outcome">{o.outcome ?? (o.error ? <span className="error-text">{o.error}</span> : '—')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
    </>
  );
}

export default function OperationsPage() {
  return (
    <>
      <PageHeader title="Creation operations" />
      <Suspense fallback={<p role="status">Loading…</p>}>
        <WithWorkspace>
          {(w) => (
            <>
              <CleanupPanel workspaceId={w.id} />
              <Operations workspaceId={w.id} />
            </>
          )}
        </WithWorkspace>
      </Suspense>
    </>
  );
}
