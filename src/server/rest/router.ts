// REST edge under /api/v1 (SPEC §10). Placeholder signature; filled in by the identity-core work.
import type { ApiHandler } from '../http/types';

export const handleRest: ApiHandler = async (_req, res) => {
  res.statusCode = 404;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: 'not found' }));
};
