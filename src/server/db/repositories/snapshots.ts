// How a revision's snapshot (the task as committed, SPEC §9) is stored, and the one way every reader gets it back.
//
// SPEC §9 leaves the storage free as long as every reader sees the same thing. A revision row already holds the
// task's id, its workspace, the revision number and the clock reading of the change, so a snapshot is stored without
// them: a JSON array of the other fields in a fixed order,
//
//   [identifier, title, step_id, external_id, description, parent_id, created_at, updated_at, archived_at]
//
// where null (or a missing trailing element) means the field's default: null for description, parent_id and
// archived_at, "not held" for external_id (SPEC §3: omitted, never null), and the row's own `created_at` for the
// two timestamps (a create's are both its clock reading; an update's `updated_at` is). Trailing defaults are left
// off, so a create stores e.g. `["W-1","Title","<step id>","ext-1"]`.
//
// Rows written before this form hold the whole TaskBody as a JSON object and read exactly as before: a stored text
// that is not an array is the task itself. A body this form cannot restore exactly (a key out of the TaskBody order,
// a value the row does not imply) is stored whole, the old way. Decoding builds the TaskBody in toTaskBody's key
// order, so `JSON.stringify` of it is the text the whole form would have held, byte for byte.
import type { TaskBody } from '../../model/task';
import type { JsonTemplate } from '../values';

/** What the revision row holds besides the snapshot: the values a stored snapshot leaves out. */
export interface SnapshotKey {
  taskId: string;
  workspaceId: string;
  revision: number;
  /** The row's `created_at` as the drivers read it back: ISO 8601 text, milliseconds, `Z`. */
  at: string;
}

/** TaskBody's keys in toTaskBody's order (external_id last, only when held). */
const BODY_KEYS = [
  'id',
  'workspace_id',
  'identifier',
  'title',
  'description',
  'step_id',
  'parent_id',
  'archived_at',
  'created_at',
  'updated_at',
  'revision',
  'external_id',
] as const;

/** The stored array's fields, in order. */
const STORED = [
  'identifier',
  'title',
  'step_id',
  'external_id',
  'description',
  'parent_id',
  'created_at',
  'updated_at',
  'archived_at',
] as const;
type StoredField = (typeof STORED)[number];

const isIso = (v: string) => {
  const t = Date.parse(v);
  return Number.isFinite(t) && new Date(t).toISOString() === v;
};

/**
 * The stored array's elements as JSON texts (trailing defaults left off), or undefined when `body` must be stored
 * whole: its keys are not TaskBody's in order, or its id, workspace or revision is not the row's.
 */
function elements(body: TaskBody, key: SnapshotKey): string[] | undefined {
  const keys = Object.keys(body);
  const expected = 'external_id' in body ? BODY_KEYS.length : BODY_KEYS.length - 1;
  if (keys.length !== expected || keys.some((k, i) => k !== BODY_KEYS[i])) return undefined;
  if (body.id !== key.taskId || body.workspace_id !== key.workspaceId || body.revision !== key.revision)
    return undefined;
  if (typeof body.external_id !== 'string' && 'external_id' in body) return undefined;
  // A timestamp is left to the row only when reading the row gives back the very same text.
  const sameAsRow = (v: string) => v === key.at && isIso(v);
  if (typeof body.created_at !== 'string' || typeof body.updated_at !== 'string') return undefined;
  const stored: Record<StoredField, unknown> = {
    identifier: body.identifier,
    title: body.title,
    step_id: body.step_id,
    external_id: body.external_id ?? null,
    description: body.description,
    parent_id: body.parent_id,
    created_at: sameAsRow(body.created_at) ? null : body.created_at,
    updated_at: sameAsRow(body.updated_at) ? null : body.updated_at,
    archived_at: body.archived_at,
  };
  // null decodes to a default, so only fields whose default is null may be null here.
  if (stored.identifier === null || stored.title === null || stored.step_id === null) return undefined;
  const out = STORED.map((f) => JSON.stringify(stored[f]));
  while (out.length > 0 && out.at(-1) === 'null') out.pop();
  return out;
}

/** The text stored for `body` in the row `key`: the array form, or the whole body when that cannot restore it. */
export function encodeSnapshot(body: TaskBody, key: SnapshotKey): string {
  const e = elements(body, key);
  return e === undefined ? JSON.stringify(body) : `[${e.join(',')}]`;
}

/**
 * `encodeSnapshot(body, key)` cut around the values of `holes` (each an empty string in `body`, a value only the
 * writing statement knows: a new task's identifier, its step), in order: a template the store fills with the JSON
 * string of each value (`fillJson`, or `to_json` inside PostgreSQL's statements).
 */
export function snapshotTemplate(body: TaskBody, key: SnapshotKey, holes: readonly StoredField[]): JsonTemplate {
  const e = elements(body, key);
  if (e === undefined || holes.some((h) => body[h] !== '')) throw new Error('snapshotTemplate: no empty hole to cut');
  const at = holes.map((h) => STORED.indexOf(h));
  if (at.some((i, n) => n > 0 && i <= at[n - 1]!)) throw new Error('snapshotTemplate: holes out of order');
  const parts: string[] = [];
  let part = '[';
  for (const [i, text] of e.entries()) {
    if (i > 0) part += ',';
    if (at.includes(i)) {
      parts.push(part);
      part = '';
    } else part += text;
  }
  parts.push(`${part}]`);
  return parts;
}

/** The task a stored snapshot holds, in TaskBody's key order; a whole body (the old form) as it was stored. */
export function decodeSnapshot(stored: unknown, key: SnapshotKey): TaskBody {
  const value: unknown = typeof stored === 'string' ? JSON.parse(stored) : stored;
  if (!Array.isArray(value)) return value as TaskBody;
  const [identifier, title, stepId, externalId, description, parentId, createdAt, updatedAt, archivedAt] =
    value as Array<string | null | undefined>;
  const body: TaskBody = {
    id: key.taskId,
    workspace_id: key.workspaceId,
    identifier: identifier!,
    title: title!,
    description: description ?? null,
    step_id: stepId!,
    parent_id: parentId ?? null,
    archived_at: archivedAt ?? null,
    created_at: createdAt ?? key.at,
    updated_at: updatedAt ?? key.at,
    revision: key.revision,
  };
  if (externalId !== null && externalId !== undefined) body.external_id = externalId;
  return body;
}

/** The snapshot's JSON text as every reader shows it: the whole TaskBody (decodeSnapshot). */
export function snapshotText(stored: unknown, key: SnapshotKey): string {
  return typeof stored === 'string' && !stored.startsWith('[') ? stored : JSON.stringify(decodeSnapshot(stored, key));
}

/** The SnapshotKey of a revision as Prisma Client reads it. */
export function prismaRowKey(r: {
  taskId: string;
  workspaceId: string;
  revision: number;
  createdAt: Date;
}): SnapshotKey {
  return { taskId: r.taskId, workspaceId: r.workspaceId, revision: r.revision, at: r.createdAt.toISOString() };
}
