#!/usr/bin/env node
// `npm start`'s build step: builds the console pages (`next build`) and the server bundle (scripts/build-server.mjs)
// only when their inputs changed since the last build this script made, so an unchanged tree serves in seconds
// rather than after a full `next build`.
//
// What counts as an input is listed in TARGETS. A target's fingerprint is every input file's path, size and
// modification time (no contents are read: cheap, and a touched file rebuilds). After a successful build the script
// writes dist/start-stamp.json: each target's fingerprint and an id of the output it built (.next/BUILD_ID, the
// bundle's size and time). A target is rebuilt when its output is missing, when its fingerprint differs, or when its
// output is not the one the stamp names (another command — `npm run build`, `npm test` — rebuilt it from other sources).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Files and folders read by the build of each target (relative to the project root); `exclude` cuts folders out. */
export const TARGETS = {
  next: {
    // Pages import components, the tRPC client glue and src/lib; they import only types from src/server (the lint
    // rule in eslint.config.js), so a server change does not change the pages.
    include: ['src', 'public', 'next.config.mjs', 'tsconfig.json', 'package.json', 'package-lock.json'],
    exclude: ['src/server', 'src/cli', 'src/generated'],
    // Next inlines NEXT_PUBLIC_* variables into the pages at build time.
    env: /^NEXT_PUBLIC_/,
  },
  server: {
    // The bundle is src/server/main.ts and what it imports from src/ (src/lib, src/trpc, the generated Prisma clients).
    include: ['src', 'prisma', 'scripts/build-server.mjs', 'tsconfig.json', 'package.json', 'package-lock.json'],
    exclude: ['src/app', 'src/components', 'src/cli'],
    env: undefined,
  },
};

export const STAMP = 'dist/start-stamp.json';

/** @param {string} root @param {string} rel @param {string[]} exclude @param {string[]} out */
function walk(root, rel, exclude, out) {
  if (exclude.includes(rel)) return;
  const abs = join(root, rel);
  let st;
  try {
    st = statSync(abs);
  } catch {
    return; // an optional input (public/) that is not there
  }
  if (st.isDirectory()) {
    for (const name of readdirSync(abs).sort()) walk(root, `${rel}/${name}`, exclude, out);
  } else {
    out.push(`${rel}\0${st.size}\0${st.mtimeMs}`);
  }
}

/**
 * The fingerprint of one target's inputs in `root`.
 * @param {string} root
 * @param {{ include: string[], exclude: string[], env?: RegExp }} target
 * @param {Record<string, string | undefined>} env
 */
export function fingerprint(root, target, env = process.env) {
  /** @type {string[]} */
  const lines = [`node ${process.version}`];
  for (const rel of target.include) walk(root, rel, target.exclude, lines);
  if (target.env) {
    for (const key of Object.keys(env)
      .filter((k) => target.env?.test(k))
      .sort())
      lines.push(`env ${key}=${env[key]}`);
  }
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** What identifies the output a target built, or undefined when it is missing. @param {string} root @param {'next' | 'server'} name */
export function outputId(root, name) {
  if (name === 'next') {
    const id = join(root, '.next/BUILD_ID');
    return existsSync(id) ? readFileSync(id, 'utf8').trim() : undefined;
  }
  const bundle = join(root, 'dist/server/main.mjs');
  if (!existsSync(bundle)) return undefined;
  const st = statSync(bundle);
  return `${st.size}:${st.mtimeMs}`;
}

/**
 * @typedef {{ fingerprint: string, output: string }} TargetStamp
 * @typedef {{ next?: TargetStamp, server?: TargetStamp }} Stamp
 */

/** @param {string} root @returns {Stamp} */
export function readStamp(root) {
  try {
    return JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Which targets to build, and why: `{ next: 'inputs changed' | undefined, server: … }` (undefined: up to date).
 * @param {string} root
 * @param {Stamp} stamp
 * @param {Record<string, string | undefined>} env
 */
export function decide(root, stamp = readStamp(root), env = process.env) {
  /** @type {Record<'next' | 'server', string | undefined>} */
  const reasons = { next: undefined, server: undefined };
  for (const name of /** @type {const} */ (['next', 'server'])) {
    const was = stamp[name];
    const output = outputId(root, name);
    if (output === undefined) reasons[name] = 'not built yet';
    else if (!was) reasons[name] = 'no record of what it was built from';
    else if (was.output !== output) reasons[name] = 'rebuilt since by another command';
    else if (was.fingerprint !== fingerprint(root, TARGETS[name], env)) reasons[name] = 'inputs changed';
  }
  return reasons;
}

/** @param {string} root @param {'next' | 'server'} name @param {string} fp */
export function recordBuild(root, name, fp) {
  const stamp = readStamp(root);
  const output = outputId(root, name);
  if (output === undefined) throw new Error(`${name} build left no output`);
  stamp[name] = { fingerprint: fp, output };
  mkdirSync(dirname(join(root, STAMP)), { recursive: true });
  writeFileSync(join(root, STAMP), `${JSON.stringify(stamp, null, 2)}\n`);
}

const COMMANDS = {
  next: [join('node_modules', '.bin', 'next'), ['build']],
  server: [process.execPath, ['scripts/build-server.mjs']],
};

function main() {
  const root = resolve(import.meta.dirname, '..');
  const reasons = decide(root);
  for (const name of /** @type {const} */ (['next', 'server'])) {
    const reason = reasons[name];
    if (!reason) {
      console.log(`${name}: unchanged since the last build, not rebuilt`);
      continue;
    }
    console.log(`${name}: building (${reason})`);
    // Taken before the build: an edit made while it runs makes the next start build again.
    const fp = fingerprint(root, TARGETS[name]);
    const [cmd, args] = COMMANDS[name];
    const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`${name} build failed (${r.error ? r.error.message : `exit ${r.status ?? r.signal}`})`);
      process.exit(1);
    }
    recordBuild(root, name, fp);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
