'use client';
// The task browser (SPEC §13): external-id prefix, filters (settlement, archived, step, created range), sort and keyset
// pages — every one of them in the URL, so a view survives reload and can be shared. Rendered with TanStack Table
// (manual sorting); the previous page stays on screen while the next loads, so nothing jumps.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
  type SortingState,
} from '@tanstack/react-table';
import { usePathname, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/api/root';
import { useTRPC } from '../trpc/client';
import { ConsoleLink } from './console-link';
import { ExternalId } from './external-id';
import { ExportLinks } from './list-controls';
import { useLivePoll } from './live';
import { QueryState, TaskBadges, Time } from './ui';

type Row = inferRouterOutputs<AppRouter>['console']['tasks']['rows'][number];

const SORTS = ['identifier', 'title', 'external_id', 'step', 'created_at'] as const;
const SETTLEMENTS = ['any', 'settled', 'unsettled', 'none'] as const;
const ARCHIVED = ['include', 'exclude', 'only'] as const;
const PAGE_SIZES = [25, 50, 100];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The browser's state, read from the URL; anything unrecognised falls back to the default. */
export interface BrowseState {
  q: string;
  settlement: (typeof SETTLEMENTS)[number];
  archived: (typeof ARCHIVED)[number];
  step: string;
  from: string;
  to: string;
  sort: (typeof SORTS)[number];
  dir: 'asc' | 'desc';
  after: string;
  before: string;
  size: number;
}

const DEFAULTS: BrowseState = {
  q: '',
  settlement: 'any',
  archived: 'include',
  step: '',
  from: '',
  to: '',
  sort: 'identifier',
  dir: 'desc',
  after: '',
  before: '',
  size: 25,
};

function oneOf<T extends string>(list: readonly T[], v: string | null, d: T): T {
  return list.includes(v as T) ? (v as T) : d;
}

export function readBrowseState(p: URLSearchParams): BrowseState {
  const day = (v: string | null) => (v && DAY.test(v) ? v : '');
  return {
    q: p.get('q') ?? '',
    settlement: oneOf(SETTLEMENTS, p.get('settlement'), 'any'),
    archived: oneOf(ARCHIVED, p.get('archived'), 'include'),
    step: p.get('step') ?? '',
    from: day(p.get('from')),
    to: day(p.get('to')),
    sort: oneOf(SORTS, p.get('sort'), 'identifier'),
    dir: p.get('dir') === 'asc' ? 'asc' : 'desc',
    after: p.get('after') ?? '',
    before: p.get('after') ? '' : (p.get('before') ?? ''),
    size: PAGE_SIZES.includes(Number(p.get('size'))) ? Number(p.get('size')) : 25,
  };
}

/**
 * Only what differs from the defaults goes into the URL (plus the workspace, so a shared link opens the same one, and
 * the exact find above the table, which keeps its own parameter).
 */
function toSearch(s: BrowseState, workspaceId: string, find: string | null): string {
  const p = new URLSearchParams({ ws: workspaceId });
  if (find !== null) p.set('find', find);
  for (const [k, v] of Object.entries(s)) if (v !== DEFAULTS[k as keyof BrowseState]) p.set(k, String(v));
  return p.toString();
}

const col = createColumnHelper<Row>();
const columns = [
  col.accessor('identifier', {
    header: 'Task',
    cell: (c) => (
      <ConsoleLink href={`/tasks/${c.row.original.id}`} className="ident">
        {c.getValue()}
      </ConsoleLink>
    ),
  }),
  col.accessor('title', { header: 'Title', cell: (c) => <span className="truncate">{c.getValue()}</span> }),
  col.accessor('external_id', {
    header: 'External id',
    cell: (c) => <ExternalId value={c.getValue()} lookalikes={c.row.original.lookalikes} />,
  }),
  col.display({ id: 'status', header: 'Status', cell: (c) => <TaskBadges t={c.row.original} /> }),
  col.accessor('step_name', { id: 'step', header: 'Step', cell: (c) => c.getValue() ?? '—' }),
  col.accessor('created_at', { header: 'Age', cell: (c) => <Time iso={c.getValue()} /> }),
];

export function TasksTable({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const pathname = usePathname() ?? '/tasks';
  const params = useSearchParams();
  const search = params?.toString() ?? '';
  const state = readBrowseState(new URLSearchParams(search));
  // Shallow history entries (Next syncs useSearchParams with them): no navigation, no remount, and the URL is current
  // at once — so each write starts from the URL as it is, and a filter chosen while the prefix box waits to write is
  // never undone by it.
  const go = (patch: Partial<BrowseState>, how: 'push' | 'replace' = 'push') => {
    // A new filter or sort starts from the first page: a cursor is a position in one ordering only.
    const paging = 'after' in patch || 'before' in patch;
    const current = new URLSearchParams(window.location.search);
    const now = readBrowseState(current);
    const next = { ...now, ...(paging ? {} : { after: '', before: '' }), ...patch };
    window.history[how === 'push' ? 'pushState' : 'replaceState'](
      null,
      '',
      `${pathname}?${toSearch(next, workspaceId, current.get('find'))}`,
    );
  };

  // The prefix box follows the URL (back/forward, reload) and writes to it a moment after typing stops.
  const [draft, setDraft] = useState(state.q);
  useEffect(() => setDraft(state.q), [state.q]);
  useEffect(() => {
    if (draft === readBrowseState(new URLSearchParams(window.location.search)).q) return;
    const t = setTimeout(() => go({ q: draft }, 'replace'), 300);
    return () => clearTimeout(t);
  }, [draft]);

  const steps = useQuery(trpc.workspace.steps.queryOptions({ workspace_id: workspaceId }, { staleTime: 60_000 }));
  const listInput = {
    workspace_id: workspaceId,
    prefix: state.q || null,
    settlement: state.settlement,
    archived: state.archived,
    step_id: state.step || null,
    created_from: state.from || null,
    created_to: state.to || null,
    sort: state.sort,
    dir: state.dir,
  };
  const q = useQuery(
    trpc.console.tasks.queryOptions(
      {
        ...listInput,
        cursor: state.after || state.before || null,
        direction: state.before ? 'before' : 'after',
        limit: state.size,
      },
      { placeholderData: keepPreviousData, refetchInterval: useLivePoll(10_000), retry: false },
    ),
  );
  const sorting: SortingState = [{ id: state.sort, desc: state.dir === 'desc' }];
  const table = useReactTable({
    data: q.data?.rows ?? [],
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: false,
    state: { sorting },
    onSortingChange: (u) => {
      const [s] = typeof u === 'function' ? u(sorting) : u;
      if (s) go({ sort: oneOf(SORTS, s.id, 'identifier'), dir: s.desc ? 'desc' : 'asc' });
    },
  });
  const filtered =
    state.q !== '' ||
    state.settlement !== 'any' ||
    state.archived !== 'include' ||
    state.step !== '' ||
    state.from !== '' ||
    state.to !== '';
  const count = q.data
    ? q.data.matching_capped
      ? `more than ${q.data.matching.toLocaleString('en')}`
      : q.data.matching.toLocaleString('en')
    : '';

  return (
    <section aria-labelledby="tasks-table-title">
      <h2 id="tasks-table-title">Browse tasks</h2>
      <form
        className="browse-filters"
        role="search"
        aria-label="Browse tasks"
        onSubmit={(e) => (e.preventDefault(), go({ q: draft }, 'replace'))}
      >
        <label className="field browse-filters__prefix">
          <span>External id starts with</span>
          <input
            className="mono"
            name="q"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <label className="field">
          <span>Identity</span>
          <select
            name="settlement"
            value={state.settlement}
            onChange={(e) => go({ settlement: oneOf(SETTLEMENTS, e.target.value, 'any') })}
          >
            <option value="any">Any</option>
            <option value="settled">Settled</option>
            <option value="unsettled">Unsettled</option>
            <option value="none">No external id</option>
          </select>
        </label>
        <label className="field">
          <span>Archived</span>
          <select
            name="archived"
            value={state.archived}
            onChange={(e) => go({ archived: oneOf(ARCHIVED, e.target.value, 'include') })}
          >
            <option value="include">Included</option>
            <option value="exclude">Hidden</option>
            <option value="only">Only archived</option>
          </select>
        </label>
        <label className="field">
          <span>Step</span>
          <select name="step" value={state.step} onChange={(e) => go({ step: e.target.value })}>
            <option value="">Any step</option>
            {steps.data?.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Created from</span>
          <input type="date" name="from" value={state.from} onChange={(e) => go({ from: e.target.value })} />
        </label>
        <label className="field">
          <span>Created to</span>
          <input type="date" name="to" value={state.to} onChange={(e) => go({ to: e.target.value })} />
        </label>
        {filtered && (
          <button
            type="button"
            className="btn"
            onClick={() => go({ q: '', settlement: 'any', archived: 'include', step: '', from: '', to: '' })}
          >
            Clear filters
          </button>
        )}
      </form>
      {q.data?.prefix && q.data.prefix !== state.q && (
        <p className="small">
          Browsing ids that start with <ExternalId value={q.data.prefix} copy={false} />
        </p>
      )}
      <QueryState
        query={q}
        minHeight="24rem"
        isEmpty={(d) => d.rows.length === 0}
        empty={
          filtered
            ? 'No tasks match these filters. Clear them to see every task.'
            : 'No tasks in this workspace yet. Tasks appear here as integrations create them.'
        }
      >
        {() => (
          <>
            <div className="table-wrap" aria-busy={q.isFetching && q.isPlaceholderData}>
              <table className="table">
                <caption className="visually-hidden">
                  Tasks, {count} matching. Column headers with buttons sort the table.
                </caption>
                <thead>
                  {table.getHeaderGroups().map((hg) => (
                    <tr key={hg.id}>
                      {hg.headers.map((h) => {
                        const sorted = h.column.getIsSorted();
                        return (
                          <th
                            key={h.id}
                            scope="col"
                            aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                          >
                            {h.column.getCanSort() ? (
                              <button type="button" className="th-sort" onClick={h.column.getToggleSortingHandler()}>
                                {flexRender(h.column.columnDef.header, h.getContext())}
                                <span aria-hidden="true" className="th-sort__icon">
                                  {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                                </span>
                              </button>
                            ) : (
                              flexRender(h.column.columnDef.header, h.getContext())
                            )}
                          </th>
                        );
                      })}
                    </tr>
                  ))}
                </thead>
                <tbody>
                  {table.getRowModel().rows.map((r) => (
                    <tr key={r.id}>
                      {r.getVisibleCells().map((c) => (
                        <td key={c.id} data-label={String(c.column.columnDef.header)}>
                          {flexRender(c.column.columnDef.cell, c.getContext())}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </QueryState>
      <nav className="pager" aria-label="Pagination">
        <button
          type="button"
          className="btn"
          onClick={() => go({ after: '', before: '' })}
          disabled={!state.after && !state.before}
        >
          First page
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => go({ before: q.data?.prev_cursor ?? '', after: '' })}
          disabled={!q.data?.prev_cursor}
        >
          Previous page
        </button>
        <span aria-live="polite" data-testid="matching">
          {q.data && `${count} ${q.data.matching === 1 && !q.data.matching_capped ? 'task matches' : 'tasks match'}`}
        </span>
        <button
          type="button"
          className="btn"
          onClick={() => go({ after: q.data?.next_cursor ?? '', before: '' })}
          disabled={!q.data?.next_cursor}
        >
          Next page
        </button>
        <label className="pager__size">
          Rows per page{' '}
          <select value={state.size} onChange={(e) => go({ size: Number(e.target.value) })}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </nav>
      <ExportLinks list="tasks" input={listInput} label="these tasks (every page, in this order)" />
    </section>
  );
}
