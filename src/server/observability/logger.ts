// The process's structured log (issue 17 item 10): pino, one JSON object per line on stdout — or, when stdout is a
// terminal, one readable line per entry (a small formatter below; pino-pretty would pull in a dozen packages for
// what fits in a screen). It hangs on Services (`services.log`); nothing here is module state.
// Never log secrets or bodies: callers log fields they chose (route, status, ids); the redaction list is a second
// line of defence for anything that slips through under a name that says "secret".
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
  const format = settings.format === 'auto' ? (out.isTTY ? 'pretty' : 'json') : settings.format;
  const destination: DestinationStream = format === 'pretty' ? { write: (line: string) => void out.write(prettyLine(line)) } : { write: (line: string) => void out.write(line) };
  return pino(
    {
      level: settings.level,
      base: undefined, // no pid/hostname on every line: the instance id says which process when it matters
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination,
  );
}

/**
 * The same logger without the redaction pass, for the one line every request writes (http/observe.ts): its fields are
 * fixed (ids, method, route, status, duration, error code) and none is named like a secret, so redacting it never
 * changes a byte — yet pino's wildcard paths ran on every field of it, ~6 µs a request (issue 16 item 3). Lines that
 * carry anything else (an error, what the runtime logs) stay on the redacting logger. Built once, per Services.
 */
export function withoutRedaction(log: Logger): Logger {
  return log.child({}, { redact: { paths: [] } });
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
  return `${clock} ${String(level ?? '').toUpperCase().padEnd(LEVEL_WIDTH)} ${String(msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
}
