// `GET /api/v1/openapi.json`: the OpenAPI document of the routes the server really has, computed from their schemas
// when the router loads (./router.ts; ~40 ms, too much to spend per request on a public route). Public on purpose: it
// describes the contract, never data, and tools (code generators, the reference page at /docs/api) fetch it without a
// token.
import { z } from 'zod';
import { sendJson } from '../http/body';
import type { OpenApiDocument } from './openapi';
import type { RestRoute } from './route';

/** The route, given the document it serves (computed by the router from its table, this route included). */
export function documentRoute(document: () => OpenApiDocument): RestRoute {
  return {
    method: 'GET',
    path: '/openapi.json',
    public: true,
    doc: {
      operationId: 'getOpenApiDocument',
      tag: 'Reference',
      summary: 'This document',
      description:
        'The OpenAPI 3.1 document of /api/v1, computed from the schemas the server validates with. No credentials needed.',
      ok: { status: 200, description: 'The document.', schema: z.looseObject({ openapi: z.literal('3.1.0') }) },
      errors: [],
    },
    async handle(r) {
      sendJson(r.res, 200, document());
    },
  };
}
