'use client';
// An operation's history (SPEC §6, §13): who began it and in which request, each attempt that failed (its error and
// request id), whose lease expired when, which recovery took over at which generation (and the request id that
// takeover made for itself), what recovery decided about the steps a dead owner left, and when Abort began with
// which error — between its start and its end, each with its time to the millisecond and the time since the entry
// before. Step attempts and errors are on the step timeline below it.
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/api/root';
import { Badge, CopyButton, Since, Time } from './ui';

type OperationDetail = inferRouterOutputs<AppRouter>['console']['operation'];
type Entry = OperationDetail['history'][number];

const DECISION: Record<string, string> = {
  succeeded: 'its effect was found: succeeded',
  rerun: 'its effect was not found: it runs again',
  failed: 'its effect was not found after its last attempt: failed',
};

function Holder({ owner }: { owner: string | null }) {
  return owner ? <code>{owner}</code> : <span className="muted">no process</span>;
}

export function RequestId({ id }: { id: string | null }) {
  if (!id) return null;
  return (
    <span className="request-id">
      request{' '}
      <code data-testid="request-id" title={id}>
        {id}
      </code>
      <CopyButton text={id} label={`Copy request id ${id}`} />
    </span>
  );
}

function describe(e: Entry) {
  switch (e.kind) {
    case 'takeover':
      return (
        <>
          <Badge tone="warn">recovery takeover</Badge> The lease of <Holder owner={e.previous_owner} /> expired
          {e.lease_expired_at && (
            <>
              {' '}
              (<Time iso={e.lease_expired_at} ms />)
            </>
          )}
          ; <Holder owner={e.lease_owner} /> took over at generation {e.generation}
          {e.lease_until && (
            <>
              , lease until <Time iso={e.lease_until} />
            </>
          )}
          . <RequestId id={e.request_id} />
        </>
      );
    case 'step_reconciled':
      return (
        <>
          <Badge tone="info">step checked</Badge> Recovery checked step {e.step_index + 1} ({e.step_kind}) after{' '}
          {e.attempts} attempt
          {e.attempts === 1 ? '' : 's'}: {DECISION[e.decision]}. <RequestId id={e.request_id} />
        </>
      );
    case 'aborting':
      return (
        <>
          <Badge tone="bad">{e.resumed ? 'abort resumed' : 'abort began'}</Badge> by <Holder owner={e.lease_owner} />{' '}
          (generation {e.generation}): <span className="error-text">{e.error}</span> <RequestId id={e.request_id} />
        </>
      );
    case 'attempt_failed':
      return (
        <>
          <Badge tone="bad">attempt failed</Badge>{' '}
          {e.step_index !== null ? `during step ${e.step_index + 1} (${e.step_kind})` : 'outside a step'}, in{' '}
          <Holder owner={e.lease_owner} /> (generation {e.generation}): <span className="error-text">{e.error}</span>.
          The operation stayed open for recovery. <RequestId id={e.request_id} />
        </>
      );
  }
}

export function OperationHistory({ operation: o, history }: Pick<OperationDetail, 'operation' | 'history'>) {
  // The first holder: the one whose lease the first takeover ended, or the holder now if none happened.
  const firstTakeover = history.find((e) => e.kind === 'takeover');
  const creator = firstTakeover?.kind === 'takeover' ? firstTakeover.previous_owner : o.lease_owner;
  const recovered = history.some((e) => e.kind === 'takeover' || e.kind === 'attempt_failed' || e.kind === 'aborting');
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ol className="history" aria-label="Operation history">
        <li>
          <Time iso={o.created_at} ms /> — <Badge tone="muted">begun</Badge> by <strong>{o.actor.label}</strong>
          {creator && (
            <>
              {' '}
              in <Holder owner={creator} />
            </>
          )}{' '}
          (generation 0). <RequestId id={o.request_id} />
        </li>
        {history.map((e, i) => (
          <li key={i}>
            <Time iso={e.at} ms /> <Since from={i === 0 ? o.created_at : history[i - 1]!.at} to={e.at} /> —{' '}
            {describe(e)}
          </li>
        ))}
        {o.finished_at ? (
          <li>
            <Time iso={o.finished_at} ms /> <Since from={history.at(-1)?.at ?? o.created_at} to={o.finished_at} /> —{' '}
            <Badge tone={o.state === 'completed' ? 'ok' : 'bad'}>{o.state}</Badge>
            {o.outcome && <> ({o.outcome})</>}
          </li>
        ) : (
          <li>
            Now — <Badge tone="warn">{o.state}</Badge> held by <Holder owner={o.lease_owner} /> at generation{' '}
            {o.generation}
            {o.lease_expires_at && (
              <>
                , lease expires <Time iso={o.lease_expires_at} everyMs={1_000} />
              </>
            )}
          </li>
        )}
      </ol>
      {!recovered && <p className="muted small">No failed attempts, recovery takeovers or aborts.</p>}
    </section>
  );
}
