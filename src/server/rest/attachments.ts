// REST `POST /api/v1/attachments`: a multipart upload (`workspace_id` field + one `file`), stored under the data folder
// and unclaimed until a create names it in `attachments`. Answers 201 with the attachment. The form's fields are read
// through ZAttachmentForm, the schema the OpenAPI document shows, so the document and the check cannot disagree.
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../domain/access';
import { ZAttachmentBody, ZAttachmentForm } from '../domain/attachments/schemas';
import { uploadAttachment } from '../domain/attachments/upload';
import { DomainError } from '../domain/errors/domain-error';
import { consumeBody, sendJson } from '../http/body';
import type { Services } from '../services';
import type { RestRoute } from './route';

/** Multipart framing around the file: a little headroom over the file size limit. */
const FRAMING_BYTES = 64 * 1024;

/** The request body as a web stream that errors past `limit` bytes, so an oversized upload is never buffered. */
function limited(req: IncomingMessage, limit: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      // consumeBody leaves the connection up on a 413 so the client can read it rather than meet a reset (EPIPE).
      consumeBody(req, limit, (chunk) => controller.enqueue(new Uint8Array(chunk))).then(
        () => controller.close(),
        (err: unknown) => controller.error(err),
      );
    },
  });
}

export async function handleUpload(
  req: IncomingMessage,
  services: Services,
  actor: Actor,
): Promise<{ status: number; body: unknown }> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw new DomainError('invalid_payload', 'expected multipart/form-data');
  const maxBytes = services.config.http.attachmentMaxBytes;
  let form: FormData;
  try {
    const request = new Request('http://localhost/api/v1/attachments', {
      method: 'POST',
      headers: { 'content-type': type },
      body: limited(req, maxBytes + FRAMING_BYTES),
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    form = await request.formData();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (err instanceof Error && err.cause instanceof DomainError) throw err.cause;
    throw new DomainError('invalid_payload', 'malformed multipart body');
  }
  const fields = ZAttachmentForm.safeParse({ workspace_id: form.get('workspace_id'), file: form.get('file') });
  // The first missing field, in the words the edge has always used: `invalid request: workspace_id is required`.
  if (!fields.success) throw new DomainError('validation_failed', fields.error.issues[0]?.message);
  const { workspace_id: workspaceId, file } = fields.data;
  const data = new Uint8Array(await file.arrayBuffer());
  const body = await uploadAttachment(services, actor, {
    workspaceId,
    filename: file.name || 'file',
    contentType: file.type,
    data,
  });
  return { status: 201, body };
}

/** For the REST router's table (src/server/rest/router.ts `restRoutes`). */
export const attachmentRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/attachments',
    doc: {
      operationId: 'uploadAttachment',
      tag: 'Attachments',
      summary: 'Upload a file to claim in a later create',
      description:
        'The file stays unclaimed until a create names its id in `attachments`; one create claims it. At most `TETHER_ATTACHMENT_MAX_BYTES` (10 MiB by default).',
      body: { schema: ZAttachmentForm, type: 'multipart/form-data' },
      ok: { status: 201, description: 'The stored attachment.', schema: ZAttachmentBody },
      errors: ['validation_failed', 'not_found'],
    },
    async handle(r) {
      const out = await handleUpload(r.req, r.services, r.auth.actor);
      sendJson(r.res, out.status, out.body);
    },
  },
];
