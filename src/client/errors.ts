// Tether's errors as a typed client receives them: a TRPCClientError whose `data.domainCode` is one of the known
// codes (SPEC §10), with the same words REST sends in `message`.
import { TRPCClientError } from '@trpc/client';
import type { ErrorCode } from '../server/domain/errors/domain-error';
import type { AppRouter } from './app-router';

/** Every domain code the server sends in `error.data.domainCode` (src/server/domain/errors/domain-error.ts). */
export type TetherErrorCode = ErrorCode;

/** A failed call: `message` is REST's words, `data.code` the tRPC code, `data.domainCode` the domain code. */
export type TetherClientError = TRPCClientError<AppRouter>;

/** The domain code of a failed call, or undefined (a network failure, or a refusal before Tether answered). */
export function tetherErrorCode(err: unknown): TetherErrorCode | undefined {
  return err instanceof TRPCClientError ? (err as TetherClientError).data?.domainCode : undefined;
}

/** Whether `err` is an error Tether answered with — with that domain code, when one is given. */
export function isTetherError(err: unknown, code?: TetherErrorCode): err is TetherClientError {
  if (!(err instanceof TRPCClientError) || !(err as TetherClientError).data) return false;
  return code === undefined || tetherErrorCode(err) === code;
}
