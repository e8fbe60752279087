'use client';
// Exact find-by-external-id (SPEC §7 lookup, §2.1 normalization). Shows the value actually searched for (after
// trimming) and says plainly when nothing holds it. No fuzzy matching: `EXT-1` and `ext-1` are different ids.
// Issue 15: what the console shows (`rtl:⟨U+202E⟩evil`) finds the real id; a released id says when, by whom and who
// holds it now; the holder can be released right here (the same guarded dialog); the id's history is one link away.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';
import { ExternalId } from './external-id';
import { ReleaseAction, useCanRelease } from './release-dialog';
import { TaskBadges, Time } from './ui';

/** `/identity?id=…` — an identity's history page. */
export function historyHref(externalId: string): string {
  return `/identity?${new URLSearchParams({ id: externalId }).toString()}`;
}

export function FindExternalId({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const canRelease = useCanRelease();
  const [draft, setDraft] = useState('');
  const [searched, setSearched] = useState<string | null>(null);
  const q = useQuery({
    ...trpc.console.findByExternalId.queryOptions({ workspace_id: workspaceId, external_id: searched ?? '' }),
    enabled: searched !== null,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSearched(draft);
    if (searched === draft) void q.refetch();
  };
  const d = q.data;
  const release = d?.last_release ?? null;

  return (
    <section className="panel find" aria-labelledby="find-title">
      <h2 id="find-title">Find by external id</h2>
      <form className="find__form" onSubmit={submit} role="search" aria-label="Find by external id">
        <label className="field find__field">
          <span>External id (exact)</span>
          <input className="mono" value={draft} onChange={(e) => setDraft(e.target.value)} spellCheck={false} autoComplete="off" />
        </label>
        <button type="submit" className="btn btn--primary">
          Find
        </button>
      </form>
      <p className="small muted">Hidden characters can be typed as the console shows them, for example ⟨U+202E⟩.</p>
      <div className="find__result" aria-live="polite" role="status">
        {searched !== null && q.isFetching && !d && <p>Searching…</p>}
        {q.isError && <p className="error-text">Could not search: {messageOf(q.error)}</p>}
        {d && d.error && <p className="error-text">{d.error}</p>}
        {d && d.normalized !== null && (
          <>
            <p className="small">
              Searched for <ExternalId value={d.normalized} copy={false} />
              {d.visible_form ? ' (read from the form the console shows it in)' : d.normalized !== searched && ' (after trimming surrounding white space)'}
              {' · '}
              <Link href={historyHref(d.normalized)}>History of this id</Link>
            </p>
            {d.task ? (
              <div className="find__hit">
                <p>
                  Held by <Link href={`/tasks/${d.task.id}`}>{d.task.identifier}</Link> — {d.task.title} <TaskBadges t={d.task} />
                </p>
                <p className="small">
                  <ExternalId value={d.task.external_id} lookalikes={d.task.lookalikes} />
                </p>
                {release && (
                  <p className="small">
                    Released <Time iso={release.at} /> by {release.actor}
                    {release.holder_identifier && ` from ${release.holder_identifier}`}; now held by {d.task.identifier}.
                  </p>
                )}
              </div>
            ) : (
              <>
                <p>
                  <strong>Nothing holds this external id</strong> in this workspace. A create with it would make a new task.
                </p>
                {release ? (
                  <p className="small">
                    Released <Time iso={release.at} /> by {release.actor}
                    {release.holder_identifier && ` from ${release.holder_identifier}`}
                    {release.reason && <> — “{release.reason}”</>}; free since <Time iso={d.free_since ?? release.at} />.
                  </p>
                ) : (
                  d.free_since && (
                    <p className="small">
                      Free since <Time iso={d.free_since} /> (see its history for how the last hold ended).
                    </p>
                  )
                )}
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
                ? { workspaceId, externalId: d.task.external_id, holder: d.task, triggerLabel: `Release ${d.task.identifier}’s id…` }
                : null
            }
          />
        </div>
      )}
    </section>
  );
}
