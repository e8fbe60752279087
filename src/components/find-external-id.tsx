'use client';
// Exact find-by-external-id (SPEC §7 lookup, §2.1 normalization). Shows the value actually searched for (after
// trimming) and the workspace it looked in, and says plainly when nothing holds it there — and where, among the
// workspaces this person may see, something does. No fuzzy matching: `EXT-1` and `ext-1` are different ids.
// SPEC §13: the id found is in the URL (`/tasks?ws=…&find=…`), so reload, back and a shared link keep it; escapes can be
// typed back (what the console shows, `⟦U+202E⟧`, or `<U+202E>`, `\u202E`), and a hint says how the input was read;
// a released id says when, by whom and who holds it now; the holder can be released right here (the same guarded
// dialog); the id's history is one link away.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';
import { ConsoleLink } from './console-link';
import { EscapeHint, ExternalId } from './external-id';
import { useUrlState } from './list-controls';
import { ReleaseAction, useCanRelease } from './release-dialog';
import { TaskBadges, Time } from './ui';
import { withWorkspace } from './workspace-url';

/** `/identity?id=…` — an identity's history page (the caller's links add the workspace). */
export function historyHref(externalId: string): string {
  return `/identity?${new URLSearchParams({ id: externalId }).toString()}`;
}

/** Where else the id is held: links into the other workspaces this person may see. */
export function HeldElsewhere({
  elsewhere,
}: {
  elsewhere: ReadonlyArray<{
    workspace: { id: string; name: string; prefix: string };
    task_id: string;
    identifier: string;
  }>;
}) {
  if (elsewhere.length === 0) return null;
  return (
    <p className="small" data-testid="held-elsewhere">
      Held in {elsewhere.length === 1 ? 'another workspace' : 'other workspaces'} you can see:{' '}
      {elsewhere.map((e, i) => (
        <span key={e.task_id}>
          {i > 0 && ', '}
          <ConsoleLink href={withWorkspace(`/tasks/${e.task_id}`, e.workspace.id)} className="ident">
            {e.identifier}
          </ConsoleLink>{' '}
          in {e.workspace.prefix} · {e.workspace.name}
        </span>
      ))}
      .
    </p>
  );
}

const FIND = { find: '' };

export function FindExternalId({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const canRelease = useCanRelease();
  const [url, write] = useUrlState(FIND);
  const searched = url.find === '' ? null : url.find;
  const [draft, setDraft] = useState(url.find);
  useEffect(() => setDraft(url.find), [url.find]);
  const q = useQuery({
    ...trpc.console.findByExternalId.queryOptions({ workspace_id: workspaceId, external_id: searched ?? '' }),
    enabled: searched !== null,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (draft === url.find) void q.refetch();
    // A new entry in the history: back returns to the previous search.
    else write({ find: draft });
  };
  const d = searched !== null ? q.data : undefined;
  const release = d?.last_release ?? null;

  return (
    <section className="panel find" aria-labelledby="find-title">
      <h2 id="find-title">Find by external id</h2>
      <form className="find__form" onSubmit={submit} role="search" aria-label="Find by external id">
        <label className="field find__field">
          <span>External id (exact)</span>
          <input
            className="mono"
            name="find"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-describedby="find-hint"
          />
        </label>
        <button type="submit" className="btn btn--primary">
          Find
        </button>
      </form>
      <EscapeHint text={draft} triedFirst />
      <p className="small muted" id="find-hint">
        Hidden characters can be typed as the console shows them, ⟦U+202E⟧, or as &lt;U+202E&gt; or \u202E.
      </p>
      <div className="find__result" aria-live="polite" role="status">
        {searched !== null && q.isFetching && !d && <p>Searching…</p>}
        {q.isError && <p className="error-text">Could not search: {messageOf(q.error)}</p>}
        {d && d.error && <p className="error-text">{d.error}</p>}
        {d && d.normalized !== null && (
          <>
            <p className="small">
              Searched for <ExternalId value={d.normalized} copy={false} />
              {d.visible_form
                ? ' (read from its escapes)'
                : d.normalized !== searched && ' (after trimming surrounding white space)'}{' '}
              in <strong>{d.workspace.prefix}</strong> · {d.workspace.name}
              {' · '}
              <ConsoleLink href={historyHref(d.normalized)}>History of this id</ConsoleLink>
            </p>
            {d.task ? (
              <div className="find__hit">
                <p>
                  Held by{' '}
                  <ConsoleLink href={`/tasks/${d.task.id}`} className="ident">
                    {d.task.identifier}
                  </ConsoleLink>{' '}
                  — {d.task.title} <TaskBadges t={d.task} />
                </p>
                <p className="small">
                  <ExternalId value={d.task.external_id} lookalikes={d.task.lookalikes} />
                </p>
                {release && (
                  <p className="small">
                    Released <Time iso={release.at} /> by {release.actor.label}
                    {release.holder_identifier && ` from ${release.holder_identifier}`}; now held by {d.task.identifier}
                    .
                  </p>
                )}
              </div>
            ) : (
              <>
                <p>
                  <strong>Nothing holds this external id</strong> in {d.workspace.prefix} · {d.workspace.name}. A create
                  with it there would make a new task.
                </p>
                {release ? (
                  <p className="small">
                    Released <Time iso={release.at} /> by {release.actor.label}
                    {release.holder_identifier && ` from ${release.holder_identifier}`}
                    {release.reason && <> — “{release.reason}”</>}; free since <Time iso={d.free_since ?? release.at} />
                    .
                  </p>
                ) : (
                  d.free_since && (
                    <p className="small">
                      Free since <Time iso={d.free_since} /> (see its history for how the last hold ended).
                    </p>
                  )
                )}
                <HeldElsewhere elsewhere={d.elsewhere} />
              </>
            )}
          </>
        )}
      </div>
      {canRelease && (
        <div className="panel__actions">
          <ReleaseAction
            target={
              d?.task?.external_id
                ? {
                    workspaceId,
                    externalId: d.task.external_id,
                    holder: d.task,
                    triggerLabel: `Release ${d.task.identifier}’s id…`,
                  }
                : null
            }
          />
        </div>
      )}
    </section>
  );
}
