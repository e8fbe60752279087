'use client';
// Issue 19: the REST API reference for people — Swagger UI (swagger-ui-dist, bundled by Next into this page's own
// chunk, so nothing is loaded from the internet; the page CSP forbids it anyway) rendering the OpenAPI document the
// server serves at /api/v1/openapi.json. "Try it out" sends same-origin requests with the console's cookie.
import { useEffect, useRef, useState } from 'react';
import 'swagger-ui-dist/swagger-ui.css';

export function ApiReference({ url }: { url: string }) {
  const node = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    import('swagger-ui-dist/swagger-ui-bundle.js')
      .then(({ default: SwaggerUIBundle }) => {
        if (!live || !node.current) return;
        node.current.replaceChildren();
        SwaggerUIBundle({ domNode: node.current, url, validatorUrl: null, deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, displayOperationId: true });
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [url]);
  return (
    <>
      {failed && (
        <p role="alert">
          The reference could not be shown. The document itself is at <a href={url}>{url}</a>.
        </p>
      )}
      <div ref={node} className="api-reference" />
    </>
  );
}
