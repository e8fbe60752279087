// Zod schemas for the MCP tools: what the client sees (JSON Schema via the SDK) and what we promise back.
import { z } from 'zod';
import { ZTaskBody } from '../domain/tasks/schemas';

/**
 * An input parameter the tool *describes* (type, limits and words for the agent) but does not validate: the SDK's
 * own validation would refuse a wrong-typed field before the domain runs, with no stable code and words that
 * differ from REST — and for `create_task` it would refuse a drifted retry that SPEC §4.1 step 6 says must
 * still get its task back (only the envelope is read before the lookup). The domain validates instead, with
 * `schema`; what the client sees is generated from that same schema (`z.toJSONSchema`), so the advertised limits
 * cannot drift from the checked ones. zod 4 merges `.meta()` into the JSON Schema the SDK publishes, so the client
 * still sees `{"type": "string", …}`. Checks JSON Schema cannot say (well-formed Unicode, a cursor's upper bound)
 * are left out of it and still run.
 */
export function described(schema: z.ZodType, description: string) {
  const {
    $schema: _draft,
    description: _own,
    ...json
  } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', unrepresentable: 'any' });
  return z
    .unknown()
    .optional()
    .meta({ ...json, description });
}

/** The task body every surface returns (SPEC §10; `toTaskBody`): the shared schema (domain/tasks/schemas.ts). */
export const taskBodyShape = ZTaskBody.shape;
export { ZTaskBody };
