// esbuild's options for one ES module bundled from a TypeScript entry of this project, as scripts/build-server.mjs
// bundles the server: packages stay in node_modules (so the output goes inside the project, two levels below it, where
// src/server/project-root.ts finds the project), and bundled CommonJS-style helpers (the generated Prisma clients') may
// call `require`. The tests bundle the `tether` CLI with them once per run instead of compiling it under tsx at every
// start (tests/support/processes.ts, playwright.config.ts).
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * @param {string} entry a file of this project, relative to its folder
 * @param {string} outfile
 * @returns {import('esbuild').BuildOptions}
 */
export function bundleOptions(entry, outfile) {
  return {
    entryPoints: [resolve(ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    tsconfig: resolve(ROOT, 'tsconfig.json'),
    banner: {
      js: "import { createRequire as __tetherCreateRequire } from 'node:module'; const require = __tetherCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  };
}
