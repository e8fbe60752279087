'use client';
// SPEC §4.4 on the operations page: compensations handed to cleanup. When Abort could not undo an effect, the
// runtime keeps retrying with growing pauses until it succeeds; the ones that keep failing are marked, so an
// operator can look at the effect (a folder, a branch, …) instead of it being forgotten.
import { useQuery } from '@tanstack/react-query';
import { ConsoleLink } from './console-link';
import { useTRPC } from '../trpc/client';
import { Badge, ExternalId, QueryState, Time } from './ui';

export function CleanupPanel({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  // Cleanup announces no event (nothing about the task changes), so this polls whether or not the stream is live.
  const q = useQuery(trpc.cleanup.list.queryOptions({ workspace_id: workspaceId }, { refetchInterval: 5_000 }));
  return (
    <section className="panel" aria-labelledby="cleanup-title">
      <h2 id="cleanup-title">Compensations waiting for cleanup</h2>
      <p className="muted small">
        Effects an aborted create could not undo. Tether retries each with growing pauses until it succeeds; “keeps
        failing” means it was tried three times or more — check the error and the effect itself.
      </p>
      <QueryState query={q} isEmpty={(rows) => rows.length === 0} empty="Nothing is waiting for cleanup.">
        {(rows) => (
          <table className="table">
            <caption className="visually-hidden">Compensations waiting for cleanup</caption>
            <thead>
              <tr>
                <th scope="col">Operation</th>
                <th scope="col">Step</th>
                <th scope="col">External id</th>
                <th scope="col">Tries</th>
                <th scope="col">Last error</th>
                <th scope="col">Next try</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.operation_id}-${r.step_index}`}>
                  <td data-label="Operation">
                    <ConsoleLink href={`/operations/${r.operation_id}`}>{r.operation_id.slice(0, 8)}</ConsoleLink>
                  </td>
                  <td data-label="Step">
                    {r.step_index + 1}. {r.kind}{' '}
                    {r.failing ? <Badge tone="bad">keeps failing</Badge> : <Badge tone="warn">retrying</Badge>}
                  </td>
                  <td data-label="External id">
                    <ExternalId value={r.external_id} />
                  </td>
                  <td data-label="Tries">{r.attempts}</td>
                  <td data-label="Last error">
                    {r.last_error ? <span className="error-text">{r.last_error}</span> : '—'}
                  </td>
                  <td data-label="Next try">
                    <Time iso={r.next_attempt_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryState>
    </section>
  );
}
