'use client';
// Release history (SPEC §7, §13): every release — when, who (a person, or a token by name), which identity, which
// holder, the result, the reason, its request id and Idempotency-Key — and the replays and key conflicts each met.
// Newest first, in pages with a total, filtered by result, who, reason, external-id prefix and time, searched by a
// release's key or request id; all in the URL; the filtered list exports as CSV or JSON. Release operations are kept
// forever as replay evidence.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { ConsoleLink } from '../../../components/console-link';
import {
  ExportLinks,
  ListPager,
  ListTable,
  PAGE_SIZES,
  TimeRangeFields,
  useUrlState,
} from '../../../components/list-controls';
import { useLivePoll } from '../../../components/live';
import { RequestId } from '../../../components/operation-history';
import { WithWorkspace } from '../../../components/session';
import { Badge, ExternalId, PageHeader, Time } from '../../../components/ui';
import { useTRPC } from '../../../trpc/client';

const DEFAULTS = {
  result: '',
  actor: '',
  reason: 'any',
  reason_text: '',
  prefix: '',
  from: '',
  until: '',
  q: '',
  after: '',
  before: '',
  size: '50',
};
const RESULTS = ['', 'released', 'nothing_held_it'] as const;
const REASONS = ['any', 'with', 'without'] as const;

function Releases({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const [s, write] = useUrlState(DEFAULTS);
  const filter = (patch: Partial<typeof DEFAULTS>, how: 'push' | 'replace' = 'push') =>
    write({ ...patch, after: '', before: '' }, how);
  const size = PAGE_SIZES.includes(Number(s.size)) ? Number(s.size) : 50;
  const result = (RESULTS as readonly string[]).includes(s.result) ? (s.result as (typeof RESULTS)[number]) : '';
  const reason = (REASONS as readonly string[]).includes(s.reason) ? (s.reason as (typeof REASONS)[number]) : 'any';

  // Typed filters write to the URL a moment after typing stops.
  const [draft, setDraft] = useState({ prefix: s.prefix, reason_text: s.reason_text });
  useEffect(() => setDraft({ prefix: s.prefix, reason_text: s.reason_text }), [s.prefix, s.reason_text]);
  useEffect(() => {
    if (draft.prefix === s.prefix && draft.reason_text === s.reason_text) return;
    const t = setTimeout(() => filter(draft, 'replace'), 300);
    return () => clearTimeout(t);
  }, [draft]);
  const [search, setSearch] = useState(s.q);
  useEffect(() => setSearch(s.q), [s.q]);

  const listInput = {
    workspace_id: workspaceId,
    result: result || null,
    actor_id: s.actor || null,
    reason,
    reason_text: s.reason_text || null,
    prefix: s.prefix || null,
    from: s.from || null,
    before: s.until || null,
    q: s.q || null,
  };
  const q = useQuery(
    trpc.console.releases.queryOptions(
      { ...listInput, cursor: s.after || s.before || null, direction: s.before ? 'before' : 'after', limit: size },
      { placeholderData: keepPreviousData, refetchInterval: useLivePoll(10_000), retry: false },
    ),
  );
  const filtered = Object.entries(listInput).some(([k, v]) => k !== 'workspace_id' && v !== null && v !== 'any');

  return (
    <section aria-label="Releases list">
      <form
        className="browse-filters"
        role="search"
        aria-label="Find and filter releases"
        onSubmit={(e) => {
          e.preventDefault();
          filter({ q: search.trim(), ...draft });
        }}
      >
        <label className="field browse-filters__prefix">
          <span>Idempotency-Key or request id</span>
          <input
            className="mono"
            name="q"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <button type="submit" className="btn btn--primary">
          Search
        </button>
        <label className="field">
          <span>Result</span>
          <select name="result" value={result} onChange={(e) => filter({ result: e.target.value })}>
            <option value="">any</option>
            <option value="released">released</option>
            <option value="nothing_held_it">nothing held it</option>
          </select>
        </label>
        <label className="field">
          <span>Released by</span>
          <select name="actor" value={s.actor} onChange={(e) => filter({ actor: e.target.value })}>
            <option value="">anyone</option>
            {q.data?.actors.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Reason</span>
          <select name="reason" value={reason} onChange={(e) => filter({ reason: e.target.value })}>
            <option value="any">any</option>
            <option value="with">given</option>
            <option value="without">none given</option>
          </select>
        </label>
        <label className="field">
          <span>Reason contains</span>
          <input
            name="reason_text"
            value={draft.reason_text}
            onChange={(e) => setDraft({ ...draft, reason_text: e.target.value })}
            autoComplete="off"
          />
        </label>
        <label className="field browse-filters__prefix">
          <span>External id starts with</span>
          <input
            className="mono"
            name="prefix"
            value={draft.prefix}
            onChange={(e) => setDraft({ ...draft, prefix: e.target.value })}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <TimeRangeFields verb="Made" from={s.from} until={s.until} onChange={filter} />
        {filtered && (
          <button
            type="button"
            className="btn"
            onClick={() => {
              setSearch('');
              setDraft({ prefix: '', reason_text: '' });
              filter({ result: '', actor: '', reason: 'any', reason_text: '', prefix: '', from: '', until: '', q: '' });
            }}
          >
            Clear filters
          </button>
        )}
      </form>
      <ListTable
        query={q}
        rows={(page) => page.rows}
        testId="releases"
        caption="Release history, newest first"
        columns={['When', 'Who', 'External id', 'Holder', 'Result', 'Reason', 'Request']}
        empty={
          filtered
            ? 'No releases match these filters. Clear them to see every one.'
            : 'No identity has been released in this workspace. Release one from a task’s page when its external thing must be made again.'
        }
        row={(r) => (
          <tr key={r.id}>
            <td data-label="When">
              <Time iso={r.created_at} />
            </td>
            <td data-label="Who">
              <span className="clip" title={r.actor.label}>
                {r.actor.label}
              </span>{' '}
              <span className="muted small nowrap">via {r.source}</span>
            </td>
            <td data-label="External id">
              <ExternalId value={r.external_id} copy={false} />
            </td>
            <td data-label="Holder" className="nowrap">
              {r.holder_task_id ? (
                r.holder_identifier ? (
                  <ConsoleLink href={`/tasks/${r.holder_task_id}`} className="ident">
                    {r.holder_identifier}
                  </ConsoleLink>
                ) : (
                  <span className="muted">deleted task</span>
                )
              ) : (
                <span className="muted">none</span>
              )}
            </td>
            <td data-label="Result">
              {r.result === 'released' ? (
                <Badge tone="ok">released</Badge>
              ) : (
                <Badge tone="muted">nothing held it</Badge>
              )}
              {r.attempts.length > 0 && (
                <details className="attempts">
                  <summary>
                    {r.attempts.filter((a) => a.kind === 'replay').length} replayed,{' '}
                    {r.attempts.filter((a) => a.kind === 'conflict').length} key conflict
                    {r.attempts.filter((a) => a.kind === 'conflict').length === 1 ? '' : 's'}
                  </summary>
                  <ul className="plain-list small">
                    {r.attempts.map((a, i) => (
                      <li key={i}>
                        <Time iso={a.at} />{' '}
                        {a.kind === 'replay' ? (
                          'replayed (same key, same request): the stored result was answered'
                        ) : (
                          <>
                            key conflict (409): the same key was sent for{' '}
                            <ExternalId value={a.external_id} copy={false} />
                          </>
                        )}{' '}
                        by {a.actor.label} via {a.source}. <RequestId id={a.request_id} />
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </td>
            <td data-label="Reason">{r.reason ?? <span className="muted">none given</span>}</td>
            <td data-label="Request">
              <RequestId id={r.request_id} />
              <span className="small muted nowrap block">
                Idempotency-Key{' '}
                <code className="clip" title={r.idempotency_key}>
                  {r.idempotency_key}
                </code>
              </span>
            </td>
          </tr>
        )}
      />
      <ListPager
        page={q.data}
        noun="releases"
        size={size}
        onPage={(c) => write({ after: c.after ?? '', before: c.before ?? '' })}
        onSize={(n) => filter({ size: String(n) })}
      />
      <ExportLinks list="releases" input={listInput} label="these releases (every page)" />
    </section>
  );
}

export default function ReleasesPage() {
  return (
    <>
      <PageHeader title="Releases" />
      <Suspense fallback={<p role="status">Loading…</p>}>
        <WithWorkspace>{(w) => <Releases key={w.id} workspaceId={w.id} />}</WithWorkspace>
      </Suspense>
    </>
  );
}
