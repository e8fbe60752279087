// A procedure input whose TYPE is the precise request schema (what a typed client must send: SPEC §10, "inputs are
// typed as precisely as the contract allows") and whose run-time check is the domain's envelope parse. zod would
// check every field up front; SPEC §4.1 wants them checked in order instead — the envelope first, then authorization,
// then the identity's byte rules, and the create fields only after a lookup miss — in REST's words. tRPC accepts any
// Standard Schema (https://standardschema.dev) as an input; this one carries both types and runs `parse`.
import type { z } from 'zod';

/** The part of the Standard Schema v1 interface tRPC reads (the spec asks libraries to copy it, not import it). */
export interface StandardSchemaV1<Input, Output> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { readonly value: Output } | Promise<{ readonly value: Output }>;
    readonly types?: { readonly input: Input; readonly output: Output };
  };
}

/**
 * `typed` gives the input type clients see (and the OpenAPI document); `parse` is what runs, before the procedure:
 * it throws a DomainError (mapped to the tRPC code and words of the error table, trpc.ts) or returns what the
 * procedure receives.
 */
export function domainInput<TTyped extends z.ZodType, TParsed>(
  typed: TTyped,
  parse: (raw: unknown) => TParsed,
): StandardSchemaV1<z.input<TTyped>, TParsed> {
  void typed; // a type witness: the schema itself is the shared one in domain/tasks/schemas.ts
  return {
    '~standard': {
      version: 1,
      vendor: 'tether',
      // Throwing (rather than returning issues) keeps the DomainError as the cause tRPC reports (trpc.ts).
      validate: (value) => ({ value: parse(value) }),
    },
  };
}
