// `tether/client`: what a TypeScript application needs to call Tether over tRPC (SPEC §10, docs/API.md). Built by
// `npm run build` into dist/client (scripts/build-client.mjs) with stand-alone declarations.
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './app-router';

export type { AppRouter } from './app-router';
export { createTetherClient, type TetherClient, type TetherClientOptions } from './create-client';
export { isTetherError, tetherErrorCode, type TetherClientError, type TetherErrorCode } from './errors';

/** Every procedure's input, e.g. `RouterInputs['task']['create']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Every procedure's result, e.g. `RouterOutputs['task']['releaseExternalId']`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
