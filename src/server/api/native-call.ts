// The Node-native fast path for the common tRPC call: one non-batched query (GET) or mutation (POST)
// with a JSON input. tRPC's standalone adapter turns every Node request into a Fetch `Request` (headers copy,
// AbortController, AbortSignal.any ponyfill, a web-stream body) and its `Response` back into Node writes; for a
// single JSON call that conversion costs more than the procedure. Here the same steps run on the Node objects,
// using tRPC's own pieces (procedure lookup, error shape, transformer, status) and its procedure call step for step
// (callProcedure below), so the answer is byte-for-byte what `resolveResponse` (@trpc/server 11.22.1,
// src/unstable-core-do-not-import/http/resolveResponse.ts) produces. Anything else is declined before the request is touched and goes to the adapter unchanged.
// It is kept because it is measured to be worth its upgrade risk (docs/BENCHMARKS.md: tRPC Found against tRPC's
// adapter); tests/integration/http/trpc-native.test.ts holds its answers to the adapter's and fails loudly on any
// other tRPC version until this file has been re-verified against it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  getErrorShape,
  getTRPCErrorFromUnknown,
  transformTRPCResponse,
  TRPCError,
  type AnyTRPCProcedure,
  type AnyTRPCRouter,
} from '@trpc/server';
import { createURL } from '@trpc/server/adapters/node-http';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { TRPCResponse } from '@trpc/server/rpc';
import {
  getProcedureAtPath,
  isAsyncIterable,
  isObject,
  isPromise,
  middlewareMarker,
} from '@trpc/server/unstable-core-do-not-import';
import { decodeBody, isJson, readBody, refuseMalformedTrpcQuery } from './strict-input';

/** The @trpc/server version whose resolveResponse this file mirrors (package.json pins it exactly). */
export const NATIVE_CALL_VERIFIED_WITH = '11.22.1';

export interface NativeCallOptions {
  router: AnyTRPCRouter;
  /** Same as the adapter's `basePath`. */
  basePath: string;
  /** Same as the adapter's `maxBodySize`, captured once so both paths agree on the limit. */
  maxBodySize: number;
  /** The adapter's `createContext`: the one place that maps refusals (http.ts). */
  createContext(req: IncomingMessage, res: ServerResponse): Promise<unknown>;
  // No onError / responseMeta: the adapter is configured without them. Adding one there means adding it here.
}

/**
 * Answers the request natively and returns true, or returns false without reading or writing anything when the
 * call is not the plain case (the caller then hands it to the adapter).
 */
export async function tryNativeCall(
  req: IncomingMessage,
  res: ServerResponse,
  opts: NativeCallOptions,
): Promise<boolean> {
  const method = req.method;
  if (method !== 'GET' && method !== 'POST') return false; // HEAD, OPTIONS, ...: the adapter's answers
  // Streaming responses (httpBatchStreamLink sends `trpc-accept`; `Accept: application/jsonl`) are the adapter's.
  if (req.headers['trpc-accept'] !== undefined || req.headers.accept?.includes('jsonl')) return false;
  // The adapter picks its input parser by content type; only JSON (or none, on GET) is handled here.
  const type = req.headers['content-type'];
  if (method === 'POST' ? !isJson(type) : type !== undefined && !isJson(type)) return false;

  let url: URL;
  let path: string;
  try {
    url = createURL(req); // the adapter's own URL parsing (Host header, normalisation)
    path = decodeURIComponent(url.pathname.slice(opts.basePath.length));
  } catch {
    return false; // the adapter reports a bad URL or path encoding itself
  }
  const q = url.searchParams;
  // Batches (httpBatchLink's `batch=1`) and connection params go through the adapter.
  if (q.has('batch') || q.has('connectionParams')) return false;
  const proc = await getProcedureAtPath(opts.router, path);
  // Unknown paths, subscriptions (SSE) and a method the procedure does not accept (405) stay with the adapter.
  if (!proc || proc._def.type !== (method === 'GET' ? 'query' : 'mutation')) return false;

  await answer(req, res, opts, proc, path, q);
  return true;
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  opts: NativeCallOptions,
  proc: AnyTRPCProcedure,
  path: string,
  q: URLSearchParams,
) {
  const config = opts.router._def._config;
  const procType = proc._def.type;
  const input = lazyInput(
    () => readInput(req, q, opts.maxBodySize),
    (raw) => config.transformer.input.deserialize(raw),
  );
  // The adapter aborts the procedure's signal when the client goes away before the answer is written.
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableEnded) abort.abort();
  });

  let ctx: unknown;
  let body: TRPCResponse;
  try {
    // A refusal while building the context (CSRF, rate limit, database away) is reported as this call's error.
    ctx = await opts.createContext(req, res);
    const data = await callProcedure(proc, {
      path,
      getRawInput: input.read,
      ctx,
      type: procType,
      signal: abort.signal,
      batchIndex: 0,
    });
    if (isDataStream(data)) {
      // resolveResponse throws this outside the call, so its error shape carries no path.
      const error = new TRPCError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Cannot use stream-like response in non-streaming request - use httpBatchStreamLink',
      });
      body = { error: getErrorShape({ config, ctx, error, input: undefined, path: undefined, type: procType }) };
    } else {
      body = { result: { data } };
    }
  } catch (cause) {
    const error = getTRPCErrorFromUnknown(cause);
    body = { error: getErrorShape({ config, ctx, error, input: input.result(), path, type: procType }) };
  }

  // What the adapter writes for this Response: status (unless already set), `vary` and `content-type`, and the
  // body as one chunk (so `transfer-encoding: chunked`, as before — clients see no difference).
  if (res.statusCode === 200) res.statusCode = getHTTPStatusCode([body]);
  res.setHeader('vary', 'trpc-accept, accept');
  res.setHeader('content-type', 'application/json');
  res.write(JSON.stringify(transformTRPCResponse(config, body)));
  res.end();
}

/** A call's options as tRPC's middlewares get them (path, getRawInput, ctx, type, signal, batchIndex, …). */
type CallOptions = Record<string, unknown> & { ctx: unknown; input?: unknown; getRawInput: () => Promise<unknown> };
type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };
type Middleware = (
  opts: CallOptions & { meta: unknown; next(nextOpts?: Partial<CallOptions>): Promise<MiddlewareResult> },
) => Promise<MiddlewareResult>;
/** What a built procedure carries (`createProcedureCaller`'s `_def`): its middlewares, the resolver last, and meta. */
interface ProcedureDef {
  middlewares: Middleware[];
  meta: unknown;
}

/**
 * `proc(opts)` — tRPC's createProcedureCaller and callRecursive (src/unstable-core-do-not-import/procedureBuilder.ts),
 * step for step, with the language's object spread where tRPC's build has Babel's `_objectSpread2` helper: that
 * helper copied the call's options key by key twice per middleware level, the dearest part of a tRPC Found
 * (docs/BENCHMARKS.md). Same keys, same values, same order of middlewares, same results and errors.
 */
async function callProcedure(proc: AnyTRPCProcedure, opts: CallOptions): Promise<unknown> {
  const def = proc._def as unknown as ProcedureDef;
  const result = await callMiddleware(0, def, opts);
  if (!result)
    throw new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'No result from middlewares - did you forget to `return next()`?',
    });
  if (!result.ok) throw result.error;
  return result.data;
}

async function callMiddleware(index: number, def: ProcedureDef, opts: CallOptions): Promise<MiddlewareResult> {
  try {
    const middleware = def.middlewares[index]!;
    return await middleware({
      ...opts,
      meta: def.meta,
      input: opts.input,
      next(nextOpts) {
        return callMiddleware(index + 1, def, {
          ...opts,
          ctx: nextOpts?.ctx ? { ...(opts.ctx as object), ...(nextOpts.ctx as object) } : opts.ctx,
          input: nextOpts && 'input' in nextOpts ? nextOpts.input : opts.input,
          getRawInput: nextOpts?.getRawInput ?? opts.getRawInput,
        });
      },
    });
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker } as MiddlewareResult;
  }
}

/**
 * The raw input: `?input=` on GET (absent or empty is undefined), the JSON body on POST. Like Fetch's
 * `Request.json()` (UTF-8, a BOM dropped, then JSON.parse) except that bytes that are not UTF-8 are refused, in the
 * query string or the body, as the adapter path refuses them (strict-input.ts).
 */
async function readInput(req: IncomingMessage, q: URLSearchParams, limit: number): Promise<unknown> {
  refuseMalformedTrpcQuery(req.url);
  if (req.method === 'GET') {
    const raw = q.get('input');
    return raw ? (JSON.parse(raw) as unknown) : undefined;
  }
  return JSON.parse(decodeBody(await readBody(req, limit))) as unknown;
}

/**
 * The input is read only if the procedure asks for it (after the context and the auth middlewares, as in the
 * adapter), once; a failure to read or parse it is a 400 with the parser's message, like the adapter's memo.
 */
function lazyInput(read: () => Promise<unknown>, deserialize: (raw: unknown) => unknown) {
  let pending: Promise<unknown> | undefined;
  let value: { v: unknown } | undefined;
  return {
    read: async () => {
      pending ??= read()
        .then((raw) => (raw === undefined ? undefined : deserialize(raw)))
        .catch((cause: unknown) => {
          if (cause instanceof TRPCError) throw cause;
          throw new TRPCError({
            code: 'BAD_REQUEST',
            message: cause instanceof Error ? cause.message : 'Invalid input',
            cause,
          });
        });
      const v = await pending;
      value = { v };
      return v;
    },
    result: () => value?.v,
  };
}

/** resolveResponse's `isDataStream`: an async iterable, or an object holding promises or async iterables. */
function isDataStream(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (isAsyncIterable(v)) return true;
  const values = Object.values(v);
  return values.some(isPromise) || values.some(isAsyncIterable);
}
