// The OpenAPI document of /api/v1 is valid, lists exactly the routes the router has, and is computed from
// their zod schemas — a schema change shows up in it with nothing to regenerate, and the file `npm run build` writes is
// the same value the server serves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError, ERRORS, type ErrorCode } from '../../src/server/domain/errors/domain-error';
import { wholeNumber } from '../../src/server/domain/paging';
import { ZTaskListParams } from '../../src/server/domain/tasks/list-params';
import { ZTaskBody } from '../../src/server/domain/tasks/schemas';
import { buildOpenApiDocument, openApiPath } from '../../src/server/rest/openapi';
import { errorComponentName } from '../../src/server/rest/openapi-errors';
import type { RestRoute } from '../../src/server/rest/route';
import { openApiDocument, restRoutes } from '../../src/server/rest/router';

const ROOT = resolve(import.meta.dirname, '../..');
type Operation = {
  operationId: string;
  parameters?: Array<{ name: string; schema: Record<string, unknown> }>;
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};
const operationOf = (doc: { paths: Record<string, Record<string, unknown>> }, path: string, method: string) =>
  doc.paths[openApiPath(path)]?.[method.toLowerCase()] as Operation | undefined;
const routeOf = (method: string, path: string) => restRoutes.find((r) => r.method === method && r.path === path)!;

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended-strict rules with no problem at all", async () => {
    // `info-license` is off: Tether is a private project and states no licence for its API.
    const config = await createConfig({ extends: ['recommended-strict'], rules: { 'info-license': 'off' } });
    const problems = await lintFromString({
      source: JSON.stringify(openApiDocument),
      absoluteRef: '/api/v1/openapi.json',
      config,
    });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('describes every route the router answers, and nothing else', () => {
    const listed = Object.entries(openApiDocument.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(listed.sort()).toEqual(restRoutes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort());
    expect(restRoutes.length).toBeGreaterThanOrEqual(17); // SPEC §10's routes, events, webhooks, attachments, the document
  });

  it('says where the generated client\'s reader sees it that creation_complete:false never means "release and retry"', () => {
    const result = openApiDocument.components as {
      schemas: Record<string, { properties: Record<string, { description?: string }> }>;
    };
    for (const name of ['CreateTaskResult', 'LookupResult']) {
      expect(result.schemas[name]!.properties.creation_complete!.description).toMatch(
        /may still be running: never a reason to release and retry/,
      );
    }
    expect(result.schemas.CreateTaskResult!.properties.deduplicated!.description).toMatch(/nothing new was created/);
  });

  it('is computed from the route schemas: a changed query schema shows up with nothing regenerated', () => {
    const list = routeOf('GET', '/workspaces/:workspace_id/tasks');
    const limitOf = (doc: ReturnType<typeof buildOpenApiDocument>) =>
      operationOf(doc, list.path, 'GET')!.parameters!.find((p) => p.name === 'limit')!.schema;
    expect(limitOf(openApiDocument)).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    const widened: RestRoute = {
      ...list,
      doc: { ...list.doc, query: ZTaskListParams.extend({ limit: wholeNumber(1, 300).optional() }) },
    } as RestRoute;
    const doc = buildOpenApiDocument(restRoutes.map((r) => (r === list ? widened : r)));
    expect(limitOf(doc)).toMatchObject({ type: 'integer', minimum: 1, maximum: 300 });
  });

  it('is computed from the response schemas: a field added to a response shows up in it', () => {
    const get = routeOf('GET', '/tasks/:id');
    const changed = {
      ...get,
      doc: { ...get.doc, ok: { ...get.doc.ok, schema: ZTaskBody.extend({ priority: z.number().int() }) } },
    } as RestRoute;
    const doc = buildOpenApiDocument(restRoutes.map((r) => (r === get ? changed : r)));
    const schema = operationOf(doc, get.path, 'GET')!.responses['200']!.content!['application/json']!.schema;
    expect(schema).toMatchObject({
      properties: { priority: { type: 'integer' } },
      required: expect.arrayContaining(['priority']),
    });
    expect(
      operationOf(openApiDocument, get.path, 'GET')!.responses['200']!.content!['application/json']!.schema,
    ).toEqual({ $ref: '#/components/schemas/Task' });
  });

  it('holds each error to the exact body of the one error table, detail and all', () => {
    const ajv = new Ajv2020({ strict: false });
    const schemas = (openApiDocument.components as { schemas: Record<string, object> }).schemas;
    const codes = (Object.keys(ERRORS) as ErrorCode[]).filter((c) => schemas[errorComponentName(c)]);
    expect(codes).toEqual(
      expect.arrayContaining(['task_not_found', 'creation_completing', 'idempotency_key_conflict', 'invalid_payload']),
    );
    for (const code of codes) {
      const validate = ajv.compile(schemas[errorComponentName(code)]!);
      expect(validate(new DomainError(code).body()), code).toBe(true);
      expect(validate({ error: 'something else' }), code).toBe(false);
    }
    // SPEC §7: the two conflicts carry their code; the body without it is not theirs.
    const completing = ajv.compile(schemas.CreationCompletingError!);
    expect(completing({ error: 'creation is completing; retry shortly' })).toBe(false);
    // A detail only where the table's users give one.
    expect(
      ajv.compile(schemas.InvalidPayloadError!)({ error: 'invalid payload: external_id given more than once' }),
    ).toBe(true);
    expect(ajv.compile(schemas.TaskNotFoundError!)({ error: 'task not found: somewhere' })).toBe(false);
  });

  it('`npm run build` writes the very document the server serves (scripts/build-openapi.ts)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-openapi-'));
    try {
      const out = join(dir, 'openapi.json');
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-openapi.ts', '--out', out], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(openApiDocument);
      expect(buildOpenApiDocument(restRoutes)).toEqual(openApiDocument);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
