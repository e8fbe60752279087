// swagger-ui-dist ships no types: the one call the reference page makes (src/components/api-reference.tsx).
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  interface SwaggerUIOptions {
    domNode: HTMLElement;
    url: string;
    /** null: never send the document to swagger.io's validator (it sends nothing anywhere). */
    validatorUrl: string | null;
    deepLinking?: boolean;
    docExpansion?: 'list' | 'full' | 'none';
    defaultModelsExpandDepth?: number;
    displayOperationId?: boolean;
    tryItOutEnabled?: boolean;
    withCredentials?: boolean;
  }
  const SwaggerUIBundle: (options: SwaggerUIOptions) => unknown;
  export default SwaggerUIBundle;
}
