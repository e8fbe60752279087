// One client for the whole program. `url` is the server's base URL; the token is an API token with
// tasks:read, tasks:write and identities:release on the workspace (`tether token create …`).
import { createTetherClient, type TetherClient } from 'tether/client';

export function connect(env: { TETHER_URL?: string; TETHER_TOKEN?: string }): TetherClient {
  if (!env.TETHER_URL || !env.TETHER_TOKEN) throw new Error('set TETHER_URL and TETHER_TOKEN');
  return createTetherClient({ url: env.TETHER_URL, token: env.TETHER_TOKEN });
}
