// Export of a console list or an identity's history (SPEC §13): exactly what the list shows with its filters, every
// row of it, as flat records the export route writes as CSV or JSON (http/console-export.ts). The input is the list's
// own (list-inputs.ts) and each list checks read access as the list does; large lists are read page by page in the
// list's own order (the same keyset pages, without their counts), so an export streams whatever its size.
import type { z } from 'zod';
import type { Actor } from '../access';
import type { Services } from '../../services';
import { browseInput, browseTasks } from './browse';
import { readIdentityHistory } from './identity-history';
import { ZIdentityInput, ZOperationsInput, ZReleasesInput, ZTasksInput, ZWorkspace } from './list-inputs';
import { describeReleases, operationsQuery, releasesQuery } from './lists';
import { readUnsettled } from './operations';
import { DomainError } from '../errors/domain-error';
import { requireRead, type ConsoleOperation, type ListCursor } from './rows';

export type ExportValue = string | number | boolean | null;
export type ExportRecord = Record<string, ExportValue>;

export interface ExportTable {
  /** Column names, in order: every record has exactly these keys. */
  columns: readonly string[];
  rows: AsyncIterable<ExportRecord>;
}

/** Rows read per page while exporting (each page is one indexed read). */
const EXPORT_PAGE = 500;

const step = (s: { index: number; kind: string; state: string } | null) =>
  s ? `${s.index + 1}. ${s.kind} (${s.state})` : null;

const OPERATION_COLUMNS = [
  'id',
  'state',
  'external_id',
  'task_identifier',
  'task_id',
  'begun_by',
  'begun_by_kind',
  'request_id',
  'steps_succeeded',
  'steps_total',
  'current_step',
  'outcome',
  'error',
  'created_at',
  'finished_at',
] as const;

function operationRecord(o: ConsoleOperation): Record<(typeof OPERATION_COLUMNS)[number], ExportValue> {
  return {
    id: o.id,
    state: o.state,
    external_id: o.external_id,
    task_identifier: o.task_identifier,
    task_id: o.task_id,
    begun_by: o.actor.label,
    begun_by_kind: o.actor.kind,
    request_id: o.request_id,
    steps_succeeded: o.steps_succeeded,
    steps_total: o.steps_total,
    current_step: step(o.current_step),
    outcome: o.outcome,
    error: o.error,
    created_at: o.created_at,
    finished_at: o.finished_at,
  };
}

/** Every page of a keyset list, from the first, until one says nothing follows. */
async function* allPages<T extends { id: string; created_at: string }>(
  read: (cursor: ListCursor | null) => Promise<{ rows: T[]; more: boolean }>,
) {
  let cursor: ListCursor | null = null;
  for (;;) {
    const page = await read(cursor);
    yield page.rows;
    const last = page.rows.at(-1);
    if (!page.more || !last) return;
    cursor = { at: last.created_at, id: last.id };
  }
}

const LISTS = {
  /** The task browser with its filters and sort. */
  tasks: {
    input: ZTasksInput,
    columns: [
      'identifier',
      'id',
      'title',
      'external_id',
      'settlement',
      'creation_state',
      'step',
      'archived_at',
      'created_at',
    ],
    async *rows(services: Services, actor: Actor, input: z.infer<typeof ZTasksInput>) {
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof browseTasks>> = await browseTasks(
          services.store,
          actor,
          browseInput({ ...input, cursor, direction: 'after', limit: 100 }),
        );
        for (const t of page.rows) {
          yield {
            identifier: t.identifier,
            id: t.id,
            title: t.title,
            external_id: t.external_id,
            settlement: t.settlement,
            creation_state: t.creation_state,
            step: t.step_name,
            archived_at: t.archived_at,
            created_at: t.created_at,
          };
        }
        cursor = page.next_cursor;
      } while (cursor !== null);
    },
  },
  operations: {
    input: ZOperationsInput,
    columns: OPERATION_COLUMNS,
    async *rows(services: Services, actor: Actor, input: z.infer<typeof ZOperationsInput>) {
      requireRead(actor, input.workspace_id);
      const q = operationsQuery(input);
      for await (const rows of allPages((cursor) =>
        services.store.console.operationsPage(q, { cursor, backwards: false, limit: EXPORT_PAGE }),
      )) {
        for (const o of rows) yield operationRecord(o);
      }
    },
  },
  releases: {
    input: ZReleasesInput,
    columns: [
      'id',
      'created_at',
      'released_by',
      'released_by_kind',
      'source',
      'external_id',
      'holder_identifier',
      'holder_task_id',
      'result',
      'reason',
      'idempotency_key',
      'request_id',
      'replays',
      'key_conflicts',
    ],
    async *rows(services: Services, actor: Actor, input: z.infer<typeof ZReleasesInput>) {
      requireRead(actor, input.workspace_id);
      const q = releasesQuery(input);
      for await (const page of allPages(async (cursor) => {
        const read = await services.store.console.releasesPage(q, { cursor, backwards: false, limit: EXPORT_PAGE });
        return { rows: read.rows.map((r) => ({ ...r, created_at: r.createdAt })), more: read.more };
      })) {
        for (const r of (await describeReleases(services.store, page)).rows) {
          yield {
            id: r.id,
            created_at: r.created_at,
            released_by: r.actor.label,
            released_by_kind: r.actor.kind,
            source: r.source,
            external_id: r.external_id,
            holder_identifier: r.holder_identifier,
            holder_task_id: r.holder_task_id,
            result: r.result,
            reason: r.reason,
            idempotency_key: r.idempotency_key,
            request_id: r.request_id,
            replays: r.attempts.filter((a) => a.kind === 'replay').length,
            key_conflicts: r.attempts.filter((a) => a.kind === 'conflict').length,
          };
        }
      }
    },
  },
  unsettled: {
    input: ZWorkspace,
    columns: [
      'identifier',
      'task_id',
      'external_id',
      'title',
      'created_at',
      'operation_id',
      'operation_state',
      'current_step',
      'lease_owner',
      'lease_expires_at',
    ],
    async *rows(services: Services, actor: Actor, input: z.infer<typeof ZWorkspace>) {
      for (const { task, operation: o } of await readUnsettled(services.store, actor, input.workspace_id)) {
        yield {
          identifier: task.identifier,
          task_id: task.id,
          external_id: task.external_id,
          title: task.title,
          created_at: task.created_at,
          operation_id: o?.id ?? null,
          operation_state: o?.state ?? null,
          current_step: step(o?.current_step ?? null),
          lease_owner: o?.lease_owner ?? null,
          lease_expires_at: o?.lease_expires_at ?? null,
        };
      }
    },
  },
  /** An identity's history: each task that held it (`held`), then each release (`release`), as on its page. */
  identity: {
    input: ZIdentityInput,
    columns: [
      'record',
      'external_id',
      'at',
      'until',
      'task_identifier',
      'task_id',
      'ended',
      'actor',
      'source',
      'reason',
      'result',
      'operation_id',
      'request_id',
    ],
    async *rows(services: Services, actor: Actor, input: z.infer<typeof ZIdentityInput>) {
      const h = await readIdentityHistory(services, actor, input.workspace_id, input.external_id);
      for (const t of h.holders) {
        yield {
          record: 'held',
          external_id: h.external_id,
          at: t.since,
          until: t.until,
          task_identifier: t.identifier,
          task_id: t.task_id,
          ended: t.ended,
          actor: t.created_by?.label ?? null,
          source: null,
          reason: null,
          result: null,
          operation_id: t.operation_id,
          request_id: null,
        };
      }
      for (const r of h.releases) {
        yield {
          record: 'release',
          external_id: h.external_id,
          at: r.at,
          until: null,
          task_identifier: r.holder_identifier,
          task_id: r.holder_task_id,
          ended: null,
          actor: r.actor.label,
          source: r.source,
          reason: r.reason,
          result: r.result,
          operation_id: null,
          request_id: r.request_id,
        };
      }
    },
  },
} as const;

export type ExportList = keyof typeof LISTS;
export const EXPORT_LISTS = Object.keys(LISTS) as ExportList[];

/**
 * The export of `list` for `rawInput` (the list's input as the page sent it). Throws the list's own errors: a bad
 * input is a 400, a workspace the actor cannot see a 404 — before anything is written.
 */
export async function exportList(
  services: Services,
  actor: Actor,
  list: ExportList,
  rawInput: unknown,
): Promise<ExportTable & { workspaceId: string }> {
  const spec = LISTS[list];
  const parsed = spec.input.safeParse(rawInput);
  if (!parsed.success)
    throw new DomainError(
      'validation_failed',
      parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '),
    );
  const input = parsed.data as never;
  const rows = (spec.rows as (s: Services, a: Actor, i: unknown) => AsyncGenerator<ExportRecord>)(
    services,
    actor,
    input,
  );
  const workspaceId = (input as { workspace_id: string }).workspace_id;
  requireRead(actor, workspaceId);
  // Read the first page now, so that its errors (a bad cursor, identity reads while not ready) become the answer.
  const first = await rows.next();
  async function* all(): AsyncGenerator<ExportRecord> {
    if (first.done) return;
    yield first.value;
    yield* rows;
  }
  return { columns: spec.columns, rows: all(), workspaceId };
}
