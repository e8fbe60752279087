'use client';
// Times people can read (SPEC §13: "times can be read absolutely (with the zone) as well as relatively, and timelines
// show the time between events"). Every time the console shows is absolute with its zone beside how long ago it was;
// the zone is the browser's or UTC, one toggle in the header, remembered in this browser. Timelines (an operation's
// history and steps) add milliseconds and the time since the entry before.
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';

export type TimeZoneChoice = 'local' | 'utc';
const ZONE_KEY = 'tether.time-zone';
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}
const readZone = (): TimeZoneChoice => (window.localStorage.getItem(ZONE_KEY) === 'utc' ? 'utc' : 'local');

/** The zone times are shown in, and the toggle's setter. The server renders local (the browser corrects it). */
export function useTimeZone(): [TimeZoneChoice, (zone: TimeZoneChoice) => void] {
  const zone = useSyncExternalStore(subscribe, readZone, () => 'local' as const);
  const set = useCallback((next: TimeZoneChoice) => {
    window.localStorage.setItem(ZONE_KEY, next);
    for (const l of listeners) l();
  }, []);
  return [zone, set];
}

/** A clock that ticks, for ages that stay live without refetching. */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

interface Parts {
  year: string;
  month: string;
  monthName: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  zoneName: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsOf(d: Date, zone: TimeZoneChoice): Parts {
  const key = zone;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone === 'utc' ? 'UTC' : undefined,
      year: 'numeric',
      month: '2-digit',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formatters.set(key, f);
  }
  const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value])) as Record<string, string>;
  const month = p.month ?? '01';
  return {
    year: p.year ?? '',
    month,
    monthName: MONTHS[Number(month) - 1] ?? month,
    day: p.day ?? '',
    hour: p.hour ?? '',
    minute: p.minute ?? '',
    second: p.second ?? '',
    zoneName: zone === 'utc' ? 'UTC' : (p.timeZoneName ?? ''),
  };
}
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `14:03:07 UTC` today, `2 Dec 14:03:07 UTC` this year, `2 Dec 2025 14:03:07 UTC` before; `ms` adds milliseconds
 * (timelines, where events a few milliseconds apart must still read in order).
 */
export function formatAbsolute(iso: string, zone: TimeZoneChoice, opts: { now?: number; ms?: boolean } = {}): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = partsOf(d, zone);
  const today = partsOf(new Date(opts.now ?? Date.now()), zone);
  const clock = `${p.hour}:${p.minute}:${p.second}${opts.ms ? `.${String(d.getUTCMilliseconds()).padStart(3, '0')}` : ''} ${p.zoneName}`;
  if (p.year === today.year && p.month === today.month && p.day === today.day) return clock;
  return p.year === today.year ? `${p.day} ${p.monthName} ${clock}` : `${p.day} ${p.monthName} ${p.year} ${clock}`;
}

/** The full, unambiguous form: `2026-12-02 14:03:07.123 UTC`. */
export function formatFull(iso: string, zone: TimeZoneChoice): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = partsOf(d, zone);
  return `${p.year}-${p.month}-${p.day.padStart(2, '0')} ${p.hour}:${p.minute}:${p.second}.${String(d.getUTCMilliseconds()).padStart(3, '0')} ${p.zoneName}`;
}

/** `5 min ago`, `12 s ago`, `in 30 s`, `3 h ago`, `2 d ago`: short, so a table cell never wraps. */
export function relative(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const say = (n: number, unit: string) => (ms <= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`);
  if (abs < 1_000) return ms <= 0 ? 'just now' : 'in 1 s';
  if (abs < 60_000) return say(Math.round(abs / 1_000), 's');
  if (abs < 3_600_000) return say(Math.round(abs / 60_000), 'min');
  if (abs < 86_400_000) return say(Math.round(abs / 3_600_000), 'h');
  return say(Math.round(abs / 86_400_000), 'd');
}

/** A duration for people: `12 ms`, `1.4 s`, `3 min 2 s`, `2 h 5 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  if (ms < 0) ms = 0;
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1_000);
  if (s < 3_600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3_600)} h ${Math.floor((s % 3_600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3_600)} h`;
}

/** The time between two instants, for a timeline (`+12 ms`). */
export function Since({ from, to }: { from: string | null | undefined; to: string }) {
  if (!from) return null;
  return <span className="time__since">+{formatDuration(Date.parse(to) - Date.parse(from))}</span>;
}

/**
 * A time: absolute with its zone, then how long ago (kept live), on one line. The title gives the full form in both
 * zones. `ms` shows milliseconds (timelines). `bare` leaves out the relative part (where it would repeat itself).
 */
export function Time({
  iso,
  everyMs,
  ms,
  bare,
}: {
  iso: string | null | undefined;
  everyMs?: number;
  ms?: boolean;
  bare?: boolean;
}) {
  const now = useNow(everyMs);
  const [zone] = useTimeZone();
  if (!iso) return <span className="muted">—</span>;
  return (
    <time className="time" dateTime={iso} title={`${formatFull(iso, 'utc')} · ${formatFull(iso, 'local')}`}>
      <span className="time__abs">{formatAbsolute(iso, zone, { now, ms })}</span>
      {!bare && <span className="time__rel"> · {relative(iso, now)}</span>}
    </time>
  );
}

/** The header's toggle: local time or UTC, for every time on every page, remembered in this browser. */
export function TimeZoneToggle() {
  const [zone, setZone] = useTimeZone();
  return (
    <button
      type="button"
      className="btn btn--small zone-toggle"
      title={
        zone === 'utc'
          ? 'Times are shown in UTC. Show them in this browser’s time zone.'
          : 'Times are shown in this browser’s time zone. Show them in UTC.'
      }
      onClick={() => setZone(zone === 'utc' ? 'local' : 'utc')}
    >
      Times: {zone === 'utc' ? 'UTC' : 'local'}
    </button>
  );
}

/** An instant as a `datetime-local` input shows it, in the zone times are shown in (`2026-12-02T14:03`). */
export function toLocalInput(iso: string | null | undefined, zone: TimeZoneChoice): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = partsOf(d, zone);
  return `${p.year}-${p.month}-${p.day.padStart(2, '0')}T${p.hour}:${p.minute}`;
}

/** A `datetime-local` input's value, read in the zone times are shown in, as an instant; '' for an empty input. */
export function fromLocalInput(value: string, zone: TimeZoneChoice): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return '';
  const d = zone === 'utc' ? new Date(`${value}${value.length === 16 ? ':00' : ''}Z`) : new Date(value);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}
