'use client';
// The release dialog, exactly per SPEC §13 (and §7 for what release does): it shows the holder, its settlement
// and operation state and what release will do; warns strongly when the holder is unsettled; enables the button
// only when the operator has typed the identity exactly; generates ONE Idempotency-Key per dialog session and
// reuses it on every retry (so a retry after a lost answer can never release twice); and reports each result in
// plain words. Built on Radix Dialog (focus trap, Escape, focus returned to the trigger).
// The id is shown by <ExternalId> (isolated, invisible characters spelled ⟦U+XXXX⟧) and type-to-confirm accepts that
// visible form, or the escapes typed as `<U+XXXX>` or `\uXXXX` (a hint says how the input was read); a second click
// while the call is in flight is ignored (one call, one message); the answer moves focus to the control that comes
// next (Close, or Retry); an optional reason goes into the history.
// SPEC §13: the dialog follows the holder live while it is open — a holder released elsewhere, settled meanwhile, or
// replaced by another task is shown as such (and a different task is never released from a dialog opened for another).
import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { confirmsId } from '../lib/visible-id';
import { useTRPC } from '../trpc/client';
import { domainCodeOf, isNetworkError, messageOf } from '../trpc/errors';
import { EscapeHint, ExternalId } from './external-id';
import { useConsoleSession } from './session';
import { Time } from './ui';

export interface ReleaseHolder {
  /** The task the dialog is opened for. */
  id: string;
  identifier: string;
  title: string;
  settlement: string;
  external_id_settled_at: string | null;
  creation_state: string;
  operation_state: string | null;
}

type Outcome =
  | { kind: 'released'; replayed: boolean }
  | { kind: 'nothing_holds_it' }
  | { kind: 'creation_completing' }
  | { kind: 'creation_aborting' }
  | { kind: 'key_conflict' }
  | { kind: 'network' }
  | { kind: 'error'; message: string };

/** `crypto.randomUUID` needs a secure context; plain-http hosts other than localhost get the same v4 shape by hand. */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function whatReleaseDoes(h: ReleaseHolder, value: string): ReactNode[] {
  const externalId = <ExternalId value={value} copy={false} />;
  if (h.operation_state === 'aborting') {
    return [
      <>
        The create that holds it failed and is being undone right now, so the server will refuse: nothing changes. Once
        it is undone, nothing holds {externalId} any more.
      </>,
    ];
  }
  if (h.creation_state === 'completing') {
    return [
      `The create that holds it is completing right now, so the server will refuse: nothing changes. Try again in a moment.`,
    ];
  }
  if (h.creation_state === 'preparing') {
    return [
      <>
        Frees {externalId} from {h.identifier} now, while its create is still preparing.
      </>,
      `That create will still finish, but as “created, identity lost”: ${h.identifier} is kept without an external id.`,
      'No event is written now.',
      `The next create with this external id makes a NEW task.`,
    ];
  }
  return [
    `Clears the external id from ${h.identifier}. The task itself is kept, with its history.`,
    'Writes a new revision and one task.updated event.',
    <>The next create with {externalId} makes a NEW task — there is no tombstone.</>,
  ];
}

function OutcomeMessage({
  outcome,
  holder,
  externalId: value,
}: {
  outcome: Outcome;
  holder: ReleaseHolder;
  externalId: string;
}) {
  const externalId = <ExternalId value={value} copy={false} />;
  switch (outcome.kind) {
    case 'released':
      return (
        <p>
          <strong>Released.</strong> {externalId} no longer belongs to {holder.identifier}; the task was kept.
          {outcome.replayed &&
            ' (An earlier attempt of this dialog had already released it — its answer was lost; nothing was released twice.)'}
        </p>
      );
    case 'nothing_holds_it':
      return (
        <p>
          <strong>Nothing holds it.</strong> No task in this workspace holds {externalId} any more (it was already
          released or the task was deleted). Nothing changed.
        </p>
      );
    case 'creation_completing':
      return (
        <p>
          <strong>Creation completing — try again.</strong> The create that holds it is finishing right now, so nothing
          changed. Retry in a moment; the same key is reused.
        </p>
      );
    case 'creation_aborting':
      return (
        <p>
          <strong>Creation being undone — try again.</strong> The create that holds it failed and is being undone right
          now, so nothing changed. Retry in a moment (the same key is reused): once it is undone, nothing holds{' '}
          {externalId} any more.
        </p>
      );
    case 'key_conflict':
      return (
        <p>
          <strong>Key conflict.</strong> This dialog’s Idempotency-Key was already used for a different request, so the
          server refused and nothing changed. Close the dialog and open it again to get a fresh key.
        </p>
      );
    case 'network':
      return (
        <p>
          <strong>No answer from the server.</strong> The release may or may not have happened. Retry: the same key is
          sent again, so it cannot release twice.
        </p>
      );
    case 'error':
      return (
        <p>
          <strong>Refused.</strong> {outcome.message}
        </p>
      );
  }
}

/** Each refusal in plain words: SPEC §7's two conflicts, and "not found" (nothing holds it, or the key's stored 404). */
function toOutcome(err: unknown): Outcome {
  const code = domainCodeOf(err);
  if (code === 'creation_completing') return { kind: 'creation_completing' };
  if (code === 'creation_aborting') return { kind: 'creation_aborting' };
  if (code === 'idempotency_key_conflict') return { kind: 'key_conflict' };
  if (code === 'task_not_found') return { kind: 'nothing_holds_it' };
  if (isNetworkError(err)) return { kind: 'network' };
  return { kind: 'error', message: messageOf(err) };
}

/** While the dialog is open, the holder is re-read about once a second (the pulse and events refresh it sooner). */
const FOLLOW_MS = 1_000;

type HolderNow =
  | { kind: 'same'; holder: ReleaseHolder }
  | { kind: 'gone'; release: { at: string; actor: { label: string } } | null }
  | { kind: 'other'; identifier: string };

/** What the live read says about the holder the dialog was opened for. */
function compare(
  opened: ReleaseHolder,
  found: {
    task: (Omit<ReleaseHolder, 'operation_state'> & { operation_state: string | null }) | null;
    last_release: { at: string; actor: { label: string } } | null;
  },
): HolderNow {
  if (!found.task) return { kind: 'gone', release: found.last_release };
  if (found.task.id !== opened.id) return { kind: 'other', identifier: found.task.identifier };
  return { kind: 'same', holder: { ...opened, ...found.task } };
}

export function ReleaseDialog({
  workspaceId,
  externalId,
  holder,
  onOpenChange: notify,
  triggerLabel = 'Release identity…',
}: {
  workspaceId: string;
  externalId: string;
  holder: ReleaseHolder;
  /**
   * Lets the page keep this dialog mounted while open, though a live update clears the identity: the operator must
   * still see the answer to the release they started.
   */
  onOpenChange?: (open: boolean) => void;
  /** The trigger's text; where several holders are listed it names the holder (`Release OPS-3’s id…`). */
  triggerLabel?: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [key, setKey] = useState('');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // A ref, not the mutation's state: a double-click fires twice before React re-renders the disabled button.
  const inFlight = useRef(false);
  const next = useRef<HTMLButtonElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const release = useMutation(trpc.task.releaseExternalId.mutationOptions());

  const final = outcome !== null && ['released', 'nothing_holds_it', 'key_conflict'].includes(outcome.kind);
  // Not while this dialog's own release is on its way: its effect is reported by its answer, not as a change.
  const following = open && !final && !release.isPending;
  const follow = useQuery({
    ...trpc.console.findByExternalId.queryOptions({ workspace_id: workspaceId, external_id: externalId }),
    enabled: following,
    refetchInterval: FOLLOW_MS,
    retry: false,
  });
  // Only a live read that answered for this id counts (an error keeps what the dialog was opened with).
  const now =
    following && follow.data && follow.data.normalized === externalId
      ? compare(holder, follow.data)
      : ({ kind: 'same', holder } as HolderNow);
  const shown = now.kind === 'same' ? now.holder : holder;
  const unsettled = shown.settlement === 'unsettled';
  const matches = confirmsId(typed, externalId);
  const retry = outcome !== null && !final;

  const onOpenChange = (next: boolean) => {
    if (next) {
      // One key per dialog session: made when it opens, kept for every retry, dropped when it closes.
      setKey(newIdempotencyKey());
      setTyped('');
      setReason('');
      setOutcome(null);
      release.reset();
    } else if (outcome?.kind === 'released') {
      void queryClient.invalidateQueries();
    }
    setOpen(next);
    notify?.(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!matches || inFlight.current || final || now.kind === 'other') return;
    inFlight.current = true;
    try {
      // SPEC §10: only a release answers with data; "nothing holds it" arrives as a NOT_FOUND error (toOutcome).
      // The real value is sent, whichever form was typed; a blank reason is no reason.
      const r = await release.mutateAsync({
        workspace_id: workspaceId,
        external_id: externalId,
        idempotency_key: key,
        ...(reason.trim() ? { reason } : {}),
      });
      setOutcome({ kind: 'released', replayed: r.replayed });
    } catch (err) {
      setOutcome(toOutcome(err));
    } finally {
      inFlight.current = false;
    }
  };

  // After an answer, focus goes to what comes next — Close after a final answer, Retry otherwise — not the container.
  useEffect(() => {
    if (!outcome) return;
    (final ? close : next).current?.focus();
  }, [outcome, final]);

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger asChild>
        <button type="button" className="btn btn--danger">
          {triggerLabel}
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="dialog"
          onOpenAutoFocus={(e) => {
            // Straight to the confirmation field: reading the facts above it is one Shift+Tab away.
            e.preventDefault();
            input.current?.focus();
          }}
        >
          <Dialog.Title>Release external identity</Dialog.Title>
          <Dialog.Description>
            Unbind <ExternalId value={externalId} copy={false} /> from {holder.identifier}. Release is an operator
            repair: it never deletes the task.
          </Dialog.Description>

          <dl className="facts">
            <dt>Holder</dt>
            <dd>
              {holder.identifier} — {holder.title}
            </dd>
            <dt>Settlement</dt>
            <dd>
              {unsettled ? (
                'Unsettled — its create has not finished'
              ) : (
                <>
                  Settled <Time iso={shown.external_id_settled_at} />
                </>
              )}
            </dd>
            <dt>Creation operation</dt>
            <dd>{shown.operation_state ?? 'none recorded'}</dd>
          </dl>

          {!outcome && now.kind === 'gone' && (
            <div className="notice notice--warn" role="alert" data-testid="holder-changed">
              <p>
                <strong>
                  Released elsewhere: nothing holds {<ExternalId value={externalId} copy={false} />} any more.
                </strong>{' '}
                {now.release ? (
                  <>
                    It was released <Time iso={now.release.at} /> by {now.release.actor.label}.
                  </>
                ) : (
                  `${holder.identifier} no longer holds it.`
                )}{' '}
                Releasing now changes nothing: the server will answer that nothing holds it.
              </p>
            </div>
          )}
          {!outcome && now.kind === 'other' && (
            <div className="notice notice--bad" role="alert" data-testid="holder-changed">
              <p>
                <strong>Now held by {now.identifier}, a different task.</strong> {holder.identifier} no longer holds it.
                This dialog will not release it from {now.identifier}: close it, and release from {now.identifier}’s
                page if that is what you mean.
              </p>
            </div>
          )}
          {!outcome && now.kind === 'same' && holder.settlement === 'unsettled' && shown.settlement === 'settled' && (
            <div className="notice" data-testid="holder-changed">
              <p>
                <strong>Its create has finished since this dialog opened:</strong> {holder.identifier} is settled now.
              </p>
            </div>
          )}

          {unsettled && (
            <div className="notice notice--bad" role="note" aria-label="Warning">
              <p>
                <strong>Warning: a create may still be running for this identity.</strong> Unsettled does not mean
                stuck, and it never means safe to release and retry. If you release now and the integration sends it
                again, a second task will be created for the same external thing.
              </p>
            </div>
          )}

          <h3>What release will do</h3>
          <ul className="plain-list">
            {whatReleaseDoes(shown, externalId).map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>

          <form onSubmit={submit} className="form">
            <label className="field">
              <span>Type the external id exactly to confirm</span>
              <input
                ref={input}
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
                autoComplete="off"
                spellCheck={false}
                className="mono"
                aria-describedby="release-match"
                disabled={final}
              />
            </label>
            <EscapeHint text={typed} />
            <p id="release-match" className="muted small">
              {matches
                ? 'Matches.'
                : 'Must match exactly, including case and spaces inside; hidden characters may be typed as shown, ⟦U+XXXX⟧, or as <U+XXXX> or \\uXXXX.'}{' '}
              Idempotency-Key <code data-testid="idempotency-key">{key}</code>
              {retry && ' (reused for this retry)'}
            </p>
            <label className="field">
              <span>Reason (optional, kept in the identity’s history)</span>
              <input
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                maxLength={500}
                autoComplete="off"
                disabled={final}
                name="reason"
              />
            </label>
            <div className="dialog__result" aria-live="polite" role="status">
              {outcome && <OutcomeMessage outcome={outcome} holder={holder} externalId={externalId} />}
            </div>
            <div className="dialog__actions">
              <Dialog.Close asChild>
                <button type="button" className="btn" ref={close}>
                  {final ? 'Close' : 'Cancel'}
                </button>
              </Dialog.Close>
              {!final && (
                <button
                  type="submit"
                  className="btn btn--danger"
                  ref={next}
                  disabled={!matches || release.isPending || now.kind === 'other'}
                >
                  {release.isPending ? 'Releasing…' : retry ? 'Retry release' : 'Release'}
                </button>
              )}
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** Whether the signed-in person may release in the selected workspace (the server checks again, SPEC §11). */
export function useCanRelease(): boolean {
  const role = useConsoleSession().workspace?.role;
  return role === 'admin' || role === 'operator';
}

type ReleaseTarget = Omit<Parameters<typeof ReleaseDialog>[0], 'onOpenChange'>;

/**
 * A release button where the operator already is (a Find result, an Unsettled row), so releasing never means leaving
 * the page that showed the problem. The release itself changes what the page lists, so the open dialog keeps the
 * identity and holder it was opened for instead of vanishing with the row.
 */
export function ReleaseAction({
  target,
  onOpenChange,
}: {
  target: ReleaseTarget | null;
  onOpenChange?: (open: boolean) => void;
}) {
  const [pinned, setPinned] = useState<ReleaseTarget | null>(null);
  const shown = pinned ?? target;
  if (!shown) return null;
  return (
    <ReleaseDialog
      {...shown}
      onOpenChange={(open) => {
        setPinned(open ? shown : null);
        onOpenChange?.(open);
      }}
    />
  );
}
