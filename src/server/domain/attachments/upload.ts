// Attachments (SPEC §1, §5): files uploaded before a create, stored under the data folder, unclaimed until a
// create's `attachment_claim` step binds them to its task. Every surface uploads through this one function.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { can, type Actor } from '../access';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';

export interface AttachmentBody {
  id: string;
  workspace_id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  created_at: string;
}

export async function uploadAttachment(
  services: Services,
  actor: Actor,
  input: { workspaceId: string; filename: string; contentType?: string; data: Uint8Array },
): Promise<AttachmentBody> {
  // Unauthorized gets the same 404 whether or not the workspace exists (SPEC §11).
  if (!can(actor, input.workspaceId, 'write')) throw new DomainError('not_found');
  if (input.data.byteLength > services.config.http.attachmentMaxBytes) throw new DomainError('payload_too_large');
  if (!(await services.store.workspaces.find(input.workspaceId))) throw new DomainError('not_found');

  const id = randomUUID();
  const dir = join(services.config.dataDir, 'attachments');
  const storagePath = join(dir, id);
  await mkdir(dir, { recursive: true });
  // Written under a temporary name and renamed: a crash never leaves a half file under a row's path.
  await writeFile(`${storagePath}.part`, input.data);
  await rename(`${storagePath}.part`, storagePath);
  const body: AttachmentBody = {
    id,
    workspace_id: input.workspaceId,
    filename: input.filename.replace(/[\\/]/g, '_').slice(0, 255) || 'file',
    content_type: input.contentType || 'application/octet-stream',
    size_bytes: input.data.byteLength,
    sha256: createHash('sha256').update(input.data).digest('hex'),
    created_at: new Date().toISOString(),
  };
  try {
    await services.store.attachments.insert({
      id,
      workspaceId: body.workspace_id,
      filename: body.filename,
      contentType: body.content_type,
      sizeBytes: body.size_bytes,
      sha256: body.sha256,
      storagePath,
      uploadedBy: actor.id,
      createdAt: body.created_at,
    });
  } catch (err) {
    await rm(storagePath, { force: true });
    throw err;
  }
  return body;
}
