// /api/_test/failpoints: lets browser and HTTP tests pause, fail or crash a create at a named boundary
// (src/server/failpoints.ts). The server mounts this route only when failpoints are enabled
// (TETHER_FAILPOINTS=1 plus the `--test-hooks` flag, never with NODE_ENV=production: see config.ts); otherwise the
// path is a plain 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { DomainError } from '../domain/errors/domain-error';
import type { Services } from '../services';
import { readJsonBody, sendJson } from './body';

const ZArm = z.object({
  name: z.string().min(1),
  action: z.enum(['pause', 'error', 'crash']),
  match: z.string().optional(),
  times: z.number().int().positive().optional(),
});

const ZFailpointCommand = z.union([
  z.object({ arm: ZArm }).strict(),
  z.object({ release: z.string().min(1) }).strict(),
  z.object({ releaseAll: z.literal(true) }).strict(),
]);

export async function handleFailpoints(req: IncomingMessage, res: ServerResponse, services: Services): Promise<void> {
  const { failpoints } = services;
  if (req.method === 'POST') {
    const parsed = ZFailpointCommand.safeParse(await readJsonBody(req, services.config.http.maxBodyBytes));
    if (!parsed.success)
      throw new DomainError(
        'validation_failed',
        'expected {arm:{name,action,match?,times?}}, {release:name} or {releaseAll:true}',
      );
    const cmd = parsed.data;
    if ('arm' in cmd) failpoints.arm(cmd.arm);
    else if ('release' in cmd) failpoints.release(cmd.release);
    else failpoints.releaseAll();
  } else if (req.method !== 'GET') {
    sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, POST' });
    return;
  }
  sendJson(res, 200, { failpoints: failpoints.list() });
}
