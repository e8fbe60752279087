// The REST API reference for people, rendered on the server from the OpenAPI document the server serves at
// /api/v1/openapi.json — plain semantic HTML, no script, nothing from the internet. (It replaced Swagger UI, whose
// markup was not axe-clean and which pulled in a telemetry dependency.) Every operation, grouped by tag, has its own
// anchor (its operationId) listed in the contents; every named schema has one too (`schema-<Name>`).
import { groupOperationsByTag, schemaAnchor, type ApiDocument } from './api-document';
import { ApiOperation } from './api-operation';
import { SchemaView } from './api-schema';
import { BlockText, InlineText } from './api-text';

const tagAnchor = (name: string) => `tag-${name}`;

export function ApiReference({ doc }: { doc: ApiDocument }) {
  const groups = groupOperationsByTag(doc);
  const base = doc.servers?.[0]?.url ?? '';
  const schemas = Object.entries(doc.components?.schemas ?? {});
  const schemes = Object.entries(doc.components?.securitySchemes ?? {});
  return (
    <div className="api-reference">
      <section aria-labelledby="api-about">
        <h2 id="api-about">
          {doc.info.title} <span className="muted">version {doc.info.version}</span>
        </h2>
        {doc.info.description && <BlockText text={doc.info.description} />}
      </section>

      <section id="authentication" aria-labelledby="api-authentication">
        <h2 id="api-authentication">Authentication</h2>
        <p>Every operation needs one of these, unless it says otherwise:</p>
        <dl className="api-schemes">
          {schemes.map(([name, scheme]) => (
            <div key={name}>
              <dt>
                <code>{name}</code>:{' '}
                {scheme.type === 'http' ? (
                  <>
                    <code>Authorization: {scheme.scheme === 'bearer' ? 'Bearer' : scheme.scheme} &lt;token&gt;</code>
                  </>
                ) : (
                  <>
                    {scheme.in} <code>{scheme.name}</code>
                  </>
                )}
              </dt>
              <dd>{scheme.description && <InlineText text={scheme.description} />}</dd>
            </div>
          ))}
        </dl>
      </section>

      <nav aria-labelledby="api-contents" className="api-contents">
        <h2 id="api-contents">Contents</h2>
        <ul>
          {groups.map((g) => (
            <li key={g.name}>
              <a href={`#${tagAnchor(g.name)}`}>{g.name}</a>
              <ul>
                {g.operations.map(({ method, path, operation }) => (
                  <li key={operation.operationId}>
                    <a href={`#${operation.operationId}`}>
                      <span className="api-method-text">{method.toUpperCase()}</span> <code>{path}</code>
                    </a>{' '}
                    {operation.summary}
                  </li>
                ))}
              </ul>
            </li>
          ))}
          <li>
            <a href="#schemas">Schemas</a>
          </li>
        </ul>
      </nav>

      {groups.map((g) => (
        <section key={g.name} id={tagAnchor(g.name)} aria-labelledby={`${tagAnchor(g.name)}-title`}>
          <h2 id={`${tagAnchor(g.name)}-title`}>{g.name}</h2>
          {g.description && <BlockText text={g.description} />}
          {g.operations.map((located) => (
            <ApiOperation key={located.operation.operationId} doc={doc} located={located} base={base} />
          ))}
        </section>
      ))}

      <section id="schemas" aria-labelledby="api-schemas">
        <h2 id="api-schemas">Schemas</h2>
        <p>The named schemas the operations refer to: request and response bodies, then every error body.</p>
        {schemas.map(([name, schema]) => (
          <section
            key={name}
            id={schemaAnchor(name)}
            aria-labelledby={`${schemaAnchor(name)}-title`}
            className="api-schema"
          >
            <h3 id={`${schemaAnchor(name)}-title`}>
              <code>{name}</code>
            </h3>
            {schema.description && <BlockText text={schema.description} />}
            <SchemaView doc={doc} schema={{ ...schema, description: undefined }} caption={`Fields of ${name}`} />
          </section>
        ))}
      </section>
    </div>
  );
}
