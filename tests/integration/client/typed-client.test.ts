// SPEC §10 "Typed client package": a TypeScript developer's project, outside Tether, installs it
// by path and imports only `tether/client` (built by the same script as `npm run build`). Its example
// (examples/typed-client) must type-check under a fresh Vite (react-ts) and a fresh create-next-app tsconfig without
// reading Tether's server sources or Node's types — every misuse in src/misuse.ts caught, the result types pinned in
// src/type-assertions.ts — and run green against a live server, on each dialect. The declarations are built once, on
// the sqlite project; the postgres project builds the JavaScript alone and runs the example.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { testDialect } from '../../support/db';
import {
  buildClientPackage,
  makeClientProject,
  runStrictCheck,
  runExample,
  typeCheck,
  type Template,
} from '../../support/client-project';
import type { TestWorkspace } from '../../support/fixtures';
import { makeToken, type TestApi, useApiWorld } from '../../support/http';

const withTypes = testDialect() === 'sqlite';
let pkg: string;
const apps: string[] = [];

beforeAll(() => {
  pkg = buildClientPackage({ types: withTypes });
}, 180_000);
afterAll(() => {
  for (const dir of [pkg, ...apps]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(withTypes)('the built declarations, in fresh client projects', () => {
  it('stand alone: no server module, no Node type, nothing but @trpc/*', () => {
    const dts = readFileSync(join(pkg, 'dist/client/index.d.ts'), 'utf8');
    const imports = [...dts.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(new Set(imports)).toEqual(
      new Set(['@trpc/server', '@trpc/server/unstable-core-do-not-import', '@trpc/client']),
    );
    expect(
      dts.match(/\bBuffer\b|NodeJS\.|node:|types="node"|\bServices\b|\bStore\b|Prisma|better-sqlite3|from 'pg'/g) ?? [],
    ).toEqual([]);
    // Strictest reading (skipLibCheck off, no @types at all): not one diagnostic in Tether's own declaration file.
    expect(runStrictCheck(pkg)).toEqual([]);
  });

  it.each(['vite', 'next'] as const)(
    '%s: the example type-checks, misuse and type assertions included',
    (template: Template) => {
      const app = makeClientProject(template, pkg);
      apps.push(app);
      const r = typeCheck(template, app, { listFiles: true });
      expect(r.output).toBe('');
      expect(r.status).toBe(0);
      // What the check read: the package's one declaration file, never a server source; no Node types for Vite's app.
      const files = r.files;
      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((f) => f.includes('/src/server/') || f.includes('/src/client/'))).toEqual([]);
      expect(files.filter((f) => /@types\/(pg|better-sqlite3)\//.test(f))).toEqual([]);
      expect(files.filter((f) => f.startsWith(pkg))).toEqual([join(pkg, 'dist/client/index.d.ts')]);
      if (template === 'vite') expect(files.filter((f) => f.includes('@types/node'))).toEqual([]);
    },
  );

  it('a misuse that compiles is reported (the @ts-expect-error lines are live, not decoration)', () => {
    const app = makeClientProject('vite', pkg);
    apps.push(app);
    const misuse = join(app, 'src/misuse.ts');
    // Make the first misuse legal: its directive now meets no error, and the check must fail on that line.
    writeFileSync(
      misuse,
      readFileSync(misuse, 'utf8').replace("external_id: 123, title: 'T'", "external_id: '123', title: 'T'"),
    );
    const r = typeCheck('vite', app);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/src\/misuse\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
  });
});

describe('the example against a live server', () => {
  let db: Db;
  let api: TestApi;
  let ws: TestWorkspace;
  useApiWorld((w) => ({ db, api, ws } = w));

  it('creates, deduplicates, hears the event, looks up, releases and retries with one key, and recreates', async () => {
    const app = makeClientProject('vite', pkg);
    apps.push(app);
    const token = await makeToken(db, [ws.id]);
    const ticket = `PROJ-${Date.now()}`;
    const r = await runExample(app, {
      TETHER_URL: api.url,
      TETHER_TOKEN: token,
      TETHER_WORKSPACE: ws.id,
      TETHER_TICKET: ticket,
    });
    expect(r.status, r.output).toBe(0);
    const report = JSON.parse(r.output.trim().split('\n').at(-1)!) as {
      first: { id: string; report: string };
      redelivery: { id: string; report: string };
      event: { type: string; taskId: string; seq: number };
      holder: { id: string; creationComplete: boolean } | null;
      release: { released: boolean; replayed: boolean; holderTaskId: string };
      retry: { replayed: boolean; sameRelease: boolean };
      afterRelease: { holder: string | null; nobody: string };
      reborn: { id: string; report: string };
    };
    const id = report.first.id;
    expect(report).toEqual({
      first: { id, report: 'created' },
      redelivery: { id, report: 'already there' },
      event: { type: 'task.created', taskId: id, seq: expect.any(Number) },
      holder: { id, creationComplete: true },
      release: { released: true, replayed: false, holderTaskId: id },
      retry: { replayed: true, sameRelease: true },
      afterRelease: { holder: null, nobody: 'nothing holds it' },
      reborn: { id: expect.not.stringMatching(id), report: 'created' },
    });

    // What the server stored: two tasks, the first kept without its identity, the second holding it; one release.
    const rows = await db.query<{ id: string; external_id: string | null }>(
      'SELECT id, external_id FROM tasks WHERE workspace_id = $1 ORDER BY number',
      [ws.id],
    );
    expect(rows).toEqual([
      { id, external_id: null },
      { id: report.reborn.id, external_id: `jira:${ticket}` },
    ]);
    const releases = await db.query<{ result_status: unknown; source: string }>(
      'SELECT result_status, source FROM release_operations WHERE workspace_id = $1 ORDER BY created_at',
      [ws.id],
    );
    expect(releases.map((r) => [Number(r.result_status), r.source])).toEqual([
      [204, 'trpc'],
      [404, 'trpc'],
    ]);
  });
});
