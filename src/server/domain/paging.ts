// Page parameters shared by every surface: one zod schema per list, so REST, tRPC and MCP accept the same values and
// refuse the rest with the same words — one lenient surface would let `limit=0` through to a 500 where another says
// 400.
import { z } from 'zod';

/** A whole number in [min, max]; every way of missing it (type, fraction, range) gets the one message. */
export function wholeNumber(min: number, max: number) {
  const error = `expected a whole number from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}
