'use client';
// Release history (SPEC §7, §13): every release operation — who, when, which identity, which holder, the
// result and the Idempotency-Key. Release operations are kept forever as replay evidence.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useLivePoll } from '../../../components/live';
import { WithWorkspace } from '../../../components/session';
import { Badge, ExternalId, PageHeader, QueryState, Time } from '../../../components/ui';
import { useTRPC } from '../../../trpc/client';

function Releases({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.console.releases.queryOptions({ workspace_id: workspaceId }, { refetchInterval: useLivePoll(10_000) }));
  return (
    <QueryState query={q} minHeight="10rem" isEmpty={(d) => d.length === 0} empty="No identity has been released in this workspace. Release one from a task’s page when its external thing must be made again.">
      {(rows) => (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">Release history</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">External id</th>
                <th scope="col">Holder</th>
                <th scope="col">Result</th>
                <th scope="col">Idempotency-Key</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td data-label="When">
                    <Time iso={r.created_at} />
                  </td>
                  <td data-label="Who">
                    {r.actor} <span className="muted small">via {r.source}</span>
                  </td>
                  <td data-label="External id">
                    <ExternalId value={r.external_id} />
                  </td>
                  <td data-label="Holder">
                    {r.holder_task_id ? (
                      r.holder_identifier ? (
                        <Link href={`/tasks/${r.holder_task_id}`}>{r.holder_identifier}</Link>
                      ) : (
                        <span className="muted">deleted task</span>
                      )
                    ) : (
                      <span className="muted">none</span>
                    )}
                  </td>
                  <td data-label="Result">
                    {r.result === 'released' ? <Badge tone="ok">released</Badge> : <Badge tone="muted">nothing held it</Badge>}
                  </td>
                  <td data-label="Idempotency-Key">
                    <code className="small">{r.idempotency_key}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </QueryState>
  );
}

export default function ReleasesPage() {
  return (
    <>
      <PageHeader title="Releases" />
      <WithWorkspace>{(w) => <Releases workspaceId={w.id} />}</WithWorkspace>
    </>
  );
}
