// A JSON Schema from the OpenAPI document, for people: an object is a table of its fields — nested objects and arrays
// of objects flattened into `parent.child` / `list[].child` rows — with type, whether it is required, and the
// description; a `$ref` is the component's name, linked to its section on the page rather than repeated.
import { Fragment, type ReactNode } from 'react';
import {
  componentName,
  resolveSchema,
  schemaAnchor,
  withoutNull,
  type ApiDocument,
  type JsonSchema,
} from './api-document';
import { InlineText } from './api-text';

/** A link to a component's section. */
export function SchemaLink({ name }: { name: string }) {
  return (
    <a href={`#${schemaAnchor(name)}`}>
      <code>{name}</code>
    </a>
  );
}

const json = (value: unknown) => JSON.stringify(value);

/** The schema's type in a few words: `string (uuid)`, `array of Task`, `"a" or "b"`, `integer or null`. */
export function TypeText({ schema }: { schema: JsonSchema }): ReactNode {
  const { schema: s, nullable } = withoutNull(schema);
  return (
    <>
      <BareType schema={s} />
      {nullable && ' or null'}
    </>
  );
}

function BareType({ schema: s }: { schema: JsonSchema }): ReactNode {
  const ref = s.$ref ? componentName(s.$ref) : undefined;
  if (ref) return <SchemaLink name={ref} />;
  if (s.const !== undefined) return <code>{json(s.const)}</code>;
  if (s.enum)
    return (
      <Alternatives
        items={s.enum.map((v, i) => (
          <code key={i}>{json(v)}</code>
        ))}
      />
    );
  const variants = s.anyOf ?? s.oneOf;
  if (variants)
    return (
      <Alternatives
        items={variants.map((v, i) => (
          <TypeText key={i} schema={v} />
        ))}
      />
    );
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.includes('array')) {
    return <>array of {s.items ? <TypeText schema={s.items} /> : 'anything'}</>;
  }
  if (types.length === 0) return s.properties ? 'object' : 'any JSON value';
  return (
    <>
      {types.join(' or ')}
      {s.format && ` (${s.format})`}
    </>
  );
}

function Alternatives({ items }: { items: ReactNode[] }) {
  return (
    <>
      {items.map((item, i) => (
        <Fragment key={i}>
          {i > 0 && (i === items.length - 1 ? ' or ' : ', ')}
          {item}
        </Fragment>
      ))}
    </>
  );
}

/** Limits a reader must respect, in words. */
export function constraintsOf(schema: JsonSchema): string[] {
  const s = withoutNull(schema).schema;
  const out: string[] = [];
  if (s.minLength !== undefined) out.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  if (s.minItems !== undefined) out.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  // zod writes ±(2^53−1) for every integer: a bound nobody needs to read.
  if (s.minimum !== undefined && Math.abs(s.minimum) < Number.MAX_SAFE_INTEGER) out.push(`minimum ${s.minimum}`);
  if (s.maximum !== undefined && Math.abs(s.maximum) < Number.MAX_SAFE_INTEGER) out.push(`maximum ${s.maximum}`);
  if (s.pattern !== undefined && s.format === undefined) out.push(`matches ${s.pattern}`);
  if (s.default !== undefined) out.push(`default ${json(s.default)}`);
  if (s.additionalProperties === false) out.push('no other fields');
  return out;
}

interface Row {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** The object's fields as rows; inline nested objects (and arrays of them) add `a.b` / `a[].b` rows, refs do not. */
function rowsOf(object: JsonSchema, prefix = '', depth = 0): Row[] {
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).flatMap(([key, schema]) => {
    const row: Row = { name: `${prefix}${key}`, schema, required: required.has(key) };
    const inner = withoutNull(schema).schema;
    if (depth >= 4) return [row];
    if (inner.properties) return [row, ...rowsOf(inner, `${row.name}.`, depth + 1)];
    const item = inner.items ? withoutNull(inner.items).schema : undefined;
    if (item?.properties) return [row, ...rowsOf(item, `${row.name}[].`, depth + 1)];
    return [row];
  });
}

/** The fields of an object schema, as a table with a caption. */
function FieldsTable({ object, caption }: { object: JsonSchema; caption: string }) {
  const rows = rowsOf(object);
  return (
    <table className="api-table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={3}>No fields.</td>
          </tr>
        )}
        {rows.map((row) => (
          <tr key={row.name}>
            <th scope="row">
              <code>{row.name}</code>
              <span className="api-required">{row.required ? 'required' : 'optional'}</span>
            </th>
            <td>
              <TypeText schema={row.schema} />
            </td>
            <td>
              <Described schema={row.schema} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A schema's description and its limits. */
export function Described({ schema }: { schema: JsonSchema }) {
  const description = schema.description ?? withoutNull(schema).schema.description;
  const limits = constraintsOf(schema);
  return (
    <>
      {description && <InlineText text={description} />}
      {limits.length > 0 && <span className="api-limits">{limits.join('; ')}</span>}
    </>
  );
}

/**
 * A whole schema: a `$ref` is named and linked (and, when `expand`, its fields shown too); an object is its table; a
 * choice between objects is one table per shape; anything else is its type in words.
 */
export function SchemaView({
  doc,
  schema,
  caption,
  expand = false,
}: {
  doc: ApiDocument;
  schema: JsonSchema;
  caption: string;
  expand?: boolean;
}) {
  const ref = schema.$ref ? componentName(schema.$ref) : undefined;
  if (ref) {
    const target = resolveSchema(doc, schema);
    return (
      <>
        <p>
          Schema: <SchemaLink name={ref} />
        </p>
        {expand && target !== schema && <SchemaView doc={doc} schema={target} caption={`${caption}: ${ref}`} />}
      </>
    );
  }
  const shapes = (schema.anyOf ?? schema.oneOf)?.filter((s) => s.properties);
  if (shapes && shapes.length > 1 && shapes.length === (schema.anyOf ?? schema.oneOf)!.length) {
    return (
      <>
        <p>One of {shapes.length} shapes:</p>
        {shapes.map((shape, i) => (
          <FieldsTable key={i} object={shape} caption={`${caption}, shape ${i + 1} of ${shapes.length}`} />
        ))}
      </>
    );
  }
  const inner = withoutNull(schema).schema;
  if (inner.properties || (inner.type === 'object' && !inner.additionalProperties))
    return <FieldsTable object={inner} caption={caption} />;
  return (
    <p>
      Type: <TypeText schema={schema} /> <Described schema={schema} />
    </p>
  );
}
