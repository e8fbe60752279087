'use client';
// Small presentational pieces every console page shares: times, badges, copy, and the three states a data
// region can be in (loading, error, empty). Regions keep a minimum height so data arriving shifts nothing.
import { useEffect, useState, type ReactNode } from 'react';
import { messageOf } from '../trpc/errors';

/** A clock that ticks, for ages that stay live without refetching. */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

export function relative(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const fmt = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  if (abs < 45_000) return ms <= 0 ? `${Math.max(1, Math.round(abs / 1000))}s ago` : `in ${Math.round(abs / 1000)}s`;
  if (abs < 3_600_000) return fmt.format(Math.round(ms / 60_000), 'minute');
  if (abs < 86_400_000) return fmt.format(Math.round(ms / 3_600_000), 'hour');
  return fmt.format(Math.round(ms / 86_400_000), 'day');
}

export function exact(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toLocaleString('en-GB', { timeZone: 'UTC', hour12: false })} UTC`;
}

/** Relative time, exact UTC time on hover and for assistive technology. */
export function Time({ iso, everyMs }: { iso: string | null | undefined; everyMs?: number }) {
  const now = useNow(everyMs);
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={exact(iso)}>
      {relative(iso, now)}
    </time>
  );
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
  const tone: BadgeTone = state === 'completed' ? 'ok' : state === 'aborted' ? 'bad' : state === 'aborting' ? 'bad' : 'warn';
  return <Badge tone={tone}>{state}</Badge>;
}

// Issue 15: one component renders every external id (bidi isolation, visible escapes, look-alike hint, copy).
export { CopyButton, ExternalId } from './external-id';

/** Wraps a query's three non-data states; renders children only with data. */
export function QueryState<T>({
  query,
  empty,
  isEmpty,
  children,
  minHeight = '6rem',
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
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
  if (query.isError || query.data === undefined) {
    return (
      <div className="state state--error" style={{ minHeight }} role="alert">
        <p>Could not load this: {messageOf(query.error)}</p>
        <button type="button" className="btn" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  if (isEmpty?.(query.data)) {
    return (
      <div className="state state--empty" style={{ minHeight }}>
        {empty ?? 'Nothing here yet.'}
      </div>
    );
  }
  return <>{children(query.data)}</>;
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1>{title}</h1>
      {children && <div className="page-header__extra">{children}</div>}
    </div>
  );
}
