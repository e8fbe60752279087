// The result types a client programs against, pinned: if the server's contract changes shape, this file stops
// compiling. (No test framework needed: `Expect<Equal<A, B>>` only compiles when A and B are the same type.)
import type { RouterInputs, RouterOutputs, TetherClientError, TetherErrorCode } from 'tether/client';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

type Task = {
  id: string;
  workspace_id: string;
  identifier: string;
  title: string;
  description: string | null;
  step_id: string;
  parent_id: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  revision: number;
  external_id?: string | undefined;
};

type Create = RouterOutputs['task']['create'];
type Lookup = RouterOutputs['task']['byExternalId'];
type Release = RouterOutputs['task']['releaseExternalId'];

export type Pinned = [
  // SPEC §3: every create answers with both booleans.
  Expect<Equal<Create['deduplicated'], boolean>>,
  Expect<Equal<Create['creation_complete'], boolean>>,
  Expect<Equal<Omit<Create, 'deduplicated' | 'creation_complete'>, Task>>,
  // SPEC §7: lookup adds creation_complete only.
  Expect<Equal<Omit<Lookup, 'creation_complete'>, Task>>,
  Expect<Equal<Lookup['creation_complete'], boolean>>,
  // SPEC §7, §10: a release answers data only when it released; "nothing holds it" is an error.
  Expect<Equal<Release, { released: true; replayed: boolean; release_id: string; holder_task_id: string }>>,
  // An ordinary read is the task itself.
  Expect<Equal<RouterOutputs['task']['get'], Task>>,
  // Inputs: strings where the contract says strings.
  Expect<Equal<RouterInputs['task']['byExternalId'], { workspace_id: string; external_id: string }>>,
  Expect<Equal<RouterInputs['task']['releaseExternalId']['idempotency_key'], string>>,
  // Errors: the domain code is the union of known codes, not any string.
  Expect<Equal<NonNullable<TetherClientError['data']>['domainCode'], TetherErrorCode | undefined>>,
  Expect<Equal<string extends TetherErrorCode ? true : false, false>>,
  Expect<Equal<'task_not_found' extends TetherErrorCode ? true : false, true>>,
];
