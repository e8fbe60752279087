// The OpenAPI 3.1 document of /api/v1, computed from the REST route table (./router.ts) and the zod schemas its
// handlers and the domain parse with — never written by hand. zod 4's own JSON Schema output (`z.toJSONSchema`, draft
// 2020-12: OpenAPI 3.1's dialect) turns each schema into the document's, so there is no second reading of zod. Served
// at /api/v1/openapi.json and written to dist/openapi.json by `npm run build` (scripts/build-openapi.ts).
import { z } from 'zod';
import { ERRORS, retryAfterOf, type ErrorCode } from '../domain/errors/domain-error';
import { ZAttachmentBody, ZAttachmentForm } from '../domain/attachments/schemas';
import {
  ZCreateWebhookInput,
  ZDeliveryList,
  ZEventPage,
  ZEventRecord,
  ZRevisionList,
  ZWebhookBody,
  ZWebhookCreated,
  ZWebhookList,
} from '../domain/events/schemas';
import {
  ZCreateTaskRequest,
  ZCreateTaskResult,
  ZLookupResult,
  ZTaskBody,
  ZTaskPage,
  ZUpdateTaskInput,
} from '../domain/tasks/schemas';
import { ZWorkspaceDeletion } from '../domain/workspaces/schemas';
import {
  BODY_ERRORS,
  errorBodySchema,
  errorComponentName,
  EVERY_ROUTE_ERRORS,
  MUTATION_ERRORS,
  PUBLIC_ROUTE_ERRORS,
} from './openapi-errors';
import type { RestRoute, RouteDoc } from './route';

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = {
  openapi: '3.1.0';
  paths: Record<string, Record<string, Record<string, unknown>>>;
} & Record<string, unknown>;

/** Schemas the document names (components) rather than repeats; the generated client's types carry these names. */
const REQUEST_COMPONENTS: ReadonlyArray<[string, z.ZodType]> = [
  ['CreateTaskRequest', ZCreateTaskRequest],
  ['UpdateTaskRequest', ZUpdateTaskInput],
  ['CreateWebhookRequest', ZCreateWebhookInput],
  ['AttachmentUpload', ZAttachmentForm],
];
const RESPONSE_COMPONENTS: ReadonlyArray<[string, z.ZodType]> = [
  ['Task', ZTaskBody],
  ['CreateTaskResult', ZCreateTaskResult],
  ['LookupResult', ZLookupResult],
  ['TaskPage', ZTaskPage],
  ['RevisionList', ZRevisionList],
  ['EventRecord', ZEventRecord],
  ['EventPage', ZEventPage],
  ['Webhook', ZWebhookBody],
  ['WebhookCreated', ZWebhookCreated],
  ['WebhookList', ZWebhookList],
  ['DeliveryList', ZDeliveryList],
  ['Attachment', ZAttachmentBody],
  ['WorkspaceDeletion', ZWorkspaceDeletion],
];

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body too large',
  429: 'Too many requests',
  500: 'Server error',
  503: 'Unavailable',
};

const DESCRIPTION = `The REST surface of Tether (SPEC §10): tasks keyed by an \`external_id\` you already own. **The same external
thing lands on the same task, no matter how often, how concurrently, or how long after it is sent.**

- Authenticate with \`Authorization: Bearer <token>\` (\`tether token create\`). Without a valid credential every
  route answers 401; a workspace you may not access answers the route's 404, byte for byte the same whether or not
  anything exists there (SPEC §11).
- Bodies are JSON in snake_case. Errors are \`{"error": "<message>"}\`, plus \`code\` for the SPEC §7 conflicts; each
  status below lists the exact bodies.
- A create answers 200 with two booleans (SPEC §3): \`deduplicated\` (true: nothing new was created) and
  \`creation_complete\`. \`deduplicated: true, creation_complete: false\` means another create holds the identity and
  may still be running; it never means "safe to release and retry". Duplicates are never 409/410.
- No tombstones: after a delete or a release the same \`external_id\` creates a new task.
- A path this document does not list answers 404 \`{"error":"not found"}\`; a listed path with another method answers
  405 \`{"error":"method not allowed"}\`.`;

const TAGS: Record<RouteDoc['tag'], string> = {
  Tasks: 'Create (find-or-create by `external_id`), read, change, archive and delete tasks (SPEC §4, §8).',
  Identity: 'Look up the task holding an external identity, and release an identity (SPEC §7).',
  Events: 'Revisions and the transactional outbox: history pages and a live stream (SPEC §9).',
  Webhooks: "Deliver a workspace's events to your URL, signed, at least once (SPEC §9). Admin only.",
  Attachments: 'Files uploaded before a create, claimed by the create that names them (SPEC §5).',
  Workspaces: 'Workspace deletion (SPEC §8). Admin only.',
  Reference: 'This document.',
};

/** This document's own version: the /api/v1 contract, revised compatibly. */
export const API_VERSION = '1.0.0';

const toJson = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema =>
  strip(z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as JsonSchema);

/** `$schema` and registry `$id`s belong to stand-alone JSON Schemas, not to an OpenAPI document's parts. */
function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** Named schemas as components; a component that contains another named one refers to it. */
function components(entries: ReadonlyArray<[string, z.ZodType]>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of entries) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(Object.entries(schemas).map(([id, s]) => [id, strip(s)]));
}

function schemaRef(schema: z.ZodType, named: ReadonlyArray<[string, z.ZodType]>, io: 'input' | 'output'): JsonSchema {
  const name = named.find(([, s]) => s === schema)?.[0];
  return name ? { $ref: `#/components/schemas/${name}` } : toJson(schema, io);
}

/** `optional`/`nullable` wrappers say "may be left out" in a parameter: `required: false`, not a null type. */
function parameter(name: string, place: 'path' | 'query' | 'header', schema: z.ZodType): Record<string, unknown> {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  const json = toJson(inner, 'input');
  const description = schema.description ?? (json.description as string | undefined);
  const { description: _d, ...rest } = json;
  return {
    name,
    in: place,
    required: place === 'path' || !schema.safeParse(undefined).success,
    ...(description ? { description } : {}),
    schema: rest,
  };
}

const PATH_PARAMS: Record<string, z.ZodType> = {
  id: z.string().describe('The task id.'),
  workspace_id: z.string().describe('The workspace id.'),
  webhook_id: z.string().describe('The webhook id.'),
};

function parameters(route: RestRoute): Record<string, unknown>[] {
  const doc = route.doc;
  const names = [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
  return [
    ...names.map((n) => parameter(n, 'path', doc.params?.[n] ?? PATH_PARAMS[n] ?? z.string())),
    ...Object.entries(doc.query?.shape ?? {}).map(([n, s]) => parameter(n, 'query', s as z.ZodType)),
    ...Object.entries(doc.headers?.shape ?? {}).map(([n, s]) => parameter(n, 'header', s as z.ZodType)),
  ];
}

/** Every error the route may answer, by status: its own and those every route of its kind shares. */
function errorCodes(route: RestRoute): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>([
    ...route.doc.errors,
    ...(route.public ? PUBLIC_ROUTE_ERRORS : EVERY_ROUTE_ERRORS),
    ...(route.public || route.method === 'GET' ? [] : MUTATION_ERRORS),
    ...(route.doc.body ? BODY_ERRORS : []),
  ]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = ERRORS[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

function responses(route: RestRoute): Record<string, unknown> {
  const { ok } = route.doc;
  const out: Record<string, unknown> = {
    [ok.status]: ok.schema
      ? {
          description: ok.description,
          content: { [ok.type ?? 'application/json']: { schema: schemaRef(ok.schema, RESPONSE_COMPONENTS, 'output') } },
        }
      : { description: ok.description },
  };
  for (const [status, codes] of [...errorCodes(route)].sort(([a], [b]) => a - b)) {
    const refs = codes.map((c) => ({ $ref: `#/components/schemas/${errorComponentName(c)}` }));
    out[status] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      ...retryAfterHeader(codes),
      content: { 'application/json': { schema: refs.length === 1 ? refs[0] : { anyOf: refs } } },
    };
  }
  return out;
}

/** `Retry-After` where the answer carries it (the error table's `retryAfter`): required when every code of the status
 *  sends it, otherwise documented with the codes that do. */
function retryAfterHeader(codes: ErrorCode[]): Record<string, unknown> {
  const sending = codes.filter((c) => retryAfterOf(c) !== undefined);
  if (sending.length === 0) return {};
  const required = sending.length === codes.length;
  const description = `Seconds to wait before the next request${required ? '' : ` (sent with ${sending.map((c) => `\`${c}\``).join(', ')})`}.`;
  return { headers: { 'Retry-After': { required, description, schema: { type: 'integer', minimum: 1 } } } };
}

function operation(route: RestRoute): Record<string, unknown> {
  const doc: RouteDoc = route.doc;
  const params = parameters(route);
  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(route.public ? { security: [] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: {
              [doc.body.type ?? 'application/json']: {
                schema: schemaRef(doc.body.schema, REQUEST_COMPONENTS, 'input'),
              },
            },
          },
        }
      : {}),
    responses: responses(route),
  };
}

/** `/tasks/:id/archive` → `/tasks/{id}/archive`. */
export const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}');

export function buildOpenApiDocument(routes: readonly RestRoute[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation(route);
  const errorNames = new Set<ErrorCode>(routes.flatMap((r) => [...errorCodes(r).values()].flat()));
  const errorSchemas = Object.fromEntries(
    (Object.keys(ERRORS) as ErrorCode[])
      .filter((c) => errorNames.has(c))
      .map((c) => [errorComponentName(c), toJson(errorBodySchema(c), 'output')]),
  );
  const tags = [...new Set(routes.map((r) => r.doc.tag))].map((name) => ({ name, description: TAGS[name] }));
  return {
    openapi: '3.1.0',
    info: { title: 'Tether REST API', version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: '/api/v1', description: 'This server' }],
    security: [{ bearerAuth: [] }, { cookieAuth: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API token (`tth_…`, from `tether token create`), with workspace grants and scopes (`tasks:read`, `tasks:write`, `identities:release`, `admin`).',
        },
        cookieAuth: {
          type: 'apiKey',
          in: 'cookie',
          name: 'tether_session',
          description: "The console's session. Mutations must also send `x-csrf-token` (from `session.me`).",
        },
      },
      schemas: {
        ...components(REQUEST_COMPONENTS, 'input'),
        ...components(RESPONSE_COMPONENTS, 'output'),
        ...errorSchemas,
      },
    },
  };
}
