// A client application outside Tether, as a TypeScript developer would have one: Tether installed by path
// (`node_modules/tether` links to a folder with Tether's package.json and the BUILT `dist/client`), the example's
// sources, and a fresh template tsconfig (tests/integration/client/fixtures). Only `tether/client` is imported.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
const MODULES = join(ROOT, 'node_modules');

export interface CommandResult {
  status: number | null;
  output: string;
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  timeout = 180_000,
): CommandResult {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/**
 * `tether/client` built with the same script as `npm run build`, in a folder laid out like an installed package:
 * Tether's package.json, `dist/client`, and Tether's dependencies beside it. Returns the folder.
 * Under `npm test` (TETHER_CLIENT_BUILT=1) the client build stage has just built dist/client from these sources, and
 * the declarations cost a TypeScript program of half the server: that build is copied rather than made again.
 */
export function buildClientPackage(opts: { types: boolean }): string {
  const pkg = mkdtempSync(join(tmpdir(), 'tether-pkg-'));
  const out = join(pkg, 'dist/client');
  const stage = join(ROOT, 'dist/client');
  if (process.env.TETHER_CLIENT_BUILT === '1') {
    for (const file of ['index.js', ...(opts.types ? ['index.d.ts'] : [])]) {
      if (!existsSync(join(stage, file))) throw new Error(`TETHER_CLIENT_BUILT=1, but ${join(stage, file)} is missing`);
    }
    cpSync(stage, out, { recursive: true });
  } else {
    const args = ['scripts/build-client.mjs', '--out', out, ...(opts.types ? [] : ['--js-only'])];
    const built = run(process.execPath, args, ROOT);
    if (built.status !== 0) throw new Error(`build-client failed:\n${built.output}`);
  }
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const { name, version, type, exports, dependencies } = manifest;
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name, version, type, exports, dependencies }, null, 2));
  // The installed package's own dependencies (@trpc/client, @trpc/server, eventsource) resolve from beside it.
  symlinkSync(MODULES, join(pkg, 'node_modules'), 'dir');
  return pkg;
}

export type Template = 'vite' | 'next';

/** What each fresh project has installed besides Tether (its template's dependencies that its tsconfig reads). */
const INSTALLED: Record<Template, string[]> = {
  // tsconfig.app.json reads vite/client; tsconfig.node.json reads @types/node (for vite.config.ts only).
  vite: ['vite', '@types/node'],
  // No `types` option: every @types package of the project is read, as in a fresh create-next-app.
  next: ['@types/node', '@types/react', '@types/react-dom'],
};

/** A fresh project of the template with the example's sources and Tether installed from `pkg`. */
export function makeClientProject(template: Template, pkg: string): string {
  const app = mkdtempSync(join(tmpdir(), `tether-${template}-app-`));
  cpSync(join(ROOT, 'tests/integration/client/fixtures', template), app, { recursive: true });
  cpSync(join(ROOT, 'examples/typed-client/src'), join(app, 'src'), { recursive: true });
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: `fresh-${template}-app`, private: true, type: 'module' }),
  );
  mkdirSync(join(app, 'node_modules/@types'), { recursive: true });
  symlinkSync(pkg, join(app, 'node_modules/tether'), 'dir');
  for (const dep of INSTALLED[template]) symlinkSync(join(MODULES, dep), join(app, 'node_modules', dep), 'dir');
  return app;
}

const tsc = join(MODULES, 'typescript/bin/tsc');

export interface TypeCheckResult extends CommandResult {
  /** With `listFiles`: every file the application's own program read (tsconfig.app.json's for Vite). */
  files: string[];
}

/**
 * The template's own type check: `tsc -b` for Vite (its build script), `tsc --noEmit` for Next. `listFiles` also
 * lists what the app's program read: Next's check lists it as it goes (one program, one compiler run; the listed
 * paths are left out of `output`), Vite's build reads two projects, so its app project is listed by a run of its own.
 */
export function typeCheck(template: Template, app: string, opts: { listFiles?: boolean } = {}): TypeCheckResult {
  if (template === 'vite') {
    const r = run(process.execPath, [tsc, '-b', '--pretty', 'false'], app);
    if (!opts.listFiles) return { ...r, files: [] };
    const listed = run(process.execPath, [tsc, '-p', 'tsconfig.app.json', '--listFilesOnly'], app);
    if (listed.status !== 0) throw new Error(listed.output);
    return { ...r, files: listed.output.split('\n').filter(Boolean) };
  }
  const r = run(
    process.execPath,
    [tsc, '--noEmit', '--pretty', 'false', ...(opts.listFiles ? ['--listFiles'] : [])],
    app,
  );
  // A listed file is a line that is one absolute path; a diagnostic names its file relative to the project.
  const lines = r.output.split('\n');
  const isListed = (line: string) => /^\/\S+$/.test(line);
  return {
    status: r.status,
    output: lines.filter((line) => line && !isListed(line)).join('\n'),
    files: lines.filter(isListed),
  };
}

/**
 * The package's declarations read as strictly as TypeScript can (skipLibCheck off, no @types package at all, browser
 * libs): the diagnostics that fall in Tether's own declaration file. (Other packages' files are theirs to answer for:
 * @trpc/server's declarations name Node's `http` for its adapters.)
 */
export function runStrictCheck(pkg: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'tether-strict-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(pkg, join(dir, 'node_modules/tether'), 'dir');
    const compilerOptions = {
      target: 'es2023',
      lib: ['ES2023', 'DOM'],
      module: 'esnext',
      moduleResolution: 'bundler',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts'] }));
    writeFileSync(join(dir, 'check.ts'), "export * from 'tether/client';\n");
    const r = run(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], dir);
    return r.output.split('\n').filter((line) => line.includes('dist/client/index.d.ts') || line.includes('check.ts'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the example's main.ts in the application (Tether resolved from node_modules/tether, as a client would).
 * Asynchronous: the server under test may live in this very process.
 */
export function runExample(app: string, env: Record<string, string>, timeoutMs = 60_000): Promise<CommandResult> {
  // tsx is Tether's, not the app's: load it by path (the example's own `npm start` uses its own tsx).
  const tsx = pathToFileURL(join(MODULES, 'tsx/dist/loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', tsx, 'src/main.ts'], {
    cwd: app,
    env: { ...process.env, ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}
