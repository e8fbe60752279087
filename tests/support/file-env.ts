// Environment settings for one test file. The integration projects run several files in one worker process
// (vitest.config.ts, `isolate: false`), so a variable a file sets must not outlive it: it is set now, at the file's
// top level (before its servers and services read the configuration), and put back as it was after the file's tests.
import { afterAll } from 'vitest';

/** Sets (or, with `undefined`, removes) environment variables for the rest of this test file. */
export function setFileEnv(vars: Record<string, string | undefined>): void {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  afterAll(() => apply(before));
}
