// SPEC §2.1 keeps the NFC and NFD spellings of a word apart, so two tasks can hold ids that render identically. SPEC
// §13: wherever the console shows such an id it says that another task holds an equivalent spelling. Only the NFC and
// NFD forms are looked up (one indexed read for a whole page); other mixed spellings of the same text are not — they
// are rare, and finding them would need a normalized column.
import { equivalentSpellings } from '../../../lib/visible-id';
import type { Repositories } from '../../db/store';
import type { ConsoleTask } from './rows';

export interface Lookalike {
  task_id: string;
  identifier: string;
  external_id: string;
  /** Which normalization form the other task's spelling is. */
  form: 'NFC' | 'NFD';
}

export type WithLookalikes<T> = T & { lookalikes: Lookalike[] };

/** Each task with the other tasks of its workspace holding an NFC or NFD spelling of its id. */
export async function withLookalikes<T extends Pick<ConsoleTask, 'id' | 'external_id'>>(
  store: Pick<Repositories, 'identities'>,
  workspaceId: string,
  tasks: T[],
): Promise<Array<WithLookalikes<T>>> {
  const spellings = new Map(tasks.map((t) => [t.id, t.external_id === null ? [] : equivalentSpellings(t.external_id)]));
  const wanted = [...new Set([...spellings.values()].flat())];
  const holders = await store.identities.holdersOf(workspaceId, wanted);
  return tasks.map((t) => ({
    ...t,
    lookalikes: holders
      .filter((h) => h.id !== t.id && spellings.get(t.id)!.includes(h.externalId))
      .map((h) => ({
        task_id: h.id,
        identifier: h.identifier,
        external_id: h.externalId,
        form: h.externalId === h.externalId.normalize('NFC') ? 'NFC' : 'NFD',
      })),
  }));
}
