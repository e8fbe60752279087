// Writes the OpenAPI 3.1 document of /api/v1 to dist/openapi.json (`npm run build`; `--out FILE` writes elsewhere). The
// document is computed from the REST route table and its zod schemas (src/server/rest/openapi.ts) — the same value the
// server answers at /api/v1/openapi.json — so the file is never edited by hand and cannot drift;
// tests/integration/http/openapi.test.ts runs this script and compares.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { openApiDocument } from '../src/server/rest/router';

const ROOT = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const outArg = argv.indexOf('--out');
const OUT = outArg >= 0 ? resolve(argv[outArg + 1]!) : join(ROOT, 'dist/openapi.json');

mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(openApiDocument, null, 2)}\n`);
process.stdout.write(
  `openapi: ${OUT.startsWith(ROOT) ? relative(ROOT, OUT) : OUT} (${Object.keys(openApiDocument.paths).length} paths)\n`,
);
