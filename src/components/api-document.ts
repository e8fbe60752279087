// The parts of an OpenAPI 3.1 document the reference page (/docs/api) reads, and the walk over them. Types of its own
// rather than the server's OpenApiDocument: the page reads the document as served (JSON over HTTP, see
// src/trpc/server-lookup.ts), and that type is deliberately loose.

/** A JSON Schema (draft 2020-12, as zod 4 writes it): only the keywords the page shows are named. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface MediaType {
  schema?: JsonSchema;
}

export interface Response {
  description: string;
  headers?: Record<string, { required?: boolean; description?: string; schema?: JsonSchema }>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
}

export interface SecurityScheme {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
  description?: string;
}

export interface ApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, SecurityScheme> };
}

/** One operation with where it lives. */
export interface Located {
  method: string;
  path: string;
  operation: Operation;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation, grouped by its first tag, in the document's tag order (then any tag it does not list). */
export function groupOperationsByTag(
  doc: ApiDocument,
): Array<{ name: string; description?: string; operations: Located[] }> {
  const groups = new Map<string, Located[]>((doc.tags ?? []).map((t) => [t.name, []]));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, operation });
    }
  }
  const described = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  return [...groups]
    .filter(([, ops]) => ops.length > 0)
    .map(([name, operations]) => ({ name, description: described.get(name), operations }));
}

/** `#/components/schemas/Task` → `Task`; undefined for any other reference. */
export function componentName(ref: string): string | undefined {
  return /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1];
}

/** The anchor of a component schema's section. */
export const schemaAnchor = (name: string) => `schema-${name}`;

/** The schema a local `$ref` points at (one level), or the schema itself. */
export function resolveSchema(doc: ApiDocument, schema: JsonSchema): JsonSchema {
  const name = schema.$ref ? componentName(schema.$ref) : undefined;
  return (name && doc.components?.schemas?.[name]) || schema;
}

/** `T | null` written either way (`anyOf` with a null member, or a type list with "null") → T and "may be null". */
export function withoutNull(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  const isNull = (s: JsonSchema) => s.type === 'null';
  if (schema.anyOf?.some(isNull)) {
    const rest = schema.anyOf.filter((s) => !isNull(s));
    const inner =
      rest.length === 1
        ? { ...rest[0]!, description: rest[0]!.description ?? schema.description }
        : { ...schema, anyOf: rest };
    return { schema: inner, nullable: true };
  }
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const rest = schema.type.filter((t) => t !== 'null');
    return { schema: { ...schema, type: rest.length === 1 ? rest[0] : rest }, nullable: true };
  }
  return { schema, nullable: false };
}
