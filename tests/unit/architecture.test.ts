// The house rules that keep the layers readable, checked on the source itself so they stay true.
//   - SQL text and Prisma Client calls are written only in the data layer (src/server/db);
//   - the data layer imports only types from the domain and from the model (src/server/model: the task and event
//     shapes and the stored access words both floors speak, importing neither): it only stores and reads — it builds
//     no snapshot, payload or creation decision (the domain computes the rows of the create protocol,
//     domain/creation/rows.ts) and hands back what it reads as stored, for the domain to interpret;
//   - no measurement switches: the product ships one path, comparisons run through `bench:compare`;
//   - no tracker references (the word "issue" and a number) in code, tests, scripts or docs: a reader has the code, not the tracker, so a
//     comment says the reason (applied migrations keep theirs: editing one changes its checksum);
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

/** Every script under `dir` (the bench and the build scripts), results and fixtures aside. */
function walkAll(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'results' || name === 'node_modules' ? [] : walkAll(path);
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
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
    expect(hits(outside('src/server/db/'), /\b(SELECT [a-z_*]|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM)\b/)).toEqual(
      [],
    );
  });

  it('calls Prisma Client only in the data layer', () => {
    const prismaCall =
      /\.(prisma\(\)|\$transaction\(|\$queryRaw|\$executeRaw)|\bprisma\.[a-z]\w*\.(find|create|update|upsert|delete|count|aggregate|groupBy)/;
    expect(hits(outside('src/server/db/'), prismaCall)).toEqual([]);
  });

  it('reads the environment only in the config module (and Next sets its own variables where it starts)', () => {
    const others = outside('src/server/config.ts').filter((f) => f.rel !== 'src/server/pages.ts');
    expect(hits(others, /process\.env/)).toEqual([]);
    expect(
      hits(
        files.filter((f) => f.rel === 'src/server/config.ts'),
        /process\.env\.\w+\s*(\?\?|\|\||&&)?=[^=]/,
      ),
    ).toEqual([]);
  });

  it("page-side modules that read the request are marked 'server-only' (Next fails a build that bundles them for the browser)", () => {
    const pageSide = files.filter((f) => /^src\/(app|components|trpc)\//.test(f.rel));
    const readers = pageSide.filter((f) => /from 'next\/headers'/.test(f.text));
    expect(readers.map((f) => f.rel)).toContain('src/trpc/server-lookup.ts');
    expect(readers.filter((f) => !/^import 'server-only';/m.test(f.text)).map((f) => f.rel)).toEqual([]);
  });

  it('the data layer imports only types from the domain and the model', () => {
    // What a write stores the domain computes and hands over as plain rows (toTaskBody, eventPayload, …); what a read
    // finds goes back as stored, and the domain reads it (settlementOf, the scopes this version knows).
    const db = files.filter((f) => f.rel.startsWith('src/server/db/'));
    const valueImports = db.flatMap((f) =>
      [
        ...f.text.matchAll(
          /^import\s+(type\s+)?(\{[^}]*\}|[\w*][^'"]*?)\s+from\s+'((?:\.\.\/)+(?:domain|model)\/[^']+)'/gm,
        ),
      ]
        .filter(
          (m) =>
            !m[1] &&
            !(
              m[2]!.startsWith('{') &&
              m[2]!
                .slice(1, -1)
                .split(',')
                .every((s) => /^\s*(type\s|$)/.test(s))
            ),
        )
        .map((m) => `${f.rel}: ${m[0].replace(/\s+/g, ' ')}`),
    );
    expect(db.length).toBeGreaterThan(0);
    expect(valueImports).toEqual([]);
  });

  it("the drivers are the data layer's ground floor: they import no repository, dialect form or store", () => {
    const drivers = files.filter((f) => f.rel.startsWith('src/server/db/drivers/'));
    expect(drivers.length).toBeGreaterThan(0);
    expect(hits(drivers, /from '\.\.\/(repositories|dialect|store|prisma|schema)\b/)).toEqual([]);
  });

  it("the data layer's root holds only its face; the rest lives in the folder of its floor", () => {
    // store.ts (what the domain is handed), types.ts (a connection), values.ts (a row's values), errors.ts (what a
    // database error means). Drivers, repositories, dialect forms, Prisma Client and the schema have folders.
    const root = files
      .filter((f) => /^src\/server\/db\/[^/]+$/.test(f.rel))
      .map((f) => f.rel.slice('src/server/db/'.length));
    expect(root.sort()).toEqual(['errors.ts', 'store.ts', 'types.ts', 'values.ts']);
  });

  it('the model imports nothing above it', () => {
    const model = files.filter((f) => f.rel.startsWith('src/server/model/'));
    expect(model.length).toBeGreaterThan(0);
    expect(hits(model, /from '\.\.\//)).toEqual([]);
  });

  it('has no measurement switches: one path each, A/B through bench:compare', () => {
    const SWITCH = /TETHER_PG_ONE_STATEMENT|TETHER_TRPC_NATIVE|oneStatementCreate|trpcNativeCalls|pre16[-_]?[sS]eries/;
    const more = ['bench', 'scripts'].flatMap((d) =>
      walkAll(join(ROOT, d)).map((path) => ({ path, rel: relative(ROOT, path), text: readFileSync(path, 'utf8') })),
    );
    expect(hits([...files, ...more], SWITCH)).toEqual([]);
  });

  it('cites no tracker entries: comments and docs say the reason', () => {
    const TRACKER = /\bissues? #?\d+/i;
    const text = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory())
          return ['node_modules', 'generated', 'results', 'migrations'].includes(name) ? [] : text(path);
        return /\.(ts|tsx|mts|mjs|js|md|prisma)$/.test(name) ? [path] : [];
      });
    const dirs = ['src', 'tests', 'bench', 'scripts', 'e2e', 'docs', 'prisma'];
    const more = dirs
      .flatMap((d) => text(join(ROOT, d)))
      .map((path) => ({ path, rel: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
    const readme = join(ROOT, 'README.md');
    const all = [...more, { path: readme, rel: 'README.md', text: readFileSync(readme, 'utf8') }];
    expect(all.length).toBeGreaterThan(100);
    expect(hits(all, TRACKER)).toEqual([]);
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
    const found = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) =>
      files.some((f) => f.path === p),
    );
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
