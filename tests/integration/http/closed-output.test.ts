// The server's log reader goes away (a collector restarting, `npm start | head`): every later log line fails with
// EPIPE. Found by the bench, whose orphaned server did this: with no listener on stdout/stderr each failed write was
// an uncaught exception, which Next's handler reported on stderr, which failed again — the process spun at ~75 % of
// a core for as long as it lived. The server must go on serving, quietly (src/server/main.ts).
// Started as an operator starts it (the built app, Next in the loop); like built-app-edges.test.ts it runs when
// `.next` exists (always under `npm test`, which builds first) and once (the sqlite project). Linux: reads /proc.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBuiltApp, useBuiltApp } from '../../support/built-app';

/** CPU time the process has used so far, in clock ticks (1/100 s): utime + stime from /proc/<pid>/stat. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe.runIf(runBuiltApp)('a server whose output reader went away', () => {
  const built = useBuiltApp();

  it('keeps answering and does not spin on the failed writes', async () => {
    const app = built();
    app.closeOutput();
    // Each request writes a log line into the closed pipe; a 404 under /api and a page request too.
    for (const path of ['/api/health', '/api/nothing-here', '/api/health', '/signin', '/api/health']) {
      const r = await fetch(app.url + path);
      expect(r.status, path).toBeLessThan(500);
    }
    await new Promise((r) => setTimeout(r, 500)); // let the failed writes report (the loop started within this)
    const before = cpuTicks(app.pid);
    await new Promise((r) => setTimeout(r, 2_000));
    const used = cpuTicks(app.pid) - before;
    // An idle server uses a few ticks in 2 s (timers, the relay); the loop used ~150. Half a core is the line.
    expect(used).toBeLessThan(100);
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
  });
});
