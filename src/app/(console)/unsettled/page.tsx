'use client';
// Unsettled identities (SPEC §4.2, §13): every identity whose create has not finished, with its operation's
// state, the step it is on, live age and lease. Task events refresh it live; a create's start, step progress and
// leases have no event, so the console's pulse (components/pulse.tsx) refreshes it within about two seconds
// (SPEC §13), and age/lease expiry tick locally (<Time>). The list exports as CSV or JSON.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ConsoleLink } from '../../../components/console-link';
import { ExportLinks, ListTable } from '../../../components/list-controls';
import { useLivePoll } from '../../../components/live';
import { StepProgress } from '../../../components/operation-parts';
import { ReleaseAction, useCanRelease } from '../../../components/release-dialog';
import { WithWorkspace } from '../../../components/session';
import { ExternalId, OperationState, PageHeader, Time } from '../../../components/ui';
import { useTRPC } from '../../../trpc/client';

function Explanation() {
  return (
    <section className="notice" aria-labelledby="unsettled-means">
      <h2 id="unsettled-means">What unsettled means</h2>
      <p>
        A task is <strong>unsettled</strong> while the create that made it is still preparing or completing: the
        identity is already taken (a retry gets this same task back, with <code>creation_complete: false</code>), but
        its required setup has not finished.
      </p>
      <p>
        It does <strong>not</strong> mean stuck, failed, or safe to release and retry. The creating request may still be
        running; if it died, the recovery runtime takes over once its lease expires and finishes or aborts it on its
        own. Releasing an unsettled identity lets the next create make a second task for the same external thing.
      </p>
    </section>
  );
}

function Unsettled({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const live = useQuery(
    trpc.console.unsettled.queryOptions({ workspace_id: workspaceId }, { refetchInterval: useLivePoll(2_000) }),
  );
  // A row whose release dialog is open stays listed, so the operator sees the answer, until it closes (the release
  // takes it off this list).
  const canRelease = useCanRelease();
  const [held, setHeld] = useState<NonNullable<typeof live.data>[number] | null>(null);
  const q = {
    ...live,
    data: held && live.data && !live.data.some((r) => r.task.id === held.task.id) ? [...live.data, held] : live.data,
  };
  return (
    <>
      <ListTable
        query={q}
        rows={(rows) => rows}
        testId="unsettled"
        caption="Unsettled identities"
        columns={['External id', 'Holder', 'Operation', 'Step', 'Age', 'Lease', ...(canRelease ? ['Action'] : [])]}
        empty="No unsettled identities: every create has finished. A create in progress shows here within about two seconds of its start."
        row={({ task, operation }, i) => (
          <tr key={task.id}>
            <td data-label="External id">
              <ExternalId value={task.external_id} lookalikes={task.lookalikes} />
            </td>
            <td data-label="Holder">
              <ConsoleLink href={`/tasks/${task.id}`} className="ident">
                {task.identifier}
              </ConsoleLink>{' '}
              <span className="muted">{task.title}</span>
            </td>
            <td data-label="Operation">
              {operation ? (
                <span className="nowrap">
                  <OperationState state={operation.state} />{' '}
                  <ConsoleLink href={`/operations/${operation.id}`} className="ident">
                    {operation.id.slice(0, 8)}
                  </ConsoleLink>
                </span>
              ) : (
                <span className="muted">none recorded</span>
              )}
            </td>
            <td data-label="Step">{operation ? <StepProgress operation={operation} /> : '—'}</td>
            <td data-label="Age">
              <Time iso={task.created_at} everyMs={1_000} />
            </td>
            <td data-label="Lease">
              {operation?.lease_owner ? (
                <>
                  <code className="small">{operation.lease_owner}</code>, expires{' '}
                  <Time iso={operation.lease_expires_at} everyMs={1_000} />
                </>
              ) : (
                <span className="muted">no lease held</span>
              )}
            </td>
            {canRelease && (
              <td data-label="Action">
                <ReleaseAction
                  target={
                    task.external_id
                      ? {
                          workspaceId,
                          externalId: task.external_id,
                          holder: { ...task, operation_state: operation?.state ?? null },
                          triggerLabel: `Release ${task.identifier}…`,
                        }
                      : null
                  }
                  onOpenChange={(open) => setHeld(open ? q.data![i]! : null)}
                />
              </td>
            )}
          </tr>
        )}
      />
      <ExportLinks list="unsettled" input={{ workspace_id: workspaceId }} label="this list" />
    </>
  );
}

export default function UnsettledPage() {
  return (
    <>
      <PageHeader title="Unsettled identities" />
      <Explanation />
      <WithWorkspace>{(w) => <Unsettled workspaceId={w.id} />}</WithWorkspace>
    </>
  );
}
