'use client';
// Task detail (SPEC §13): the identity panel (external id, settlement, creation operation, release), then the
// task's revisions and events (SPEC §9). Only people who may release see the release button; the server refuses
// everyone else regardless (SPEC §11).
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'next/navigation';
import { useState, type ComponentProps } from 'react';
import { ConsoleLink, useNameWorkspace } from '../../../../components/console-link';
import { EventsList } from '../../../../components/events-list';
import { useLivePoll } from '../../../../components/live';
import { historyHref } from '../../../../components/find-external-id';
import { StepProgress } from '../../../../components/operation-parts';
import { RequestId } from '../../../../components/operation-history';
import { ReleaseDialog } from '../../../../components/release-dialog';
import { ExternalId, OperationState, PageHeader, QueryState, TaskBadges, Time } from '../../../../components/ui';
import { useTRPC } from '../../../../trpc/client';

type ReleaseTarget = Omit<ComponentProps<typeof ReleaseDialog>, 'onOpenChange'>;

/**
 * The release's own task.updated event refreshes this page live while the dialog still shows its outcome; the open
 * dialog keeps the identity and holder it was opened for instead of vanishing with the external id.
 */
function ReleaseAction({
  target,
  onOpenChange,
}: {
  target: ReleaseTarget | null;
  onOpenChange: (open: boolean) => void;
}) {
  const [pinned, setPinned] = useState<ReleaseTarget | null>(null);
  const shown = pinned ?? target;
  if (!shown) return null;
  return (
    <div className="panel__actions">
      <ReleaseDialog
        {...shown}
        onOpenChange={(open) => {
          setPinned(open ? shown : null);
          onOpenChange(open);
        }}
      />
    </div>
  );
}

export default function TaskDetailPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const live = useQuery(trpc.console.task.queryOptions({ id }, { refetchInterval: useLivePoll(5_000) }));
  // While the release dialog is open the page keeps what it showed: the task deleted meanwhile (a refetch answering
  // "task not found") must not take the dialog and its answer away.
  const [releasing, setReleasing] = useState(false);
  const q = releasing && live.data ? { ...live, isError: false } : live;
  // SPEC §13: the address names the task's workspace, whatever link it was opened from.
  useNameWorkspace(live.data?.task.workspace_id);
  return (
    <QueryState query={q} minHeight="20rem">
      {({ task, operation, can_release, revisions, events }) => (
        <>
          <PageHeader title={`${task.identifier} · ${task.title}`}>
            <TaskBadges t={task} />
          </PageHeader>
          <section className="panel" aria-labelledby="identity-title">
            <h2 id="identity-title">Identity</h2>
            <dl className="facts">
              <dt>External id</dt>
              <dd>
                <ExternalId value={task.external_id} lookalikes={task.lookalikes} />
                {task.external_id && (
                  <>
                    {' '}
                    <ConsoleLink href={historyHref(task.external_id)}>History of this id</ConsoleLink>
                  </>
                )}
              </dd>
              <dt>Settlement</dt>
              <dd>
                {task.settlement === 'settled' && (
                  <>
                    Settled <Time iso={task.external_id_settled_at} />
                  </>
                )}
                {task.settlement === 'unsettled' && 'Unsettled: its create has not finished (it may still be running)'}
                {task.settlement === 'none' && 'Holds no external id'}
              </dd>
              <dt>Creation</dt>
              <dd>
                {operation ? (
                  <>
                    <OperationState state={operation.state} />{' '}
                    <ConsoleLink href={`/operations/${operation.id}`} className="ident">
                      operation {operation.id.slice(0, 8)}
                    </ConsoleLink>{' '}
                    <StepProgress operation={operation} />
                    <br />
                    <span className="small">
                      begun by <strong>{operation.actor.label}</strong> <RequestId id={operation.request_id} />
                    </span>
                  </>
                ) : (
                  <span className="muted">no creation operation recorded</span>
                )}
              </dd>
              <dt>Step</dt>
              <dd>{task.step_name ?? '—'}</dd>
              <dt>Created</dt>
              <dd>
                <Time iso={task.created_at} />
              </dd>
              <dt>Archived</dt>
              <dd>{task.archived_at ? <Time iso={task.archived_at} /> : 'no'}</dd>
            </dl>
            <ReleaseAction
              onOpenChange={setReleasing}
              target={
                task.external_id && can_release
                  ? {
                      workspaceId: task.workspace_id,
                      externalId: task.external_id,
                      holder: {
                        id: task.id,
                        identifier: task.identifier,
                        title: task.title,
                        settlement: task.settlement,
                        external_id_settled_at: task.external_id_settled_at,
                        creation_state: task.creation_state,
                        operation_state: operation?.state ?? null,
                      },
                    }
                  : null
              }
            />
            {task.external_id && !can_release && (
              <p className="muted small">Releasing an identity needs the operator or admin role.</p>
            )}
          </section>

          <div className="grid-2">
            <section className="panel" aria-labelledby="revisions-title">
              <h2 id="revisions-title">Revisions</h2>
              {revisions.length === 0 ? (
                <p className="muted">No revisions.</p>
              ) : (
                <ol className="revisions">
                  {revisions.map((r) => (
                    <li key={r.revision}>
                      <details>
                        <summary>
                          <strong>rev {r.revision}</strong> {r.change} <Time iso={r.created_at} ms />
                          {r.actor && <span className="muted small"> by {r.actor.label}</span>}
                        </summary>
                        <pre className="json">{r.snapshot}</pre>
                      </details>
                    </li>
                  ))}
                </ol>
              )}
            </section>
            <section className="panel" aria-labelledby="task-events-title">
              <h2 id="task-events-title">Events</h2>
              {events.length === 0 ? (
                <p className="muted">No events yet (an unsettled create emits none).</p>
              ) : (
                <EventsList events={events} linkTasks={false} />
              )}
            </section>
          </div>
        </>
      )}
    </QueryState>
  );
}
