// SPEC §11: the sign-in throttle is "shared by every server process through the database" — failures made against
// one process count on the other, so spreading guesses over a fleet buys an attacker nothing. Two real server
// processes on one database (SQLite file or PostgreSQL).
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { createUser } from '../../../src/server/domain/users/create-user';
import { storeFor } from '../../support/db';
import { makeWorkspace, uniq } from '../../support/fixtures';
import { call } from '../../support/http';
import { useServerProcesses, type ServerProcess } from '../../support/processes';

let db: Db;
let servers: ServerProcess[] = [];
let workspaceId: string;

useServerProcesses(
  async (w) => {
    ({ db, servers } = w);
    workspaceId = (await makeWorkspace(db)).id;
  },
  // Both processes see every attempt from 127.0.0.1; this file is about the account key.
  { env: { TETHER_SIGNIN_ADDRESS_FAILURES: '0' } },
);

const login = (server: ServerProcess, email: string, password: string) =>
  call(server.url, 'POST', '/api/trpc/session.login', { body: { email, password } });

describe('two server processes', () => {
  it('failures alternated between the two processes add up: the sixth attempt is refused by either', async () => {
    const email = `${uniq('shared')}@example.test`;
    await createUser(storeFor(db), {
      email,
      password: 'the right password',
      role: 'viewer',
      workspaceIds: [workspaceId],
    });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await login(servers[i % 2]!, email, `wrong ${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    // The fifth failure was made on the first process: the second refuses the right password now, and so does the first.
    const onSecond = await login(servers[1]!, email, 'the right password');
    expect([onSecond.status, onSecond.headers.get('retry-after')]).toEqual([429, '1']);
    expect((await login(servers[0]!, email, 'the right password')).status).toBe(429);
  });

  it('a success on one process resets the account for both', async () => {
    const email = `${uniq('reset')}@example.test`;
    await createUser(storeFor(db), {
      email,
      password: 'the right password',
      role: 'viewer',
      workspaceIds: [workspaceId],
    });
    for (let i = 0; i < 4; i++) expect((await login(servers[i % 2]!, email, `wrong ${i}`)).status).toBe(401);
    expect((await login(servers[0]!, email, 'the right password')).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await login(servers[1]!, email, `typo ${i}`)).status).toBe(401);
    expect((await login(servers[0]!, email, 'typo')).status).toBe(429);
  });
});
