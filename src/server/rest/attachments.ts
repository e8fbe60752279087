// REST `POST /api/v1/attachments` (issue 5): a multipart upload (`workspace_id` field + one `file`), stored under
// the data folder and unclaimed until a create names it in `attachments`. Answers 201 with the attachment.
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../auth/actor';
import { uploadAttachment } from '../domain/attachments/upload';
import { DomainError } from '../domain/errors/domain-error';
import { consumeBody, sendError, sendJson } from '../http/body';
import { requireAuthenticated } from '../http/authenticate-request';
import type { ApiHandler } from '../http/types';
import type { Services } from '../services';
import { path, type RestRoute } from './route';

/** Multipart framing around the file: a little headroom over the file size limit. */
const FRAMING_BYTES = 64 * 1024;

/** The request body as a web stream that errors past `limit` bytes, so an oversized upload is never buffered. */
function limited(req: IncomingMessage, limit: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      // consumeBody leaves the connection up on a 413 so the client can read it (issue 18).
      consumeBody(req, limit, (chunk) => controller.enqueue(new Uint8Array(chunk))).then(
        () => controller.close(),
        (err: unknown) => controller.error(err),
      );
    },
  });
}

export async function handleUpload(req: IncomingMessage, services: Services, actor: Actor): Promise<{ status: number; body: unknown }> {
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
  const workspaceId = form.get('workspace_id');
  const file = form.get('file');
  if (typeof workspaceId !== 'string' || !workspaceId) throw new DomainError('validation_failed', 'workspace_id is required');
  if (!file || typeof file === 'string') throw new DomainError('validation_failed', 'file is required');
  const data = new Uint8Array(await file.arrayBuffer());
  const body = await uploadAttachment(services, actor, { workspaceId, filename: file.name || 'file', contentType: file.type, data });
  return { status: 201, body };
}

/** For the REST router's table (src/server/rest/router.ts `restRoutes`). */
export const attachmentRoutes: RestRoute[] = [
  {
    method: 'POST',
    pattern: path('/attachments'),
    async handle(r) {
      const out = await handleUpload(r.req, r.services, r.auth.actor);
      sendJson(r.res, out.status, out.body);
    },
  },
];

/** The same endpoint as a stand-alone ApiHandler that authenticates itself. */
export const handleAttachments: ApiHandler = async (req, res, services) => {
  try {
    const auth = await requireAuthenticated(services, req.headers, req.method ?? 'POST');
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
    const out = await handleUpload(req, services, auth.actor);
    sendJson(res, out.status, out.body);
  } catch (err) {
    sendError(res, err, services);
  }
};
