// Builds the client package `tether/client` (src/client → dist/client): one ES module and ONE stand-alone
// declaration file. `npm run build` runs it; docs/API.md describes the package. `--out DIR` writes elsewhere (the
// typed-client tests build their own copy); `--js-only` skips the declarations (a run needs no types).
//
// 1. TypeScript emits declarations for src/client/index.ts and every file its types reach (server files included:
//    the router's procedure types live there), into a scratch folder; it transpiles src/client's own files to JS.
// 2. Rollup bundles the JS (externals: @trpc/client, eventsource) and, with rollup-plugin-dts, the declarations into
//    dist/client/index.d.ts, keeping only the declarations the client's exports reach.
// 3. One substitution makes that bundle stand alone: the server's tRPC context module (src/server/api/context.ts:
//    Services → Store → the drivers, Prisma, Node) is read as `export type Context = object`. Nothing a client sees
//    depends on it (src/client/app-router.ts erases it from AppRouter); without it the bundle would drag the whole
//    server in through the routers' declared types.
// The result is checked: no import but @trpc/*, zod and eventsource, no Node type, no server path
// (tests/integration/client/client-package.test.ts type-checks a client project against it).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const outArg = argv.indexOf('--out');
const OUT = outArg >= 0 ? resolve(argv[outArg + 1]) : join(ROOT, 'dist/client');
const JS_ONLY = argv.includes('--js-only');
const ENTRY = join(ROOT, 'src/client/index.ts');
/** What the client package may import at run time and in its declarations (all are Tether dependencies). */
const EXTERNAL = [/^@trpc\/(client|server)(\/|$)/, /^eventsource$/, /^zod(\/|$)/];
const isPackage = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');

const scratch = mkdtempSync(join(tmpdir(), 'tether-client-'));
try {
  transpileClient(join(scratch, 'js'));
  rmSync(OUT, { recursive: true, force: true });
  await bundle({ input: join(scratch, 'js/index.js'), file: join(OUT, 'index.js') });
  if (!JS_ONLY) {
    emitDeclarations(join(scratch, 'types'));
    // Declarations: every package import stays external while Rollup walks the server's declarations; tree-shaking
    // then keeps only what the client's exports reach, and checkStandAlone holds the result to EXTERNAL.
    const plugins = [eraseServerContext(join(scratch, 'types')), dts()];
    await bundle({
      input: join(scratch, 'types/client/index.d.ts'),
      file: join(OUT, 'index.d.ts'),
      plugins,
      external: isPackage,
    });
    checkStandAlone(readFileSync(join(OUT, 'index.d.ts'), 'utf8'));
  }
  process.stdout.write(
    `tether/client: ${OUT.startsWith(ROOT) ? relative(ROOT, OUT) : OUT}/index.js${JS_ONLY ? '' : ' and index.d.ts'}\n`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** Declarations for the client entry and everything it reaches, with the project's own compiler settings. */
function emitDeclarations(outDir) {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: fail },
  );
  const options = {
    ...config.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    incremental: false,
    tsBuildInfoFile: undefined,
    allowJs: false,
    rootDir: join(ROOT, 'src'),
    outDir,
  };
  const program = ts.createProgram([ENTRY], options);
  const result = program.emit();
  const errors = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics].filter(
    (d) => d.category === ts.DiagnosticCategory.Error,
  );
  if (errors.length)
    fail(
      ts.formatDiagnostics(errors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    );
}

/** src/client's own files as ES modules (its imports of server files are type-only and vanish). */
function transpileClient(outDir) {
  const dir = join(ROOT, 'src/client');
  for (const name of ts.sys.readDirectory(dir, ['.ts'])) {
    const out = ts.transpileModule(readFileSync(name, 'utf8'), {
      fileName: name,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: false,
        isolatedModules: true,
      },
    });
    const file = join(outDir, relative(dir, name).replace(/\.ts$/, '.js'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, out.outputText);
  }
}

async function bundle({ input, file, plugins = [], external = (id) => EXTERNAL.some((re) => re.test(id)) }) {
  const build = await rollup({
    input,
    plugins,
    external,
    onwarn: (warning) => fail(`rollup: ${warning.message}`),
  });
  await build.write({ file, format: 'es' });
  await build.close();
}

/** Resolves the server's tRPC context declarations to a context a client cannot see (see the header). */
function eraseServerContext(typesDir) {
  const context = join(typesDir, 'server/api/context.d.ts');
  const erased = join(typesDir, 'erased-context.d.ts');
  writeFileSync(
    erased,
    "/** The server's tRPC context: nothing a client sees (src/client/app-router.ts). */\nexport type Context = object;\n",
  );
  return {
    name: 'tether-erase-server-context',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.')) return null;
      const target = resolve(dirname(importer), source);
      return target === context.replace(/\.d\.ts$/, '') || target === context ? erased : null;
    },
  };
}

/** The bundle may import only the package's declared dependencies, and must mention nothing of Node or the server. */
function checkStandAlone(text) {
  const imports = [...text.matchAll(/from ['"]([^'"]+)['"]/g)].map((m) => m[1]);
  const foreign = imports.filter((spec) => !EXTERNAL.some((re) => re.test(spec)));
  const node = text.match(/\b(NodeJS\.|Buffer\b|node:[a-z]|reference types="node")/);
  if (foreign.length || node)
    fail(`dist/client/index.d.ts is not stand-alone: ${[...foreign, node?.[0]].filter(Boolean).join(', ')}`);
}

function fail(message) {
  throw new Error(typeof message === 'string' ? message : ts.flattenDiagnosticMessageText(message.messageText, '\n'));
}
