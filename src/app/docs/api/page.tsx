// /docs/api (issue 19): the REST API reference, rendered from the OpenAPI document at /api/v1/openapi.json. Public like
// the document itself: integrators read it with a token, not a console account. Linked from the console's header.
import type { Metadata } from 'next';
import Link from 'next/link';
import { ApiReference } from '../../../components/api-reference';

export const metadata: Metadata = { title: 'REST API reference · Tether' };

const DOCUMENT = '/api/v1/openapi.json';

export default function ApiReferencePage() {
  return (
    <div className="console">
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
          Every route under <code>/api/v1</code>, generated from the schemas the server validates with. Authenticate with{' '}
          <code>Authorization: Bearer &lt;token&gt;</code>.
        </p>
        <ApiReference url={DOCUMENT} />
      </main>
    </div>
  );
}
