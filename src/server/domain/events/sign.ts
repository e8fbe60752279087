// Webhook signatures: HMAC-SHA256 over the raw request body with the webhook's secret, hex, in
// `X-Tether-Signature: sha256=<hex>`. Receivers recompute it over the bytes they received and compare in constant time.
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-tether-signature';

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
