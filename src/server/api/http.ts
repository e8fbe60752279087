// tRPC over HTTP at /api/trpc. Placeholder signature; filled in by the identity-core work.
import type { ApiHandler } from '../http/types';

export const handleTrpc: ApiHandler = async (_req, res) => {
  res.statusCode = 404;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: 'not found' }));
};
