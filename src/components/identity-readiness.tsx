'use client';
// Identity readiness for workspace admins (SPEC §12): whether this server may serve external identities, a button
// that re-attests now (every server process follows within about a second), and this workspace's legacy rows —
// identities held with no settlement and no creation operation, which block readiness until an admin settles one
// as it is or releases it. The server checks `admin` again and records who resolved what, when, from the console.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';
import { visibleForm } from '../lib/visible-id';
import { ExternalId, QueryState, Time } from './ui';

export function IdentityReadiness({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery(trpc.identity.readiness.queryOptions({ workspace_id: workspaceId }, { refetchInterval: 10_000 }));
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: trpc.identity.pathKey() }),
      qc.invalidateQueries({ queryKey: ['health'] }),
    ]);
  const attest = useMutation(trpc.identity.attest.mutationOptions({ onSuccess: refresh }));
  const resolve = useMutation(trpc.identity.resolveLegacy.mutationOptions({ onSuccess: refresh }));

  const confirmAndResolve = (
    row: { task_id: string; identifier: string; external_id: string },
    action: 'settle' | 'release',
  ) => {
    // SPEC §13: a plain-text question (window.confirm) shows the id's visible form, so it cannot garble the question.
    const id = visibleForm(row.external_id);
    const question =
      action === 'settle'
        ? `Settle “${id}” on ${row.identifier} as it is? The task keeps this external id; creates with it will find this task.`
        : `Release “${id}” from ${row.identifier}? The task is kept without it; the next create with this external id makes a NEW task.`;
    if (window.confirm(question)) resolve.mutate({ workspace_id: workspaceId, task_id: row.task_id, action });
  };

  return (
    <section className="panel" aria-labelledby="identity-readiness-title">
      <h2 id="identity-readiness-title">Identity readiness</h2>
      <QueryState query={q} minHeight="6rem">
        {(r) => (
          <>
            <p role="status">
              {r.ready ? (
                <strong>Ready: external identities are served.</strong>
              ) : (
                <strong>Not ready: every external-identity read and write answers 503 until this is fixed.</strong>
              )}{' '}
              <span className="muted small">
                Attested <Time iso={r.checked_at} />.
              </span>
            </p>
            {r.reasons.length > 0 && (
              <ul className="plain-list" aria-label="Why not ready">
                {r.reasons.map((reason) => (
                  <li key={reason}>{reason}</li>
                ))}
              </ul>
            )}
            <button
              type="button"
              className="btn"
              disabled={attest.isPending}
              onClick={() => attest.mutate({ workspace_id: workspaceId })}
            >
              {attest.isPending ? 'Attesting…' : 'Re-attest now'}
            </button>
            {attest.isError && (
              <p className="error-text" role="alert">
                {messageOf(attest.error)}
              </p>
            )}

            <h3>Legacy identities in this workspace</h3>
            <p className="muted small">
              Tasks holding an external id with no settlement and no creation operation (made before Tether settled
              identities). Settle one to keep its external id, or release it to free the id; either way the task stays.
            </p>
            {r.legacy.length === 0 ? (
              <p>No legacy identities in this workspace.</p>
            ) : (
              <table className="table">
                <caption className="visually-hidden">Legacy identities</caption>
                <thead>
                  <tr>
                    <th scope="col">Task</th>
                    <th scope="col">External id</th>
                    <th scope="col">Created</th>
                    <th scope="col">Resolve</th>
                  </tr>
                </thead>
                <tbody>
                  {r.legacy.map((row) => (
                    <tr key={row.task_id}>
                      <td>
                        {row.identifier} — {row.title}
                      </td>
                      <td>
                        <ExternalId value={row.external_id} />
                      </td>
                      <td>
                        <Time iso={row.created_at} />
                      </td>
                      <td>
                        <button
                          type="button"
                          className="btn"
                          disabled={resolve.isPending}
                          onClick={() => confirmAndResolve(row, 'settle')}
                        >
                          Settle <span className="visually-hidden">{row.identifier}</span>
                        </button>{' '}
                        <button
                          type="button"
                          className="btn btn--danger"
                          disabled={resolve.isPending}
                          onClick={() => confirmAndResolve(row, 'release')}
                        >
                          Release <span className="visually-hidden">{row.identifier}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {resolve.isError && (
              <p className="error-text" role="alert">
                {messageOf(resolve.error)}
              </p>
            )}
            {resolve.isSuccess && (
              <p role="status">
                {resolve.data.action === 'settle' ? 'Settled' : 'Released'}{' '}
                <ExternalId value={resolve.data.external_id} copy={false} />.
              </p>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}
