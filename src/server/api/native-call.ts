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
  defaultTransformer,
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

  const target = plainTarget(req, opts.basePath) ?? parsedTarget(req, opts.basePath);
  if (!target) return false; // the adapter reports a bad URL or path encoding itself
  const q = target.query;
  // Batches (httpBatchLink's `batch=1`) and connection params go through the adapter.
  if (q && (q.has('batch') || q.has('connectionParams'))) return false;
  // The router's procedures are a prototype-free record: a direct read, and tRPC's own lookup (which awaits lazy
  // routers) only when it misses.
  const path = target.path;
  const proc =
    (opts.router._def.procedures as Record<string, AnyTRPCProcedure | undefined>)[path] ??
    (await getProcedureAtPath(opts.router, path));
  // Unknown paths, subscriptions (SSE) and a method the procedure does not accept (405) stay with the adapter.
  if (!proc || proc._def.type !== (method === 'GET' ? 'query' : 'mutation')) return false;

  await new NativeCall(req, res, opts, proc, path, q).answer();
  return true;
}

interface Target {
  /** The procedure path: the pathname after the base path, percent-decoded. */
  path: string;
  /** The query's parameters; undefined when the target has no query. */
  query: URLSearchParams | undefined;
}

/**
 * A procedure name (letters, digits, `_`, `-`, dots, not starting with a dot) and an optional query of visible ASCII
 * without a fragment: for such a target the adapter's WHATWG URL parse (createURL) gives this path, undecoded, and
 * these parameters, so it is split by hand. Anything else — escapes, slashes, dot segments — is parsed as a URL.
 */
const PLAIN_CALL = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;
const PLAIN_QUERY = /^[\x21-\x22\x24-\x7e]*$/;

/**
 * The Host values createURL has accepted lately. createURL fails (and the adapter answers 400 `Invalid URL`) on a
 * Host a URL cannot have; a Host once parsed is good for every path. Bounded: an odd Host never seen is parsed as a URL.
 */
const goodHosts = new Set<string>();
const GOOD_HOSTS_MAX = 16;

function plainTarget(req: IncomingMessage, basePath: string): Target | undefined {
  const url = req.url;
  const host = req.headers.host;
  if (url === undefined || host === undefined || !goodHosts.has(host) || !url.startsWith(basePath)) return undefined;
  const q = url.indexOf('?', basePath.length);
  const path = q === -1 ? url.slice(basePath.length) : url.slice(basePath.length, q);
  if (!PLAIN_CALL.test(path)) return undefined;
  if (q === -1) return { path, query: undefined };
  const query = url.slice(q + 1);
  return PLAIN_QUERY.test(query) ? { path, query: new URLSearchParams(query) } : undefined;
}

/** The adapter's own URL parsing (Host header, normalisation, percent-decoding); undefined where it fails. */
function parsedTarget(req: IncomingMessage, basePath: string): Target | undefined {
  try {
    const url = createURL(req);
    const path = decodeURIComponent(url.pathname.slice(basePath.length));
    const host = req.headers.host;
    if (host !== undefined && goodHosts.size < GOOD_HOSTS_MAX) goodHosts.add(host);
    return { path, query: url.search === '' ? undefined : url.searchParams };
  } catch {
    return undefined;
  }
}

/** The adapter's headers for a JSON answer (its body then goes out as one chunk: `transfer-encoding: chunked`). */
const ANSWER_HEADERS = { vary: 'trpc-accept, accept', 'content-type': 'application/json' } as const;

/** What the adapter's default transformer does to an answer: nothing (its serialize is the identity). */
function serialized(config: AnyTRPCRouter['_def']['_config'], body: TRPCResponse): unknown {
  return config.transformer === defaultTransformer ? body : transformTRPCResponse(config, body);
}

/** One call answered natively: its context, its input (read once, when a middleware asks), and its answer. */
class NativeCall {
  private pendingInput: Promise<unknown> | undefined;
  /** The input once read and deserialized: the error shape's `input`, as the adapter's memo reports it. */
  private input: unknown;
  private abort: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly opts: NativeCallOptions,
    readonly proc: AnyTRPCProcedure,
    readonly path: string,
    private readonly query: URLSearchParams | undefined,
  ) {}

  async answer(): Promise<void> {
    const { res, opts, path } = this;
    const config = opts.router._def._config;
    const procType = this.proc._def.type;
    let ctx: unknown;
    let body: TRPCResponse;
    try {
      // A refusal while building the context (CSRF, rate limit, database away) is reported as this call's error.
      ctx = await opts.createContext(this.req, res);
      const data = await callProcedure(this, ctx);
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
      body = { error: getErrorShape({ config, ctx, error, input: this.input, path, type: procType }) };
    }

    // What the adapter writes for this Response: status (unless already set), `vary` and `content-type`, and the
    // body as one chunk (so `transfer-encoding: chunked`, as before — clients see no difference).
    // Given to writeHead as one object: headers set ahead with setHeader send writeHead down Node's slower path
    // (http/response.ts). A context that set headers of its own (a cookie, Retry-After) keeps them.
    const status = res.statusCode === 200 && 'error' in body ? getHTTPStatusCode([body]) : res.statusCode;
    res.writeHead(status, ANSWER_HEADERS);
    res.write(JSON.stringify(serialized(config, body)));
    res.end();
  }

  /**
   * The input is read only if the procedure asks for it (after the context and the auth middlewares, as in the
   * adapter), once; a failure to read or parse it is a 400 with the parser's message, like the adapter's memo.
   */
  readonly getRawInput = (): Promise<unknown> => (this.pendingInput ??= this.readInput());

  private async readInput(): Promise<unknown> {
    let value: unknown;
    try {
      const raw = await readInput(this.req, this.query, this.opts.maxBodySize);
      value = raw === undefined ? undefined : this.opts.router._def._config.transformer.input.deserialize(raw);
    } catch (cause) {
      if (cause instanceof TRPCError) throw cause;
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: cause instanceof Error ? cause.message : 'Invalid input',
        cause,
      });
    }
    this.input = value;
    return value;
  }

  /**
   * The procedure's abort signal, aborted when the client goes away before the answer is written (as the adapter's).
   * No procedure this path serves reads it (the subscription that does is the adapter's), so the controller is made
   * only when read.
   */
  signal(): AbortSignal {
    if (!this.abort) {
      const abort = (this.abort = new AbortController());
      const res = this.res;
      if (res.closed) {
        if (!res.writableEnded) abort.abort();
      } else
        res.once('close', () => {
          if (!res.writableEnded) abort.abort();
        });
    }
    return this.abort.signal;
  }
}

/** A call's options as tRPC's middlewares get them (path, getRawInput, ctx, type, signal, batchIndex, meta, input). */
interface CallOptions {
  path: string;
  getRawInput: () => Promise<unknown>;
  ctx: unknown;
  type: string;
  readonly signal: AbortSignal;
  batchIndex: number;
  meta: unknown;
  input: unknown;
  next(nextOpts?: Partial<Pick<CallOptions, 'ctx' | 'input' | 'getRawInput'>>): Promise<MiddlewareResult>;
}
type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };
type Middleware = (opts: CallOptions) => Promise<MiddlewareResult>;
/**
 * What a built procedure carries (`createProcedureCaller`'s `_def`): its middlewares, the last of them tRPC's
 * `resolveMiddleware` around `resolver`, and meta.
 */
interface ProcedureDef {
  middlewares: Middleware[];
  resolver?: (opts: CallOptions) => Promise<unknown>;
  meta: unknown;
}

/**
 * `proc(opts)` — tRPC's createProcedureCaller and callRecursive (src/unstable-core-do-not-import/procedureBuilder.ts),
 * step for step, each middleware level's options built as one object (LevelOptions) where tRPC's build copies the
 * call's options key by key twice per level (Babel's `_objectSpread2`), the dearest part of a tRPC Found. Same values,
 * same order of middlewares, same results and errors; the same keys, except that `signal` is read through the
 * prototype, so the AbortController behind it is made only for a procedure that reads it.
 */
async function callProcedure(call: NativeCall, ctx: unknown): Promise<unknown> {
  const def = call.proc._def as unknown as ProcedureDef;
  const result = await callMiddleware(call, def, 0, ctx, undefined, call.getRawInput);
  if (!result)
    throw new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'No result from middlewares - did you forget to `return next()`?',
    });
  if (!result.ok) throw result.error;
  return result.data;
}

async function callMiddleware(
  call: NativeCall,
  def: ProcedureDef,
  index: number,
  ctx: unknown,
  input: unknown,
  getRawInput: () => Promise<unknown>,
): Promise<MiddlewareResult> {
  try {
    const middleware = def.middlewares[index]!;
    const opts = new LevelOptions(call, def, index, ctx, input, getRawInput);
    // tRPC's resolveMiddleware, step for step: the resolver's data and the level's context, as a Resolved.
    if (index === def.middlewares.length - 1 && def.resolver && middleware.name === 'resolveMiddleware')
      return new Resolved(await def.resolver(opts), ctx);
    return await middleware(opts);
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker } as MiddlewareResult;
  }
}

/**
 * What tRPC's resolveMiddleware returns (`{ marker, ok: true, data, ctx }`, the same keys in the same order), made by a
 * constructor where tRPC writes an object literal. V8 may decide that a literal's allocation site makes long-lived
 * objects (allocation-site pretenuring) and then allocates every later object from it in the old generation; it decides
 * so for that literal under load, and as the result holds the call's context, which holds the request and the response
 * (the context's `http`), every call's objects then survive each young-generation collection until a full one (as for
 * the context itself, context.ts). Objects made by `new` have no allocation site: they start young.
 */
class Resolved {
  readonly marker = middlewareMarker;
  readonly ok = true;
  constructor(
    readonly data: unknown,
    readonly ctx: unknown,
  ) {}
}

/**
 * One middleware level's options. `signal` is a getter on the prototype — one function for every call — that finds
 * its call in a private field. Not `get signal()` in an object literal: that makes a new getter closure and a new
 * accessor pair for every object, and V8 allocates accessor pairs in the old generation, so each pair held its
 * closure (and through it the call: request, response, context, input, answer) through every young-generation
 * collection until the next full one. Every tRPC call's objects were then promoted: ~2 MB survived each scavenge and
 * a mark-compact ran about every second, ~80 µs of garbage collection per call against ~5 for the same REST call.
 * Middlewares destructure their options (`{ ctx, next }`), which reads a prototype getter like an own property.
 */
class LevelOptions implements CallOptions {
  readonly #call: NativeCall;
  readonly path: string;
  readonly getRawInput: () => Promise<unknown>;
  readonly ctx: unknown;
  readonly type: string;
  readonly batchIndex = 0;
  readonly meta: unknown;
  readonly input: unknown;
  /** An own function, not a method: middlewares call it detached (`({ next }) => next()`). */
  readonly next: CallOptions['next'];

  constructor(
    call: NativeCall,
    def: ProcedureDef,
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: () => Promise<unknown>,
  ) {
    this.#call = call;
    this.path = call.path;
    this.getRawInput = getRawInput;
    this.ctx = ctx;
    this.type = call.proc._def.type;
    this.meta = def.meta;
    this.input = input;
    this.next = (nextOpts) =>
      callMiddleware(
        call,
        def,
        index + 1,
        nextOpts?.ctx ? { ...(ctx as object), ...(nextOpts.ctx as object) } : ctx,
        nextOpts && 'input' in nextOpts ? nextOpts.input : input,
        nextOpts?.getRawInput ?? getRawInput,
      );
  }

  get signal(): AbortSignal {
    return this.#call.signal();
  }
}

/**
 * The raw input: `?input=` on GET (absent or empty is undefined), the JSON body on POST. Like Fetch's
 * `Request.json()` (UTF-8, a BOM dropped, then JSON.parse) except that bytes that are not UTF-8 are refused, in the
 * query string or the body, as the adapter path refuses them (strict-input.ts).
 */
async function readInput(req: IncomingMessage, q: URLSearchParams | undefined, limit: number): Promise<unknown> {
  refuseMalformedTrpcQuery(req.url);
  if (req.method === 'GET') {
    const raw = q?.get('input');
    return raw ? (JSON.parse(raw) as unknown) : undefined;
  }
  return JSON.parse(decodeBody(await readBody(req, limit))) as unknown;
}

/** resolveResponse's `isDataStream`: an async iterable, or an object holding promises or async iterables. */
function isDataStream(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (isAsyncIterable(v)) return true;
  const values = Object.values(v);
  return values.some(isPromise) || values.some(isAsyncIterable);
}
