'use client';
// Exact find-by-external-id (SPEC §7 lookup, §2.1 normalization). Shows the value actually searched for (after
// trimming) and says plainly when nothing holds it. No fuzzy matching: `EXT-1` and `ext-1` are different ids.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';
import { ExternalId, TaskBadges } from './ui';

export function FindExternalId({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
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
      <div className="find__result" aria-live="polite" role="status">
        {searched !== null && q.isFetching && !q.data && <p>Searching…</p>}
        {q.isError && <p className="error-text">Could not search: {messageOf(q.error)}</p>}
        {q.data && q.data.error && <p className="error-text">{q.data.error}</p>}
        {q.data && q.data.normalized !== null && (
          <>
            <p className="small">
              Searched for <code className="extid__value">{q.data.normalized}</code>
              {q.data.normalized !== searched && ' (after trimming surrounding white space)'}
            </p>
            {q.data.task ? (
              <div className="find__hit">
                <p>
                  Held by <Link href={`/tasks/${q.data.task.id}`}>{q.data.task.identifier}</Link> — {q.data.task.title}{' '}
                  <TaskBadges t={q.data.task} />
                </p>
                <p className="small">
                  <ExternalId value={q.data.task.external_id} />
                </p>
              </div>
            ) : (
              <p>
                <strong>Nothing holds this external id</strong> in this workspace. A create with it would make a new task.
              </p>
            )}
          </>
        )}
      </div>
    </section>
  );
}
