'use client';
// Creation operations (SPEC §4.2, §13): every one, newest first, in pages with a total — filtered by state, external-id
// prefix and when they began, searched by operation id or request id (of the request that began one, or of a takeover
// or failed attempt in its history). Every filter and the page are in the URL; the whole filtered list exports as
// CSV or JSON.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { CleanupPanel } from '../../../components/cleanup-panel';
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
import { StepProgress } from '../../../components/operation-parts';
import { WithWorkspace } from '../../../components/session';
import { ExternalId, OperationState, PageHeader, Time } from '../../../components/ui';
import { useTRPC } from '../../../trpc/client';

const STATES = ['', 'open', 'preparing', 'completing', 'completed', 'aborting', 'aborted'] as const;
type StateFilter = (typeof STATES)[number];
const DEFAULTS = { state: '', prefix: '', from: '', until: '', q: '', after: '', before: '', size: '50' };

function Operations({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const [s, write] = useUrlState(DEFAULTS);
  // A new filter starts from the first page: a cursor is a position in one list.
  const filter = (patch: Partial<typeof DEFAULTS>, how: 'push' | 'replace' = 'push') =>
    write({ ...patch, after: '', before: '' }, how);
  const state = (STATES as readonly string[]).includes(s.state) ? (s.state as StateFilter) : '';
  const size = PAGE_SIZES.includes(Number(s.size)) ? Number(s.size) : 50;

  // The prefix box follows the URL and writes to it a moment after typing stops; search writes on submit.
  const [prefix, setPrefix] = useState(s.prefix);
  useEffect(() => setPrefix(s.prefix), [s.prefix]);
  useEffect(() => {
    if (prefix === s.prefix) return;
    const t = setTimeout(() => filter({ prefix }, 'replace'), 300);
    return () => clearTimeout(t);
  }, [prefix]);
  const [search, setSearch] = useState(s.q);
  useEffect(() => setSearch(s.q), [s.q]);

  const listInput = {
    workspace_id: workspaceId,
    state: state || null,
    prefix: s.prefix || null,
    from: s.from || null,
    before: s.until || null,
    q: s.q || null,
  };
  const q = useQuery(
    trpc.console.operations.queryOptions(
      { ...listInput, cursor: s.after || s.before || null, direction: s.before ? 'before' : 'after', limit: size },
      { placeholderData: keepPreviousData, refetchInterval: useLivePoll(5_000), retry: false },
    ),
  );
  const filtered = state !== '' || s.prefix !== '' || s.from !== '' || s.until !== '' || s.q !== '';

  return (
    <section aria-label="Operations list">
      <form
        className="browse-filters"
        role="search"
        aria-label="Find and filter operations"
        onSubmit={(e) => {
          e.preventDefault();
          filter({ q: search.trim(), prefix });
        }}
      >
        <label className="field browse-filters__prefix">
          <span>Operation id or request id</span>
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
          <span>State</span>
          <select name="state" value={state} onChange={(e) => filter({ state: e.target.value })}>
            {STATES.map((f) => (
              <option key={f} value={f}>
                {f === '' ? 'any' : f === 'open' ? 'in flight' : f}
              </option>
            ))}
          </select>
        </label>
        <label className="field browse-filters__prefix">
          <span>External id starts with</span>
          <input
            className="mono"
            name="prefix"
            value={prefix}
            onChange={(e) => setPrefix(e.target.value)}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <TimeRangeFields verb="Begun" from={s.from} until={s.until} onChange={filter} />
        {filtered && (
          <button
            type="button"
            className="btn"
            onClick={() => (
              setSearch(''),
              setPrefix(''),
              filter({ state: '', prefix: '', from: '', until: '', q: '' })
            )}
          >
            Clear filters
          </button>
        )}
      </form>
      {s.q && (
        <p className="small">
          Operations whose id starts with, or whose request id (of the create, a takeover or a failed attempt) is,{' '}
          <code>{s.q}</code>.
        </p>
      )}
      <ListTable
        query={q}
        rows={(page) => page.rows}
        minHeight="12rem"
        testId="operations"
        caption="Creation operations, newest first"
        columns={['Operation', 'State', 'Task', 'External id', 'Begun by', 'Steps', 'Begun']}
        empty={
          filtered
            ? 'No creation operations match these filters. Clear them to see every one.'
            : 'No creation operations yet: each create through the API (POST /api/v1/tasks) starts one.'
        }
        row={(o) => (
          <tr key={o.id}>
            <td data-label="Operation" className="nowrap">
              <ConsoleLink href={`/operations/${o.id}`} className="ident">
                {o.id.slice(0, 8)}
              </ConsoleLink>
              {o.request_id && (
                <span className="request-id block small muted">
                  <code title={`Request id ${o.request_id}`}>{o.request_id}</code>
                </span>
              )}
            </td>
            <td data-label="State">
              <OperationState state={o.state} />
              {o.outcome && o.outcome !== 'created' && o.outcome !== o.state && (
                <span className="small muted nowrap"> {o.outcome}</span>
              )}
              {o.error && (
                <span className="error-text small block clip" title={o.error}>
                  {o.error}
                </span>
              )}
            </td>
            <td data-label="Task" className="nowrap">
              {o.task_identifier ? (
                <ConsoleLink href={`/tasks/${o.task_id}`} className="ident">
                  {o.task_identifier}
                </ConsoleLink>
              ) : (
                <span className="muted">removed</span>
              )}
            </td>
            <td data-label="External id">
              <ExternalId value={o.external_id} copy={false} />
            </td>
            <td data-label="Begun by">
              <span className="clip" title={o.actor.label}>
                {o.actor.label}
              </span>
            </td>
            <td data-label="Steps">
              <StepProgress operation={o} />
            </td>
            <td data-label="Begun">
              <Time iso={o.created_at} />
            </td>
          </tr>
        )}
      />
      <ListPager
        page={q.data}
        noun="operations"
        size={size}
        onPage={(c) => write({ after: c.after ?? '', before: c.before ?? '' })}
        onSize={(n) => filter({ size: String(n) })}
      />
      <ExportLinks list="operations" input={listInput} label="these operations (every page)" />
    </section>
  );
}

export default function OperationsPage() {
  return (
    <>
      <PageHeader title="Creation operations" />
      <Suspense fallback={<p role="status">Loading…</p>}>
        <WithWorkspace>
          {(w) => (
            <>
              <Operations key={w.id} workspaceId={w.id} />
              <CleanupPanel workspaceId={w.id} />
            </>
          )}
        </WithWorkspace>
      </Suspense>
    </>
  );
}
