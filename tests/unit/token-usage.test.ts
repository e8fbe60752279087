// SPEC §11: API tokens show when they were last used, recorded without a write per request
// (src/server/domain/tokens/token-usage.ts): verifications only note the time; one write per interval carries the
// latest time of every token used since. The database side: tests/integration/auth/token-expiry.test.ts.
import { describe, expect, it } from 'vitest';
import { TokenUsage, type TokenUse } from '../../src/server/domain/tokens/token-usage';

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('TokenUsage', () => {
  it('many uses of a token within the interval become one write, with the latest time', async () => {
    const writes: TokenUse[][] = [];
    const usage = new TokenUsage(async (uses) => void writes.push(uses), 50);
    for (let i = 0; i < 100; i++) usage.note('a', 1_000 + i);
    usage.note('b', 5_000);
    usage.note('a', 1_050); // an earlier time never replaces a later one
    expect(writes).toEqual([]); // nothing is written by a use itself
    await sleep(120);
    expect(writes).toEqual([
      [
        { id: 'a', at: new Date(1_099).toISOString() },
        { id: 'b', at: new Date(5_000).toISOString() },
      ],
    ]);
    usage.note('a', 9_000);
    await sleep(120);
    expect(writes).toHaveLength(2);
    await usage.close();
  });

  it('a write that fails keeps its notes for the next one', async () => {
    const writes: TokenUse[][] = [];
    let fail = true;
    const errors: unknown[] = [];
    const usage = new TokenUsage(
      async (uses) => {
        if (fail) throw new Error('database unavailable');
        writes.push(uses);
      },
      60_000,
      (err) => errors.push(err),
    );
    usage.note('a', 1_000);
    await usage.flush();
    expect([errors.length, writes.length]).toEqual([1, 0]);
    fail = false;
    await usage.flush();
    expect(writes).toEqual([[{ id: 'a', at: new Date(1_000).toISOString() }]]);
    await usage.close();
  });

  it('close writes what is noted and schedules nothing more', async () => {
    const writes: TokenUse[][] = [];
    const usage = new TokenUsage(async (uses) => void writes.push(uses), 60_000);
    usage.note('a', 1_000);
    await usage.close();
    expect(writes).toEqual([[{ id: 'a', at: new Date(1_000).toISOString() }]]);
    usage.note('b', 2_000);
    await sleep(20);
    expect(writes).toHaveLength(1);
  });
});
