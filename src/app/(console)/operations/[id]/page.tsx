'use client';
// One creation operation (SPEC §4, §5, §13): its state, who began it and in which request, lease and fence, its
// history (failed attempts, takeovers, aborts — each with its request id and the time since the entry before), then
// the step timeline — each planned step's state, attempts, duration, evidence, compensation and error.
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'next/navigation';
import { ConsoleLink, useNameWorkspace } from '../../../../components/console-link';
import { useLivePoll } from '../../../../components/live';
import { STEP_TONE } from '../../../../components/operation-parts';
import { OperationHistory, RequestId } from '../../../../components/operation-history';
import {
  Badge,
  ExternalId,
  formatDuration,
  OperationState,
  PageHeader,
  QueryState,
  Since,
  Time,
} from '../../../../components/ui';
import { useTRPC } from '../../../../trpc/client';

function duration(start: string | null, end: string | null): string {
  if (!start || !end) return start ? 'running' : 'not started';
  return formatDuration(Date.parse(end) - Date.parse(start));
}

export default function OperationPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const q = useQuery(trpc.console.operation.queryOptions({ id }, { refetchInterval: useLivePoll(3_000) }));
  // SPEC §13: the address names the operation's workspace, whatever link it was opened from.
  useNameWorkspace(q.data?.operation.workspace_id);
  return (
    <QueryState query={q} minHeight="20rem">
      {({ operation: o, task, steps, history }) => (
        <>
          <PageHeader title={`Creation operation ${o.id.slice(0, 8)}`}>
            <OperationState state={o.state} />
          </PageHeader>
          <section className="panel" aria-labelledby="op-facts">
            <h2 id="op-facts">Operation</h2>
            <dl className="facts">
              <dt>Id</dt>
              <dd>
                <code>{o.id}</code>
              </dd>
              <dt>Task</dt>
              <dd>
                {task ? (
                  <ConsoleLink href={`/tasks/${task.id}`} className="ident">
                    {task.identifier}
                  </ConsoleLink>
                ) : (
                  <span className="muted">removed (the create was aborted or the task deleted)</span>
                )}
              </dd>
              <dt>Begun by</dt>
              <dd data-testid="begun-by">{o.actor.label}</dd>
              <dt>Request id</dt>
              <dd>
                {o.request_id ? (
                  <RequestId id={o.request_id} />
                ) : (
                  <span className="muted">not recorded (begun in process, or before request ids were kept)</span>
                )}
              </dd>
              <dt>External id</dt>
              <dd>
                <ExternalId value={o.external_id} />
                {o.identity_released && (
                  <span className="muted"> — released while preparing (completes as identity lost)</span>
                )}
              </dd>
              <dt>Started</dt>
              <dd>
                <Time iso={o.created_at} ms />
              </dd>
              <dt>Finished</dt>
              <dd>
                {o.finished_at ? (
                  <>
                    <Time iso={o.finished_at} ms />{' '}
                    <span className="muted">
                      (took {formatDuration(Date.parse(o.finished_at) - Date.parse(o.created_at))})
                    </span>
                  </>
                ) : (
                  'not yet'
                )}
              </dd>
              <dt>Lease</dt>
              <dd>
                {o.lease_owner ? (
                  <>
                    <code>{o.lease_owner}</code>, expires <Time iso={o.lease_expires_at} everyMs={1_000} />
                  </>
                ) : (
                  'none held'
                )}{' '}
                <span className="muted">(generation {o.generation})</span>
              </dd>
              <dt>Outcome</dt>
              <dd>{o.outcome ?? '—'}</dd>
              {o.error && (
                <>
                  <dt>Error</dt>
                  <dd className="error-text">{o.error}</dd>
                </>
              )}
            </dl>
          </section>
          <OperationHistory operation={o} history={history} />
          <section className="panel" aria-labelledby="steps-title">
            <h2 id="steps-title">Steps</h2>
            {steps.length === 0 ? (
              <p className="muted">This create planned no steps (nothing beyond the task row itself).</p>
            ) : (
              <ol className="timeline">
                {steps.map((s) => (
                  <li
                    key={s.index}
                    className={`timeline__step timeline__step--${s.state}`}
                    aria-label={`Step ${s.index + 1}: ${s.kind}, ${s.state}`}
                  >
                    <div className="timeline__head">
                      <strong>
                        {s.index + 1}. {s.kind}
                      </strong>{' '}
                      <Badge tone={STEP_TONE[s.state] ?? 'muted'}>{s.state}</Badge>
                      {s.compensation_state && <Badge tone="info">compensation: {s.compensation_state}</Badge>}
                    </div>
                    <p className="small muted">
                      {s.attempts} attempt{s.attempts === 1 ? '' : 's'} · {duration(s.started_at, s.finished_at)}
                      {s.started_at && (
                        <>
                          {' '}
                          · last started <Time iso={s.started_at} ms /> <Since from={o.created_at} to={s.started_at} />{' '}
                          after the operation began
                        </>
                      )}
                    </p>
                    {s.error && <p className="error-text small">Error: {s.error}</p>}
                    {s.compensation_state === 'handed_to_cleanup' && (
                      <p className="small">
                        Compensation failed {s.compensation_attempts ?? 1} time
                        {s.compensation_attempts === 1 ? '' : 's'}
                        {s.compensation_error && <span className="error-text">: {s.compensation_error}</span>}; retried{' '}
                        <Time iso={s.compensation_next_at} />.
                      </p>
                    )}
                    {s.evidence && (
                      <details>
                        <summary>Evidence</summary>
                        <pre className="json">{s.evidence}</pre>
                      </details>
                    )}
                    {s.params && (
                      <details>
                        <summary>Parameters</summary>
                        <pre className="json">{s.params}</pre>
                      </details>
                    )}
                  </li>
                ))}
              </ol>
            )}
          </section>
        </>
      )}
    </QueryState>
  );
}
