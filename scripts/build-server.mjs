// Builds the server `npm start` runs: src/server/main.ts and everything it imports from src/ (the generated Prisma
// clients included) as ONE ES module, dist/server/main.mjs, with a linked source map; packages stay in node_modules.
// `npm run build` and `npm start` run it; so do the bench and the built-app tests, which serve what operators serve.
//
// Why a bundle rather than tsx at run time (docs/history/2026-12-benchmarks-history.md): tsx compiles through a module hook
// that Node 20 runs on a thread of its own, with the source maps of every file kept in memory (~60 MB of a server's
// peak memory), and with esbuild's `keepNames`, which renames every function the server creates per request.
// Development (`npm run dev`) and the CLI run the sources through tsx (the tests bundle the CLI they start, with the same
// options: scripts/bundle-options.mjs).
import { build } from 'esbuild';
import { bundleOptions } from './bundle-options.mjs';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
// Two levels below the project, like src/server/: src/server/project-root.ts finds the project from there.
const OUT = resolve(ROOT, 'dist/server/main.mjs');

const result = await build({ ...bundleOptions('src/server/main.ts', OUT), sourcemap: 'linked', write: false });
// Written under temporary names, then renamed: a server starting meanwhile (tests build in parallel) reads either the
// old bundle or the new one, never half of one.
mkdirSync(dirname(OUT), { recursive: true });
const isMap = (file) => file.path.endsWith('.map');
// The map first, then the code that names it.
for (const file of [...result.outputFiles.filter(isMap), ...result.outputFiles.filter((f) => !isMap(f))]) {
  const tmp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(tmp, file.contents);
  renameSync(tmp, file.path);
}
if (!process.argv.includes('--quiet')) console.log(`server bundle: ${OUT}`);
