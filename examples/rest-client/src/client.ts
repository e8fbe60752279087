// One client for the whole program, typed by the paths generated from Tether's OpenAPI document. The token is an API
// token with tasks:read, tasks:write and identities:release on the workspace (`tether token create …`).
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './tether-api';

export type TetherRest = Client<paths>;

export function connect(env: { TETHER_URL?: string; TETHER_TOKEN?: string }): TetherRest {
  if (!env.TETHER_URL || !env.TETHER_TOKEN) throw new Error('set TETHER_URL and TETHER_TOKEN');
  return createClient<paths>({
    baseUrl: `${env.TETHER_URL}/api/v1`,
    headers: { authorization: `Bearer ${env.TETHER_TOKEN}` },
  });
}
