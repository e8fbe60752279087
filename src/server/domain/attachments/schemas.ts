// Attachments as the REST edge accepts and answers them (SPEC §1, §5), for the upload handler and the OpenAPI document
// (so the document shows what is checked). Plain zod, no server imports. `AttachmentBody` (./upload.ts) is held equal
// to ZAttachmentBody by tests/unit/openapi-bodies.test.ts.
import { z } from 'zod';

/**
 * `POST /api/v1/attachments`: the multipart form's fields. The messages are the answers the edge gives
 * (`invalid request: workspace_id is required`), so the document and the check are one schema.
 */
export const ZAttachmentForm = z.object({
  workspace_id: z
    .string({ error: 'workspace_id is required' })
    .min(1, 'workspace_id is required')
    .describe('The workspace the file is for.'),
  file: z.file({ error: 'file is required' }).describe('The file: one part; its name and type are kept.'),
});

export const ZAttachmentBody = z.object({
  id: z.string().describe("Name it in a create's `attachments` to claim it."),
  workspace_id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.iso.datetime(),
});
