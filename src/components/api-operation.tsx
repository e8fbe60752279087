// One operation of the OpenAPI document on the reference page: method and path, summary, description, who may call it,
// parameters, request body and every response by status — error answers with their exact bodies.
import {
  componentName,
  resolveSchema,
  type ApiDocument,
  type JsonSchema,
  type Located,
  type Response,
} from './api-document';
import { BlockText, InlineText } from './api-text';
import { Described, SchemaLink, SchemaView, TypeText } from './api-schema';

export function ApiOperation({ doc, located, base }: { doc: ApiDocument; located: Located; base: string }) {
  const { method, path, operation: op } = located;
  const id = op.operationId;
  const title = op.summary ?? `${method.toUpperCase()} ${path}`;
  const params = op.parameters ?? [];
  return (
    <section id={id} className="api-operation" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p className="api-endpoint">
        <span className={`api-method api-method--${method}`}>{method.toUpperCase()}</span>{' '}
        <code>{`${base}${path}`}</code>
      </p>
      <p className="api-meta">
        Operation id <code>{id}</code> ·{' '}
        {op.security && op.security.length === 0 ? (
          'no credentials needed'
        ) : (
          <>
            needs <a href="#authentication">a bearer token (or the console&apos;s session)</a>
          </>
        )}
      </p>
      {op.description && <BlockText text={op.description} />}

      <h4>Parameters</h4>
      {params.length === 0 ? (
        <p>None.</p>
      ) : (
        <table className="api-table">
          <caption>Parameters of {id}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {params.map((p) => (
              <tr key={`${p.in}:${p.name}`}>
                <th scope="row">
                  <code>{p.name}</code>
                  <span className="api-required">
                    {p.in}, {p.required ? 'required' : 'optional'}
                  </span>
                </th>
                <td>{p.schema ? <TypeText schema={p.schema} /> : 'string'}</td>
                <td>
                  {p.description && <InlineText text={p.description} />}
                  {p.schema && <Described schema={{ ...p.schema, description: undefined }} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h4>Request body</h4>
      {op.requestBody ? (
        Object.entries(op.requestBody.content).map(([type, media]) => (
          <div key={type}>
            <p>
              {op.requestBody!.required ? 'Required' : 'Optional'}, as <code>{type}</code>.
            </p>
            {media.schema && <SchemaView doc={doc} schema={media.schema} caption={`Request body of ${id}`} expand />}
          </div>
        ))
      ) : (
        <p>None.</p>
      )}

      <h4>Responses</h4>
      <dl className="api-responses">
        {Object.entries(op.responses).map(([status, response]) => (
          <ResponseEntry key={status} doc={doc} id={id} status={status} response={response} />
        ))}
      </dl>
    </section>
  );
}

function ResponseEntry({
  doc,
  id,
  status,
  response,
}: {
  doc: ApiDocument;
  id: string;
  status: string;
  response: Response;
}) {
  const content = Object.entries(response.content ?? {});
  return (
    <>
      <dt>
        <span className={`api-status api-status--${status[0]}xx`}>{status}</span>
      </dt>
      <dd>
        <InlineText text={response.description} />
        {Object.entries(response.headers ?? {}).map(([name, header]) => (
          <p key={name}>
            Header <code>{name}</code> ({header.schema ? <TypeText schema={header.schema} /> : 'string'}
            {header.required ? ', always sent' : ''})
            {header.description && (
              <>
                : <InlineText text={header.description} />
              </>
            )}
          </p>
        ))}
        {content.length === 0 && <p>No body.</p>}
        {content.map(([type, media]) => {
          if (!media.schema) return null;
          const errors = errorRefs(media.schema);
          return (
            <div key={type}>
              <p>
                Body: <code>{type}</code>
                {errors && (errors.length > 1 ? ', exactly one of:' : ':')}
              </p>
              {errors ? (
                <ul className="api-errors">
                  {errors.map((name) => (
                    <ErrorBody
                      key={name}
                      name={name}
                      schema={resolveSchema(doc, { $ref: `#/components/schemas/${name}` })}
                    />
                  ))}
                </ul>
              ) : (
                <SchemaView doc={doc} schema={media.schema} caption={`Response ${status} of ${id}`} />
              )}
            </div>
          );
        })}
      </dd>
    </>
  );
}

/** The component names of an error answer (`$ref` to `…Error`, or `anyOf` of them); undefined for anything else. */
function errorRefs(schema: JsonSchema): string[] | undefined {
  const refs = (schema.anyOf ?? [schema]).map((s) => (s.$ref ? componentName(s.$ref) : undefined));
  return refs.every((r) => r?.endsWith('Error')) ? (refs as string[]) : undefined;
}

/** `{"error":"…","code":"…"}` as the server sends it; a message that may carry a detail says so. */
function ErrorBody({ name, schema }: { name: string; schema: JsonSchema }) {
  const error = schema.properties?.error;
  const code = schema.properties?.code;
  const detailed = error?.const === undefined ? /^\^(.*)\(: \[\\s\\S\]\+\)\?\$$/.exec(error?.pattern ?? '') : null;
  const message = error?.const ?? (detailed ? detailed[1]!.replace(/\\(.)/g, '$1') : undefined);
  const body = { error: message, ...(code?.const !== undefined ? { code: code.const } : {}) };
  return (
    <li>
      <code className="api-error-body">{JSON.stringify(body)}</code>
      {detailed && (
        <>
          {' '}
          (the message may go on with <code>: &lt;detail&gt;</code>)
        </>
      )}{' '}
      — <SchemaLink name={name} />
      {schema.description && (
        <>
          {': '}
          <InlineText text={schema.description} />
        </>
      )}
    </li>
  );
}
