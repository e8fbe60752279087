// Zod schemas for the MCP tools: what the client sees (JSON Schema via the SDK) and what we promise back.
import { z } from 'zod';
import { ZTaskBody } from '../domain/tasks/schemas';

/**
 * An input parameter the tool *describes* (type and words for the agent) but does not validate: the SDK's
 * own validation would refuse a wrong-typed field before the domain runs, with no stable code and words that
 * differ from REST — and for `create_task` it would refuse a drifted retry that SPEC §4.1 step 6 says must
 * still get its task back (only the envelope is read before the lookup). The domain validates instead.
 * zod 4 merges `.meta()` into the generated JSON Schema, so the client still sees `{"type": "string", …}`.
 */
export function described(jsonSchema: Record<string, unknown>, description: string) {
  return z.unknown().optional().meta({ ...jsonSchema, description });
}

export const idParam = { type: 'string', minLength: 1, maxLength: 200 };

/** The task body every surface returns (SPEC §10; `toTaskBody`): the shared schema (domain/tasks/schemas.ts). */
export const taskBodyShape = ZTaskBody.shape;
export { ZTaskBody };
