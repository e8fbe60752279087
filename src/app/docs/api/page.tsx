// /docs/api: the REST API reference, public like the document it shows (integrators read it with a token, not a console
// account); linked from the console's header. Rendered on the server as static HTML from the OpenAPI document this
// server serves at /api/v1/openapi.json — fetched from the server's own origin (the custom server's
// `x-tether-api-origin`, src/trpc/server-lookup.ts) rather than imported: pages never import server modules (the route
// table would drag the domain and the database into Next's bundles), and dist/openapi.json exists only after `npm run
// build`. So the page shows exactly what integrators get, and cannot drift from it.
import type { Metadata } from 'next';
import Link from 'next/link';
import type { ApiDocument } from '../../../components/api-document';
import { ApiReference } from '../../../components/api-reference';
import { readOpenApiDocumentForRender } from '../../../trpc/server-lookup';

export const metadata: Metadata = { title: 'REST API reference · Tether' };

const DOCUMENT = '/api/v1/openapi.json';

export default async function ApiReferencePage() {
  const doc = await readOpenApiDocumentForRender<ApiDocument>();
  return (
    <div className="console">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="console-header">
        <Link href="/" className="console-brand">
          Tether
        </Link>
        <div className="console-header__end">
          <a href={DOCUMENT} download="tether-openapi.json">
            OpenAPI document (JSON)
          </a>
        </div>
      </header>
      <main id="main" className="console-main">
        <h1>REST API reference</h1>
        <p className="muted">
          Every route under <code>/api/v1</code>, generated from the schemas the server validates with. Authenticate
          with <code>Authorization: Bearer &lt;token&gt;</code>.
        </p>
        {doc ? (
          <ApiReference doc={doc} />
        ) : (
          <p role="alert">
            The reference could not be shown. The document itself is at <a href={DOCUMENT}>{DOCUMENT}</a>.
          </p>
        )}
      </main>
    </div>
  );
}
