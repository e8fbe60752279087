'use client';
// Small presentational pieces every console page shares: times, badges, copy, and the three states a data
// region can be in (loading, error, empty). Regions keep a minimum height so data arriving shifts nothing.
import type { ReactNode } from 'react';
import { messageOf } from '../trpc/errors';
import { useConnection } from './connection';
import { formatFull, Time } from './time';

// Times (absolute with the zone, relative, durations) live in ./time.tsx; the pages import them from here.
export { formatDuration, relative, Since, Time, useNow } from './time';

/** The full UTC form (`2026-12-02 14:03:07.123 UTC`), where a label must not depend on the browser (chart hours). */
export function exact(iso: string): string {
  return formatFull(iso, 'utc');
}

export type BadgeTone = 'ok' | 'warn' | 'bad' | 'muted' | 'info';
export function Badge({ tone, children }: { tone: BadgeTone; children: ReactNode }) {
  return <span className={`badge badge--${tone}`}>{children}</span>;
}

/** The settlement badges of a task row (SPEC §4.2: unsettled while its create is preparing or completing). */
export function TaskBadges({ t }: { t: { settlement: string; archived_at: string | null } }) {
  return (
    <span className="badges">
      {t.settlement === 'settled' && <Badge tone="ok">settled</Badge>}
      {t.settlement === 'unsettled' && <Badge tone="warn">unsettled</Badge>}
      {t.settlement === 'none' && <Badge tone="muted">no identity</Badge>}
      {t.archived_at && <Badge tone="info">archived</Badge>}
    </span>
  );
}

export function OperationState({ state }: { state: string }) {
  const tone: BadgeTone =
    state === 'completed' ? 'ok' : state === 'aborted' ? 'bad' : state === 'aborting' ? 'bad' : 'warn';
  return <Badge tone={tone}>{state}</Badge>;
}

// One component renders every external id, so no page can show one unsafely (bidi isolation, visible escapes,
// look-alike hint, copy).
export { CopyButton, ExternalId } from './external-id';

export interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
  /** When the data on screen was fetched (TanStack Query's dataUpdatedAt). */
  dataUpdatedAt?: number;
  isFetching?: boolean;
}

/**
 * Wraps a query's non-data states; renders children only with data. SPEC §13: a list whose source is unreachable keeps
 * its last rows, marked stale — an error replaces what is on screen only when nothing was ever loaded.
 */
export function QueryState<T>({
  query,
  empty,
  isEmpty,
  children,
  minHeight = '6rem',
}: {
  query: QueryLike<T>;
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
  minHeight?: string;
}) {
  if (query.isPending) {
    return (
      <div className="state state--loading" style={{ minHeight }} role="status">
        Loading…
      </div>
    );
  }
  if (query.data === undefined) {
    return (
      <div className="state state--error" style={{ minHeight }} role="alert">
        <p>Could not load this: {messageOf(query.error)}</p>
        <button type="button" className="btn" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  // Offline, the browser holds requests back (no error arrives): what is shown is just as stale. So is what was loaded
  // before the console's API started failing: it cannot be refreshed until it answers again.
  const { status, apiFailure } = useConnection();
  const offline = status === 'offline';
  const failing = apiFailure !== null && apiFailure.at > (query.dataUpdatedAt ?? 0);
  const stale =
    query.isError || offline || failing ? (
      <StaleNotice
        query={query}
        reason={
          query.isError ? messageOf(query.error) : offline ? 'The server cannot be reached.' : apiFailure!.message
        }
      />
    ) : null;
  if (isEmpty?.(query.data)) {
    return (
      <>
        {stale}
        <div className="state state--empty" style={{ minHeight }}>
          {empty ?? 'Nothing here yet.'}
        </div>
      </>
    );
  }
  return (
    <>
      {stale}
      <div className={stale ? 'is-stale' : undefined} data-stale={stale ? 'true' : undefined}>
        {children(query.data)}
      </div>
    </>
  );
}

/** Says that what is shown below could not be refreshed, since when it is from, and why. */
function StaleNotice<T>({ query, reason }: { query: QueryLike<T>; reason: string }) {
  return (
    <div className="notice notice--warn stale" role="status">
      <p>
        <strong>Not up to date.</strong> {reason} Showing what was loaded
        {query.dataUpdatedAt ? (
          <>
            {' '}
            at <Time iso={new Date(query.dataUpdatedAt).toISOString()} everyMs={1_000} />
          </>
        ) : (
          ' earlier'
        )}
        .{' '}
        <button
          type="button"
          className="btn btn--small"
          onClick={() => void query.refetch()}
          disabled={query.isFetching}
        >
          {query.isFetching ? 'Trying…' : 'Try again'}
        </button>
      </p>
    </div>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1>{title}</h1>
      {children && <div className="page-header__extra">{children}</div>}
    </div>
  );
}
