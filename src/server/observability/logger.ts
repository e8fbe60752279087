// The process's structured log: pino, one JSON object per line on stdout — or, when stdout is a terminal, one readable
// line per entry (a small formatter below; pino-pretty would pull in a dozen packages for what fits in a screen). It
// hangs on Services (`services.log`); nothing here is module state. Never log secrets or bodies: callers log fields
// they chose (route, status, ids); the redaction list is a second line of defence for anything that slips through under
// a name that says "secret".
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export type LogFormat = 'json' | 'pretty';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogSettings {
  level: LogLevel;
  /** `auto`: pretty when the output is a terminal, else JSON. */
  format: LogFormat | 'auto';
}

const REDACT = [
  'authorization',
  'cookie',
  'password',
  'token',
  'secret',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.token',
  '*.secret',
  'headers.authorization',
  'headers.cookie',
];

interface Output {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export function createLogger(settings: LogSettings, out: Output = process.stdout): Logger {
  return build(settings, out, { redact: true, batched: false });
}

/**
 * The logger for the one line every request writes (http/observe.ts), built once per Services. Its fields are fixed
 * (ids, method, route, status, duration, error code) and none is named like a secret, so it skips the redaction pass
 * (pino's wildcard paths ran on every field of it, ~6 µs a request); a failed request's line, which carries the error,
 * goes through the redacting logger instead. As JSON its lines are batched (BatchedOutput): one write per 20 ms instead
 * of one per request, which took ~40 µs of server CPU off every REST Found
 * (docs/history/2026-12-benchmarks-history.md). Readable lines at a terminal are written at once.
 */
export function createRequestLogger(settings: LogSettings, out: Output = process.stdout): Logger {
  return build(settings, out, { redact: false, batched: true });
}

function build(settings: LogSettings, out: Output, opts: { redact: boolean; batched: boolean }): Logger {
  const format = settings.format === 'auto' ? (out.isTTY ? 'pretty' : 'json') : settings.format;
  const destination: DestinationStream =
    format === 'pretty'
      ? { write: (line: string) => void out.write(prettyLine(line)) }
      : opts.batched
        ? new BatchedOutput(out)
        : { write: (line: string) => void out.write(line) };
  return pino(
    {
      level: settings.level,
      base: undefined, // no pid/hostname on every line: the instance id says which process when it matters
      timestamp: isoTimestamp(),
      formatters: { level: (label) => ({ level: label }) },
      ...(opts.redact ? { redact: { paths: REDACT, censor: '[redacted]' } } : {}),
    },
    destination,
  );
}

/**
 * pino's `isoTime`, made once per millisecond: under load many lines share a millisecond, and each `toISOString` (through
 * the `Date` Next wraps once it has loaded) cost ~2 µs of a request's log line. Per logger, not module state.
 */
function isoTimestamp(): () => string {
  let at = NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}

/** A given logger without the redaction pass: the request log of Services built with their own `log` (tests). */
export function withoutRedaction(log: Logger): Logger {
  return log.child({}, { redact: { paths: [] } });
}

/**
 * Lines gathered and written together: at most `delayMs` after the first of them, or at once past `maxChars`. Every
 * write to a pipe is a system call and wakes its reader; under load that was the dearest part of a request's log
 * line. `flush()` (pino's `logger.flush()`) writes what is pending — the server calls it when it closes; lines still
 * pending when a process dies without closing (at most `delayMs` of them) are lost.
 */
export class BatchedOutput {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: Output,
    private readonly delayMs = 20,
    private readonly maxChars = 64 * 1024,
  ) {}

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= this.maxChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.delayMs).unref();
  }

  flush(done?: (err?: Error) => void): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.pending;
    this.pending = '';
    if (text) this.out.write(text);
    done?.();
  }
}

const LEVEL_WIDTH = 5;

/** `12:00:01.234 INFO  GET /api/v1/tasks 200 3.1 ms  req=… actor=…` — for people at a terminal. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { time, level, msg, ...rest } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return `${clock} ${String(level ?? '')
    .toUpperCase()
    .padEnd(LEVEL_WIDTH)} ${String(msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
}
