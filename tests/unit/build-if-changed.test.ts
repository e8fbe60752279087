// `npm start` builds only what changed (scripts/build-if-changed.mjs): on a temp project tree, an unchanged tree builds
// nothing, a changed page rebuilds the pages only, a changed server file the bundle only, and an output rebuilt by
// another command (or missing) is rebuilt.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decide, fingerprint, recordBuild, TARGETS } from '../../scripts/build-if-changed.mjs';

let root: string;

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** What a build leaves behind, then the stamp the script writes after it. */
function build(name: 'next' | 'server', id = 'BUILD-1'): void {
  if (name === 'next') write('.next/BUILD_ID', id);
  else write('dist/server/main.mjs', `// bundle ${id}`);
  recordBuild(root, name, fingerprint(root, TARGETS[name], {}));
}

/** A later modification time, as an editor's save gives (file systems may keep mtimes coarser than a test runs). */
function touch(rel: string): void {
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(root, rel), later, later);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tether-start-'));
  write('package.json', '{}');
  write('package-lock.json', '{}');
  write('tsconfig.json', '{}');
  write('next.config.mjs', 'export default {};');
  write('src/app/page.tsx', 'export default function Page() {}');
  write('src/components/ui.tsx', 'export {};');
  write('src/server/main.ts', 'export {};');
  write('src/lib/visible-id.ts', 'export {};');
  write('prisma/sqlite/schema.prisma', '');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('npm start: which builds an unchanged or changed tree needs', () => {
  it('builds both on a tree that was never built', () => {
    expect(decide(root, undefined, {})).toEqual({ next: 'not built yet', server: 'not built yet' });
  });

  it('builds nothing on an unchanged tree', () => {
    build('next');
    build('server');
    expect(decide(root, undefined, {})).toEqual({ next: undefined, server: undefined });
  });

  it('rebuilds the pages only when a page or component changed', () => {
    build('next');
    build('server');
    touch('src/components/ui.tsx');
    expect(decide(root, undefined, {})).toEqual({ next: 'inputs changed', server: undefined });
  });

  it('rebuilds the server bundle only when a server file changed', () => {
    build('next');
    build('server');
    touch('src/server/main.ts');
    expect(decide(root, undefined, {})).toEqual({ next: undefined, server: 'inputs changed' });
  });

  it('rebuilds both when a file both read changes, a new file appears, or the lockfile changes', () => {
    build('next');
    build('server');
    write('src/lib/new-helper.ts', 'export {};');
    expect(decide(root, undefined, {})).toEqual({ next: 'inputs changed', server: 'inputs changed' });
    build('next', 'BUILD-2');
    build('server', 'BUILD-2');
    touch('package-lock.json');
    expect(decide(root, undefined, {})).toEqual({ next: 'inputs changed', server: 'inputs changed' });
  });

  it('rebuilds the pages when a NEXT_PUBLIC_ variable (inlined at build time) changed, not for other variables', () => {
    build('next');
    build('server');
    expect(decide(root, undefined, { DATABASE_URL: 'file:other.db' })).toEqual({ next: undefined, server: undefined });
    expect(decide(root, undefined, { NEXT_PUBLIC_X: '1' })).toEqual({ next: 'inputs changed', server: undefined });
  });

  it('rebuilds an output that another command rebuilt from other sources, or that is gone', () => {
    build('next');
    build('server');
    write('.next/BUILD_ID', 'BUILD-FROM-ELSEWHERE');
    rmSync(join(root, 'dist/server/main.mjs'));
    expect(decide(root, undefined, {})).toEqual({ next: 'rebuilt since by another command', server: 'not built yet' });
  });
});
