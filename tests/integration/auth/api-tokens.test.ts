// SPEC §11: API tokens are shown once, stored hashed, compared in constant time, and a
// revoked token stops working on the next request.
import {
  createApiToken,
  listApiTokens,
  revokeApiToken,
  verifyApiToken,
} from '../../../src/server/domain/tokens/api-tokens';
import { TokenCache } from '../../../src/server/domain/tokens/token-cache';
import { describe, expect, it as base } from '../../support/database-test';

// A token cache of each test's own, and a token on the file's workspace made with `scopes`.
const it = base
  .extend('cache', async () => new TokenCache(2000))
  .extend(
    'make',
    { scope: 'file' },
    async ({ store, ws }) =>
      (scopes = ['tasks:read', 'tasks:write']) =>
        createApiToken(store, { name: 'ci bot', workspaceIds: [ws.id], scopes }),
  );

describe('API tokens (SPEC §11)', () => {
  it('creates a token shaped tth_<id>_<secret> that verifies with its grants and scopes', async ({
    store,
    ws,
    cache,
    make,
  }) => {
    const { id, token } = await make();
    expect(token).toMatch(new RegExp(`^tth_${id}_[A-Za-z0-9_-]{43}$`));
    expect(await verifyApiToken(store, token, cache)).toEqual({
      id,
      name: 'ci bot',
      scopes: ['tasks:read', 'tasks:write'],
      workspaceIds: [ws.id],
      expiresAt: null,
    });
  });

  it('refuses a wrong secret for a real token id', async ({ store, cache, make }) => {
    const { id, token } = await make();
    const secret = token.slice(`tth_${id}_`.length);
    const wrong = `tth_${id}_${secret[0] === 'A' ? 'B' : 'A'}${secret.slice(1)}`;
    expect(await verifyApiToken(store, wrong, cache)).toBeNull();
  });

  it('refuses a wrong secret even while the right one is cached', async ({ store, cache, make }) => {
    const { id, token } = await make();
    expect(await verifyApiToken(store, token, cache)).not.toBeNull();
    expect(await verifyApiToken(store, `tth_${id}_${'A'.repeat(43)}`, cache)).toBeNull();
  });

  it('refuses malformed and unknown tokens', async ({ store, cache }) => {
    for (const bad of [
      '',
      'tth_',
      'Bearer x',
      `tth_00000000-0000-0000-0000-000000000000_${'A'.repeat(43)}`,
      'tth_not-a-uuid_abc',
    ]) {
      expect(await verifyApiToken(store, bad, cache)).toBeNull();
    }
  });

  it('stores only a digest: no column of the row contains the secret', async ({ db, make }) => {
    const { id, token } = await make();
    const secret = token.split('_').slice(2).join('_');
    const row = await db.one<Record<string, unknown>>('SELECT * FROM api_tokens WHERE id = $1', [id]);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(String(row!.secret_hash)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stops verifying on the very next request after revoke, even when it was cached', async ({
    store,
    cache,
    make,
  }) => {
    const { id, token } = await make();
    expect(await verifyApiToken(store, token, cache)).not.toBeNull();
    await revokeApiToken(store, id, cache);
    expect(await verifyApiToken(store, token, cache)).toBeNull();
  });

  it('stops verifying within 2 s of a revoke made by another process', async ({ db, store, cache, make }) => {
    const { id, token } = await make();
    expect(await verifyApiToken(store, token, cache)).not.toBeNull();
    // Another process revoking = the row changes without this process's cache hearing about it.
    await db.run('UPDATE api_tokens SET revoked_at = $2 WHERE id = $1', [id, new Date().toISOString()]);
    await new Promise((r) => setTimeout(r, 2100));
    expect(await verifyApiToken(store, token, cache)).toBeNull();
  });

  it('costs at most one statement to verify, and none on a cache hit', async ({ db, store, cache, make }) => {
    const { token } = await make();
    const before = db.stats.statements;
    await verifyApiToken(store, token, cache);
    expect(db.stats.statements - before).toBe(1);
    await verifyApiToken(store, token, cache);
    expect(db.stats.statements - before).toBe(1);
  });

  it('lists tokens with grants and revocation, never a secret or digest', async ({ store, ws, cache, make }) => {
    const { id, token } = await make(['identities:release']);
    await revokeApiToken(store, id, cache);
    const listed = (await listApiTokens(store)).find((t) => t.id === id);
    expect(listed).toMatchObject({ id, name: 'ci bot', scopes: ['identities:release'], workspaceIds: [ws.id] });
    expect(listed!.revokedAt).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(token.split('_').slice(2).join('_'));
    expect(Object.keys(listed!)).not.toContain('secretHash');
  });

  it('refuses unknown scopes, no scopes, no workspace and a missing workspace', async ({ store, ws }) => {
    await expect(createApiToken(store, { name: 'x', workspaceIds: [ws.id], scopes: ['tasks:delete'] })).rejects.toThrow(
      /unknown scope/,
    );
    await expect(createApiToken(store, { name: 'x', workspaceIds: [ws.id], scopes: [] })).rejects.toThrow(
      /at least one scope/,
    );
    await expect(createApiToken(store, { name: 'x', workspaceIds: [], scopes: ['tasks:read'] })).rejects.toThrow(
      /at least one workspace/,
    );
    await expect(
      createApiToken(store, { name: 'x', workspaceIds: ['missing'], scopes: ['tasks:read'] }),
    ).rejects.toThrow(/not found/);
  });

  it('refuses to revoke an unknown token', async ({ store }) => {
    await expect(revokeApiToken(store, 'no-such-token')).rejects.toThrow(/not found/);
  });
});
