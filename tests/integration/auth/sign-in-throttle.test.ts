// SPEC §11: console sign-in is throttled per account and per client address — 429 with a Retry-After that grows with
// repeated failures, kept in the database, answered the same for an email nobody has. (It used to take 60 wrong
// passwords in 4.9 s, all 401, and then the right one.) Two server processes sharing it: sign-in-processes.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountKey } from '../../../src/server/auth/sign-in-throttle';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import type { DomainError } from '../../../src/server/domain/errors/domain-error';
import { createUser } from '../../../src/server/domain/users/create-user';
import { signInWithPassword } from '../../../src/server/domain/users/sign-in';
import { freshDb } from '../../support/db';
import { count, makeWorkspace, uniq } from '../../support/fixtures';
import { call, startTestApi, type CallResult, type TestApi } from '../../support/http';

const PASSWORD = 'the right password';

function login(api: TestApi, email: string, password: string): Promise<CallResult> {
  return call(api.url, 'POST', '/api/trpc/session.login', { body: { email, password } });
}

/** What a sign-in answered, in the words a test compares: status, Retry-After and the message. */
function outcome(res: CallResult): [number, string | null, string] {
  const message = (res.json as { error?: { message: string } }).error?.message ?? 'signed in';
  return [res.status, res.headers.get('retry-after'), message];
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

interface World {
  db: Db;
  api: TestApi;
  /** A new person with PASSWORD; their email. */
  newAccount(): Promise<string>;
}

/** A fresh database and server whose per-address allowance is `addressFailures` (0: none), for this describe. */
function useWorld(addressFailures: number): World {
  const world = {} as World;
  let workspaceId: string;
  beforeAll(async () => {
    world.db = await freshDb();
    const config = loadConfig();
    world.api = await startTestApi(world.db, {
      config: { ...config, failpointsEnabled: true, auth: { ...config.auth, signInAddressFailures: addressFailures } },
    });
    workspaceId = (await makeWorkspace(world.db)).id;
  });
  afterAll(async () => world.api.close());
  world.newAccount = async () => {
    const email = `${uniq('person')}@example.test`;
    await createUser(world.api.services.store, {
      email,
      password: PASSWORD,
      role: 'viewer',
      workspaceIds: [workspaceId],
    });
    return email;
  };
  return world;
}

describe('per account (the address allowance set out of the way)', () => {
  // Every attempt in this file comes from 127.0.0.1: leave the address alone here; it has its own block below.
  const world = useWorld(0);
  const newAccount = () => world.newAccount();
  let db: Db;
  let api: TestApi;
  beforeAll(() => {
    ({ db, api } = world);
  });

  /** Five wrong passwords, then what the account answers: the right password is refused while it waits. */
  async function lockOut(email: string): Promise<Array<ReturnType<typeof outcome>>> {
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(outcome(await login(api, email, `wrong ${i}`)));
    seen.push(outcome(await login(api, email, PASSWORD)));
    return seen;
  }

  it('five wrong passwords are free; then even the right one is 429 with Retry-After, and nothing is signed in', async () => {
    const email = await newAccount();
    const wrong: ReturnType<typeof outcome> = [401, null, 'authentication required: email or password is wrong'];
    expect(await lockOut(email)).toEqual([
      wrong,
      wrong,
      wrong,
      wrong,
      wrong,
      [429, '1', 'too many sign-in attempts: try again in 1 second'],
    ]);
    const res = await login(api, email, PASSWORD);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(
      (res.json as { error: { data: { code: string; domainCode: string; retryAfterSeconds: number } } }).error.data,
    ).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      domainCode: 'sign_in_throttled',
      retryAfterSeconds: 1,
    });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM sessions')).toBe(0);
  });

  /**
   * As if `ms` had gone by for the account: its latest failure moved that far back. A key's wait is counted from that
   * one time (auth/sign-in-throttle.ts), so this is the state the clock would have made — without sleeping 6 s.
   */
  async function timePasses(email: string, ms: number): Promise<void> {
    const row = await db.one<{ last_failure_at: unknown }>(
      'SELECT last_failure_at FROM sign_in_throttles WHERE key = $1',
      [accountKey(email)],
    );
    const earlier = new Date(Date.parse(new Date(row!.last_failure_at as string | Date).toISOString()) - ms);
    await db.run('UPDATE sign_in_throttles SET last_failure_at = $2 WHERE key = $1', [
      accountKey(email),
      earlier.toISOString(),
    ]);
  }

  it('the wait doubles with each further failure, and a success resets the account', async () => {
    const email = await newAccount();
    await lockOut(email);
    await sleep(1100); // the first wait runs out on the real clock
    expect((await login(api, email, 'wrong again')).status).toBe(401);
    expect(outcome(await login(api, email, 'wrong again'))).toEqual([
      429,
      '2',
      'too many sign-in attempts: try again in 2 seconds',
    ]);
    await timePasses(email, 1000);
    expect(outcome(await login(api, email, PASSWORD)).slice(0, 2)).toEqual([429, '1']); // not a moment early
    await timePasses(email, 1100);
    expect((await login(api, email, 'and again')).status).toBe(401);
    expect(outcome(await login(api, email, PASSWORD)).slice(0, 2)).toEqual([429, '4']);
    await timePasses(email, 4100);
    expect((await login(api, email, PASSWORD)).status).toBe(200);
    // Reset: the next mistakes are free again.
    for (let i = 0; i < 5; i++) expect((await login(api, email, `typo ${i}`)).status).toBe(401);
  });

  it('an email nobody has is throttled exactly like a real account (same statuses, waits and words)', async () => {
    const unknown = `${uniq('nobody')}@example.test`;
    const unknownAnswers = await lockOut(unknown);
    // The email as typed, normalized: other spellings of it are the same account key.
    expect(outcome(await login(api, `  ${unknown.toUpperCase()} `, 'x')).slice(0, 2)).toEqual([429, '1']);
    expect(unknownAnswers).toEqual(await lockOut(await newAccount()));
  });

  it('a burst of concurrent guesses gets at most the free five checked; the rest wait and do no password work', async () => {
    const email = await newAccount();
    // All at the same moment (the domain function takes the clock): over HTTP on a loaded machine a burst can spread
    // past the first 1 s wait, and a guess after it is rightly let through.
    const now = new Date();
    const attempts = Array.from({ length: 30 }, (_, i) =>
      signInWithPassword(
        api.services.store,
        { addressFailures: 0 },
        { email, password: `guess ${i}`, clientAddress: '203.0.113.9' },
        now,
      ).then(
        () => 'signed in',
        (err: DomainError) => err.code,
      ),
    );
    const codes = await Promise.all(attempts);
    expect(codes.filter((c) => c === 'unauthenticated').length).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c !== 'unauthenticated' && c !== 'sign_in_throttled')).toEqual([]);
    expect((await login(api, email, PASSWORD)).status).toBe(429);
  });

  it('the counts live in the database, by digest: neither the email nor the address is stored', async () => {
    const email = await newAccount();
    await login(api, email, 'wrong');
    expect(await db.one('SELECT failures FROM sign_in_throttles WHERE key = $1', [accountKey(email)])).toEqual({
      failures: 1,
    });
    for (const { key } of await db.query<{ key: string }>('SELECT key FROM sign_in_throttles'))
      expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('per client address (TETHER_SIGNIN_ADDRESS_FAILURES)', () => {
  const world = useWorld(3);
  let db: Db;
  let api: TestApi;
  beforeAll(() => {
    ({ db, api } = world);
  });

  it('one address failing over many accounts is throttled; a success from it only takes back its own attempt', async () => {
    const email = await world.newAccount();
    expect((await login(api, `${uniq('a')}@example.test`, 'x')).status).toBe(401);
    expect((await login(api, email, PASSWORD)).status).toBe(200); // not counted against the address
    expect((await login(api, `${uniq('b')}@example.test`, 'x')).status).toBe(401);
    expect((await login(api, `${uniq('c')}@example.test`, 'x')).status).toBe(401);
    // Three failures from this address, each on a different account: the fourth account is refused too.
    expect(outcome(await login(api, `${uniq('d')}@example.test`, 'x')).slice(0, 2)).toEqual([429, '1']);
    // And while it waits, nothing it sends counts against the accounts it names.
    expect(await count(db, 'SELECT COUNT(*) AS n FROM sign_in_throttles WHERE failures > 0')).toBe(4);
  });

  it('the batched form the console sends carries Retry-After too', async () => {
    const res = await call(api.url, 'POST', '/api/trpc/session.login?batch=1', {
      body: { 0: { email: `${uniq('e')}@example.test`, password: 'x' } },
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(
      (res.json as Array<{ error: { data: { retryAfterSeconds: number } } }>)[0]!.error.data.retryAfterSeconds,
    ).toBeGreaterThanOrEqual(1);
  });
});
