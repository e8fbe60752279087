// Request edges on the BUILT app (Next in the loop, started as an operator starts it); like page-headers.test.ts, it
// runs when `.next` exists (always under `npm test`, which builds first) and once (the sqlite project).
// - `OPTIONS *` must not reach Next, which answers 500 and logs a stack (`Invalid URL, input '*'`) — any client could
//   fill the log; `GET http://evil.example/api/health` must not get a 308 to evil.example.
// - failpoints (test hooks) need `--test-hooks`, not merely an unset NODE_ENV (how `npm run serve` starts).
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type AppProcess } from '../../../bench/lib/server';
import { runBuiltApp, useBuiltApp } from '../../support/built-app';
import { freshDatabaseUrl } from '../../support/db';
import { until } from '../../support/fixtures';
import { rawRequest } from '../../support/http';

const run = runBuiltApp;

/** What a stack trace or Next's URL failure looks like in the server's output. */
const STACK = /\n\s+at \S|Invalid URL|TypeError/;

describe.runIf(run)('request targets that are not a path, with Next serving the pages', () => {
  const app = useBuiltApp();

  const host = () => new URL(app().url).host;
  const send = (line: string) => rawRequest(app().url, `${line}\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`);

  it('OPTIONS * is answered (204 with Allow), not a 500, and logs nothing', async () => {
    const before = app().output().length;
    for (let i = 0; i < 5; i++) {
      const r = await send('OPTIONS * HTTP/1.1');
      expect(r.status).toBe(204);
      expect(r.headers.allow).toContain('OPTIONS');
    }
    const get = await send('GET * HTTP/1.1');
    expect(get.status).toBe(400);
    await new Promise((r) => setTimeout(r, 200));
    expect(app().output().slice(before)).not.toMatch(STACK);
  });

  it('an absolute-form target naming another host is never redirected there', async () => {
    for (const target of ['http://evil.example/api/health', 'http://evil.example/', 'http://evil.example/signin']) {
      const r = await send(`GET ${target} HTTP/1.1`);
      expect(r.status, target).toBe(421);
      expect(r.headers.location, target).toBeUndefined();
    }
  });

  it('an absolute-form target naming this host reaches the page it names', async () => {
    const viaAbsolute = await send(`GET http://${host()}/signin HTTP/1.1`);
    const viaPath = await send('GET /signin HTTP/1.1');
    expect(viaAbsolute.status).toBeLessThan(500);
    expect(viaAbsolute.status).toBe(viaPath.status);
    expect(app().output()).not.toMatch(STACK);
  });
});

describe.runIf(run)('failpoints need an opt-in no start script gives', () => {
  const apps: AppProcess[] = [];
  afterAll(async () => {
    for (const a of apps) await a.stop();
  });

  it('started like `npm run serve` (NODE_ENV unset) with TETHER_FAILPOINTS=1: no test hooks, no warning', async () => {
    const app = await startApp(await freshDatabaseUrl(), { env: { NODE_ENV: undefined, TETHER_FAILPOINTS: '1' } });
    apps.push(app);
    const res = await fetch(`${app.url}/api/_test/failpoints`);
    expect(res.status).toBe(404);
    expect(app.output()).not.toContain('TEST HOOKS');
  }, 120_000);

  it('with --test-hooks as well: on, and the server says so loudly at start', async () => {
    const app = await startApp(await freshDatabaseUrl(), {
      env: { NODE_ENV: undefined, TETHER_FAILPOINTS: '1' },
      args: ['--test-hooks'],
    });
    apps.push(app);
    const res = await fetch(`${app.url}/api/_test/failpoints`);
    expect(res.status).toBe(200);
    await until(() => app.output().includes('WARNING: TEST HOOKS ARE ON'), 5_000, 'the warning line');
  }, 120_000);

  it('--test-hooks with NODE_ENV=production: still off', async () => {
    const app = await startApp(await freshDatabaseUrl(), { env: { TETHER_FAILPOINTS: '1' }, args: ['--test-hooks'] });
    apps.push(app);
    expect((await fetch(`${app.url}/api/_test/failpoints`)).status).toBe(404);
  }, 120_000);
});
