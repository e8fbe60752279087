'use client';
// What every console list has around its rows (SPEC §13: "lists are paged with a total … nothing is silently cut off"):
// its table and states, where this page is among all the rows that match, the way to the first, previous and next
// page, how many rows a page holds, the export of the whole list as it is filtered, and its state in the URL.
import { usePathname, useSearchParams } from 'next/navigation';
import { useCallback, type ReactNode } from 'react';
import { useWorkspaceOnScreen } from './session';
import { fromLocalInput, toLocalInput, useTimeZone } from './time';
import { QueryState, type QueryLike } from './ui';
import { withWorkspace } from './workspace-url';

export interface PageFacts {
  rows: unknown[];
  total: number;
  total_capped: boolean;
  first_position: number;
  next_cursor: string | null;
  prev_cursor: string | null;
}

export const PAGE_SIZES = [25, 50, 100, 200];

/** `Rows 51–100 of 1,141` (or `of more than 100,000`). */
export function pageSummary(p: PageFacts, noun: string): string {
  const total = `${p.total_capped ? 'more than ' : ''}${p.total.toLocaleString('en')}`;
  if (p.rows.length === 0) return `No ${noun} ${p.total === 0 ? 'match' : 'on this page'}`;
  const last = p.first_position + p.rows.length - 1;
  return `${noun[0]!.toUpperCase()}${noun.slice(1)} ${p.first_position.toLocaleString('en')}–${last.toLocaleString('en')} of ${total}`;
}

export function ListPager({
  page,
  noun,
  size,
  onPage,
  onSize,
}: {
  page: PageFacts | undefined;
  noun: string;
  size: number;
  onPage: (cursor: { after?: string; before?: string }) => void;
  onSize: (size: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="btn" onClick={() => onPage({})} disabled={!page?.prev_cursor}>
        First page
      </button>
      <button
        type="button"
        className="btn"
        onClick={() => onPage({ before: page?.prev_cursor ?? '' })}
        disabled={!page?.prev_cursor}
      >
        Previous page
      </button>
      <span aria-live="polite" data-testid="page-summary" className="pager__summary">
        {page ? pageSummary(page, noun) : ''}
      </span>
      <button
        type="button"
        className="btn"
        onClick={() => onPage({ after: page?.next_cursor ?? '' })}
        disabled={!page?.next_cursor}
      >
        Next page
      </button>
      <label className="pager__size">
        Rows per page{' '}
        <select value={size} onChange={(e) => onSize(Number(e.target.value))}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}

/** CSV and JSON of every row of `list` with `input`'s filters (not just this page), from the server's export route. */
export function ExportLinks({ list, input, label }: { list: string; input: Record<string, unknown>; label: string }) {
  const query = encodeURIComponent(JSON.stringify(input));
  return (
    <p className="export-links small">
      Export {label}:{' '}
      <a href={`/api/console/export/${list}.csv?input=${query}`} download>
        CSV
      </a>{' '}
      ·{' '}
      <a href={`/api/console/export/${list}.json?input=${query}`} download>
        JSON
      </a>
    </p>
  );
}

/**
 * A list's state in its URL (SPEC §13: filters kept in the URL): read from the address, written as a shallow history
 * entry (Next keeps useSearchParams in step; nothing remounts). Values equal to the default are left out; the workspace
 * is always named first.
 */
export function useUrlState<S extends Record<string, string>>(
  defaults: S,
): [S, (patch: Partial<S>, how?: 'push' | 'replace') => void] {
  const params = useSearchParams();
  const pathname = usePathname() ?? '/';
  const workspace = useWorkspaceOnScreen();
  const read = useCallback(
    (p: URLSearchParams): S => Object.fromEntries(Object.keys(defaults).map((k) => [k, p.get(k) ?? defaults[k]])) as S,
    [],
  );
  const state = read(new URLSearchParams(params?.toString() ?? ''));
  const write = useCallback(
    (patch: Partial<S>, how: 'push' | 'replace' = 'push') => {
      // From the address as it is now: two writes in one tick must not undo each other.
      const current = new URLSearchParams(window.location.search);
      const next = { ...read(current), ...patch };
      const out = new URLSearchParams();
      for (const [k, v] of Object.entries(next)) if (v !== defaults[k]) out.set(k, v);
      // Parameters this list does not own (the page's others) stay as they are.
      for (const [k, v] of current) if (!(k in defaults) && !out.has(k)) out.set(k, v);
      const q = out.toString();
      window.history[how === 'push' ? 'pushState' : 'replaceState'](
        null,
        '',
        withWorkspace(q ? `${pathname}?${q}` : pathname, workspace?.id),
      );
    },
    [pathname, workspace?.id, read],
  );
  return [state, write];
}

/**
 * A list's table inside its QueryState: loading, the error when nothing was ever loaded, the empty message, rows kept
 * and marked stale when a refresh fails — and while the next page loads the previous one stays, marked busy.
 */
export function ListTable<T, R>({
  query,
  rows,
  empty,
  minHeight = '10rem',
  testId,
  caption,
  columns,
  row,
}: {
  query: QueryLike<T> & { isPlaceholderData?: boolean };
  rows: (data: T) => R[];
  empty: ReactNode;
  minHeight?: string;
  testId: string;
  caption: string;
  columns: readonly string[];
  row: (r: R, i: number) => ReactNode;
}) {
  return (
    <QueryState query={query} minHeight={minHeight} isEmpty={(d) => rows(d).length === 0} empty={empty}>
      {(d) => (
        <div className="table-wrap" aria-busy={!!(query.isFetching && query.isPlaceholderData)}>
          <table className="table table--dense" data-testid={testId}>
            <caption className="visually-hidden">{caption}</caption>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{rows(d).map(row)}</tbody>
          </table>
        </div>
      )}
    </QueryState>
  );
}

/** A list's time range — `{verb} from` and `{verb} before` — read and shown in the zone times are shown in. */
export function TimeRangeFields({
  verb,
  from,
  until,
  onChange,
}: {
  verb: string;
  from: string;
  until: string;
  onChange: (patch: { from: string } | { until: string }) => void;
}) {
  const [zone] = useTimeZone();
  const zoneName = zone === 'utc' ? 'UTC' : 'local time';
  return (
    <>
      <label className="field">
        <span>
          {verb} from ({zoneName})
        </span>
        <input
          type="datetime-local"
          name="from"
          value={toLocalInput(from, zone)}
          onChange={(e) => onChange({ from: fromLocalInput(e.target.value, zone) })}
        />
      </label>
      <label className="field">
        <span>
          {verb} before ({zoneName})
        </span>
        <input
          type="datetime-local"
          name="until"
          value={toLocalInput(until, zone)}
          onChange={(e) => onChange({ until: fromLocalInput(e.target.value, zone) })}
        />
      </label>
    </>
  );
}
