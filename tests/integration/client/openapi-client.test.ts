// The OpenAPI document is useful to an integrator. A program outside Tether (examples/rest-client)
// generates its types from the document the live server serves (openapi-typescript), type-checks against them — every
// misuse in src/misuse.ts refused — and runs its scenario through openapi-fetch on each dialect: create with an
// identity, retry (deduplicated), look up, release with a key, replay. The generated file is never committed.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { testDialect } from '../../support/db';
import type { TestWorkspace } from '../../support/fixtures';
import { makeToken, type TestApi, useApiWorld } from '../../support/http';
import {
  type CommandResult,
  generateTypes,
  makeRestClientProject,
  runRestScenario,
  typeCheckRestClient,
} from '../../support/rest-client-project';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
useApiWorld((w) => ({ db, api, ws } = w));

const apps: string[] = [];
afterAll(() => {
  for (const dir of apps) rmSync(dir, { recursive: true, force: true });
});

let generation: Promise<{ app: string; result: CommandResult }> | undefined;

/**
 * A fresh copy of the example with its types generated from the served document. The generator runs once per file
 * (the document is the same for each test); every test gets its own copy to change and check.
 */
async function generatedProject(): Promise<string> {
  generation ??= (async () => {
    const app = makeRestClientProject();
    apps.push(app);
    return { app, result: await generateTypes(app, api.url) };
  })();
  const { app: generated, result } = await generation;
  expect(result.status, result.output).toBe(0);
  const app = mkdtempSync(join(tmpdir(), 'tether-rest-app-'));
  apps.push(app);
  cpSync(generated, app, { recursive: true });
  return app;
}

describe('a client generated from the served OpenAPI document', () => {
  it('carries the meaning of the create flags where its reader sees them, and type-checks the example', async () => {
    const app = await generatedProject();
    const types = readFileSync(join(app, 'src/tether-api.d.ts'), 'utf8');
    // SPEC §3: said in the generated types themselves (JSDoc over the field), not only in prose elsewhere.
    const flag =
      /\/\*\* @description Required synchronous setup finished[^\n]*never a reason to release and retry\. \*\/\n\s*creation_complete: boolean;/g;
    expect(types.match(flag)).toHaveLength(2); // CreateTaskResult and LookupResult
    expect(types).toMatch(/\/\*\* @description true: nothing new was created[^\n]*\*\/\n\s*deduplicated: boolean;/);
    expect(types).toMatch(
      /header: \{\n\s*\/\*\* @description A UUID you generate once per release[^\n]*\*\/\n\s*"Idempotency-Key": string;/,
    );
    const check = await typeCheckRestClient(app);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });

  it.runIf(testDialect() === 'sqlite')(
    'a misuse that compiles is reported (the @ts-expect-error lines are live)',
    async () => {
      const app = await generatedProject();
      const misuse = join(app, 'src/misuse.ts');
      // Make the first misuse legal: its directive now meets no error, and the check must fail on that line.
      writeFileSync(
        misuse,
        readFileSync(misuse, 'utf8').replace("external_id: 123, title: 'T'", "external_id: '123', title: 'T'"),
      );
      const check = await typeCheckRestClient(app);
      expect(check.status).not.toBe(0);
      expect(check.output).toMatch(/src\/misuse\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
    },
  );

  it('runs the scenario against the live server: create, retry (deduplicated), look up, release with a key, replay', async () => {
    const app = await generatedProject();
    const token = await makeToken(db, [ws.id]);
    const ticket = `REST-${Date.now()}`;
    const r = await runRestScenario(app, {
      TETHER_URL: api.url,
      TETHER_TOKEN: token,
      TETHER_WORKSPACE: ws.id,
      TETHER_TICKET: ticket,
    });
    expect(r.status, r.output).toBe(0);
    const report = JSON.parse(r.output.trim().split('\n').at(-1)!) as Record<string, Record<string, unknown>>;
    const id = report.first!.id as string;
    expect(report).toEqual({
      first: { id, report: 'created', external_id: `jira:${ticket}` },
      retry: { id, report: 'already there', title: `Fix ${ticket}` },
      holder: { id, creation_complete: true },
      release: { status: 204, replay: 204 },
      after: { status: 404, error: 'task not found' },
      kept: { id, external_id: null },
    });

    // What the server stored: one task, kept without its identity; one release, by REST, replayed not repeated.
    const rows = await db.query<{ id: string; external_id: string | null }>(
      'SELECT id, external_id FROM tasks WHERE workspace_id = $1 AND title = $2',
      [ws.id, `Fix ${ticket}`],
    );
    expect(rows).toEqual([{ id, external_id: null }]);
    const releases = await db.query<{ result_status: unknown; source: string }>(
      'SELECT result_status, source FROM release_operations WHERE workspace_id = $1',
      [ws.id],
    );
    expect(releases.map((x) => [Number(x.result_status), x.source])).toEqual([[204, 'rest']]);
  });
});
