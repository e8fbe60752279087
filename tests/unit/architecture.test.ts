// The house rules that keep the layers readable, checked on the source itself so they stay true.
//   - SQL text and Prisma Client calls are written only in the data layer (src/server/db);
//   - the environment is read only by the config module (src/server/config.ts);
//   - no import circles anywhere in src/ (type-only imports included);
//   - the domain imports no transport (api, rest, mcp, http) and no runtime (recovery, relay, dispatcher);
//   - a page-side module that reads the request (next/headers) imports 'server-only' (src/server itself cannot: the
//     custom server loads it in plain Node, where that package throws; eslint.config.js keeps it out of pages).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : walk(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

const files = walk(SRC).map((path) => ({ path, rel: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
const outside = (prefix: string) => files.filter((f) => !f.rel.startsWith(prefix));

/** Lines of `text` matching `re`, as `file:line: text`. */
function hits(list: typeof files, re: RegExp): string[] {
  return list.flatMap((f) =>
    f.text.split('\n').flatMap((line, i) => (re.test(line) ? [`${f.rel}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('layering', () => {
  it('writes SQL only in the data layer', () => {
    expect(hits(outside('src/server/db/'), /\b(SELECT [a-z_*]|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM)\b/)).toEqual([]);
  });

  it('calls Prisma Client only in the data layer', () => {
    const prismaCall = /\.(prisma\(\)|\$transaction\(|\$queryRaw|\$executeRaw)|\bprisma\.[a-z]\w*\.(find|create|update|upsert|delete|count|aggregate|groupBy)/;
    expect(hits(outside('src/server/db/'), prismaCall)).toEqual([]);
  });

  it('reads the environment only in the config module', () => {
    expect(hits(outside('src/server/config.ts'), /process\.env/)).toEqual([]);
  });

  it("page-side modules that read the request are marked 'server-only' (Next fails a build that bundles them for the browser)", () => {
    const pageSide = files.filter((f) => /^src\/(app|components|trpc)\//.test(f.rel));
    const readers = pageSide.filter((f) => /from 'next\/headers'/.test(f.text));
    expect(readers.map((f) => f.rel)).toContain('src/trpc/server-lookup.ts');
    expect(readers.filter((f) => !/^import 'server-only';/m.test(f.text)).map((f) => f.rel)).toEqual([]);
  });

  it('the domain imports neither transport nor runtime', () => {
    const domain = files.filter((f) => f.rel.startsWith('src/server/domain/'));
    expect(hits(domain, /from '(\.\.\/)+(api|rest|mcp|http|runtime)\//)).toEqual([]);
  });
});

/** Relative imports of a file (static, dynamic, type-only and re-exports), resolved to files under src/. */
function importsOf(file: { path: string; text: string }): string[] {
  const specs = [...file.text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.flatMap((spec) => {
    const base = resolve(dirname(file.path), spec);
    const found = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => files.some((f) => f.path === p));
    return found ? [found] : [];
  });
}

describe('imports', () => {
  it('form no circle anywhere in src/', () => {
    const graph = new Map(files.map((f) => [f.path, importsOf(f)]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (node: string) => {
      state.set(node, 'open');
      stack.push(node);
      for (const next of graph.get(node) ?? []) {
        if (state.get(next) === 'open') {
          cycles.push([...stack.slice(stack.indexOf(next)), next].map((p) => relative(ROOT, p)).join(' → '));
        } else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    expect(cycles).toEqual([]);
  });
});
