// The structured log — JSON lines by default, readable lines on a terminal, quiet under the test
// runner, secret-named fields redacted — and its settings (config.ts: TETHER_LOG_LEVEL, TETHER_LOG_FORMAT).
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/server/config';
import {
  BatchedOutput,
  createLogger,
  createRequestLogger,
  prettyLine,
  withoutRedaction,
} from '../../../src/server/observability/logger';

function capture(isTTY = false) {
  const lines: string[] = [];
  return { lines, out: { isTTY, write: (l: string) => lines.push(l) } };
}

describe('createLogger', () => {
  it('writes one JSON object per line with an ISO time and the level by name', () => {
    const { lines, out } = capture();
    createLogger({ level: 'info', format: 'json' }, out).info({ route: '/api/v1/tasks', status: 200 }, 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 'info', msg: 'request', route: '/api/v1/tasks', status: 200 });
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(entry).not.toHaveProperty('pid');
  });

  it('is readable on a terminal (auto) and JSON elsewhere', () => {
    const tty = capture(true);
    createLogger({ level: 'info', format: 'auto' }, tty.out).info({ route: '/api/health', status: 200 }, 'request');
    expect(tty.lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request {2}route=\/api\/health status=200\n$/);
    const pipe = capture(false);
    createLogger({ level: 'info', format: 'auto' }, pipe.out).info('hello');
    expect(JSON.parse(pipe.lines[0]!)).toMatchObject({ msg: 'hello' });
  });

  it('redacts fields named like secrets', () => {
    const { lines, out } = capture();
    createLogger({ level: 'info', format: 'json' }, out).info(
      { token: 'tth_x', headers: { authorization: 'Bearer y', cookie: 'z' }, user: { password: 'p' } },
      'oops',
    );
    expect(lines[0]).not.toMatch(/tth_x|Bearer y|"z"|"p"/);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      token: '[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
      user: { password: '[redacted]' },
    });
  });

  it('writes a request line without the redaction pass byte for byte as the redacting logger writes it', () => {
    for (const format of ['json', 'pretty'] as const) {
      const { lines, out } = capture();
      const log = createLogger({ level: 'info', format }, out);
      const line = {
        req_id: 'r-1',
        method: 'POST',
        route: '/api/v1/tasks',
        status: 200,
        duration_ms: 1.25,
        actor_id: 'a-1',
        error_code: undefined,
      };
      log.info(line, 'request');
      withoutRedaction(log).info(line, 'request');
      const [redacted, plain] = lines.map((l) => l.replace(/"time":"[^"]+"|^\S+/, 'T'));
      expect(plain).toBe(redacted);
    }
  });

  it('the request logger writes JSON request lines byte for byte as the redacting logger, batched into one write', () => {
    const { lines, out } = capture();
    const log = createLogger({ level: 'info', format: 'json' }, out);
    const requests = createRequestLogger({ level: 'info', format: 'json' }, out);
    const line = {
      req_id: 'r-1',
      method: 'POST',
      route: '/api/v1/tasks',
      status: 200,
      duration_ms: 1.25,
      actor_id: 'a-1',
    };
    log.info(line, 'request');
    requests.info(line, 'request');
    requests.info({ ...line, req_id: 'r-2' }, 'request');
    expect(lines).toHaveLength(1); // the two request lines wait for the batch
    requests.flush();
    expect(lines).toHaveLength(2);
    const batch = lines[1]!.split('\n');
    expect(batch).toHaveLength(3); // two lines and the empty rest after the last newline
    const same = (l: string) => l.replace(/"time":"[^"]+"/, 'T');
    expect(same(batch[0]!)).toBe(same(lines[0]!.trimEnd()));
    expect(JSON.parse(batch[1]!)).toMatchObject({ req_id: 'r-2' });
  });

  it('the request logger writes at once on a terminal (readable lines are for people watching)', () => {
    const { lines, out } = capture(true);
    createRequestLogger({ level: 'info', format: 'auto' }, out).info({ route: '/api/health', status: 200 }, 'request');
    expect(lines).toHaveLength(1);
  });

  it('a batch is written within its delay, or at once when it grows past its size', () => {
    vi.useFakeTimers();
    try {
      const { lines, out } = capture();
      const batched = new BatchedOutput(out, 20, 100);
      batched.write('a\n');
      batched.write('b\n');
      expect(lines).toEqual([]);
      vi.advanceTimersByTime(20);
      expect(lines).toEqual(['a\nb\n']);
      batched.write('x'.repeat(100) + '\n');
      expect(lines).toHaveLength(2); // past maxChars: no waiting
      vi.advanceTimersByTime(20);
      expect(lines).toHaveLength(2); // nothing left to write
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the level it was built from: nothing below it is written', () => {
    const { lines, out } = capture();
    withoutRedaction(createLogger({ level: 'warn', format: 'json' }, out)).info({ status: 200 }, 'request');
    expect(lines).toHaveLength(0);
  });

  it('prints nothing at level silent', () => {
    const { lines, out } = capture();
    const log = createLogger({ level: 'silent', format: 'json' }, out);
    log.error('nope');
    log.info('nope');
    expect(lines).toEqual([]);
  });

  it('leaves a line that is not JSON as it is', () => {
    expect(prettyLine('plain text\n')).toBe('plain text\n');
  });
});

describe('log settings (config.ts)', () => {
  it('default to info, JSON or readable by terminal, and silent under the test runner', () => {
    expect(loadConfig({}).log).toEqual({ level: 'info', format: 'auto' });
    expect(loadConfig({ NODE_ENV: 'test' }).log.level).toBe('silent');
    expect(loadConfig({ NODE_ENV: 'test', TETHER_LOG_LEVEL: 'debug', TETHER_LOG_FORMAT: 'pretty' }).log).toEqual({
      level: 'debug',
      format: 'pretty',
    });
  });

  it('refuse an unknown level or format with one line naming the variable', () => {
    expect(() => loadConfig({ TETHER_LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig({ TETHER_LOG_LEVEL: 'loud' })).toThrow(
      /^TETHER_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent/,
    );
    expect(() => loadConfig({ TETHER_LOG_FORMAT: 'xml' })).toThrow(/^TETHER_LOG_FORMAT: must be json or pretty/);
  });
});
