// `tsx bench/profile-summary.ts <file.cpuprofile>`: where a server's CPU time went, by owner — the evidence
// docs/BENCHMARKS.md asks for when a target is missed (framework, ORM, driver, database wait, our code).
// Self time of every sampled function is attributed to the package (node_modules/<name>), to Tether's own
// source (src/…), to Node internals, or to V8's pseudo-frames (GC, idle = waiting for I/O, i.e. the database).
// A frame in the server bundle (dist/server/main.mjs, scripts/build-server.mjs) is attributed to the source file it
// came from, through the bundle's source map.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function owner(url: string, fn: string): string {
  if (!url) return `(${fn || 'native'})`.replace(/^\(\((.*)\)\)$/, '($1)');
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const src = /\/(src\/[^/]+\/[^/]+)/.exec(url);
  if (src) return src[1]!;
  if (url.startsWith('node:')) return 'node internals';
  return url.replace(/^file:\/\//, '');
}

const sourceMaps = new Map<string, SourceMap | null>();

/** The frame as the sources have it: for a bundled file with a `.map` beside it, the original file and line. */
function sourceFrame(frame: ProfileNode['callFrame']): ProfileNode['callFrame'] {
  if (!frame.url.endsWith('.mjs')) return frame;
  let map = sourceMaps.get(frame.url);
  if (map === undefined) {
    const file = `${frame.url.startsWith('file:') ? fileURLToPath(frame.url) : frame.url}.map`;
    map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null;
    sourceMaps.set(frame.url, map);
  }
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber ?? 0);
  if (!entry || !('originalSource' in entry)) return frame;
  return { ...frame, url: entry.originalSource, lineNumber: entry.originalLine };
}

/**
 * The samples of the seconds in which the process was under load (at least 80 % of the second not idle), start-up
 * excluded (every second before the first one below 10 %): a bench server's profile covers its whole life, most of it
 * waiting while other series run, so the whole profile mostly says `(idle)` and how the server started.
 */
function loadedSeconds(profile: Profile, byId: Map<number, ProfileNode>): (i: number) => boolean {
  const second: number[] = [];
  const busy = new Map<number, [number, number]>();
  let t = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    const s = Math.floor(t / 1e6);
    second.push(s);
    const b = busy.get(s) ?? [0, 0];
    b[byId.get(id)!.callFrame.functionName === '(idle)' ? 1 : 0] += dt;
    busy.set(s, b);
  });
  const share = (s: number) => {
    const [work, idle] = busy.get(s) ?? [0, 0];
    return work / Math.max(1, work + idle);
  };
  const started = [...busy.keys()].sort((a, b) => a - b).find((s) => share(s) < 0.1) ?? 0;
  return (i) => second[i]! > started && share(second[i]!) >= 0.8;
}

export function summarize(profile: Profile, top = 25, loadedOnly = false): string {
  for (const node of profile.nodes) node.callFrame = sourceFrame(node.callFrame);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counted = loadedOnly ? loadedSeconds(profile, byId) : () => true;
  const selfByNode = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (counted(i)) selfByNode.set(id, (selfByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfByNode.values()].reduce((a, b) => a + b, 0);
  const byOwner = new Map<string, number>();
  const byFn = new Map<string, number>();
  for (const [id, us] of selfByNode) {
    const { callFrame } = byId.get(id)!;
    const o = owner(callFrame.url, callFrame.functionName);
    byOwner.set(o, (byOwner.get(o) ?? 0) + us);
    const fn = `${callFrame.functionName || '(anonymous)'} ${o}:${callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1)}%`.padStart(6);
  const lines = [`total ${(total / 1e6).toFixed(1)} s sampled`, '', 'self time by owner:'];
  for (const [o, us] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${o}`);
  lines.push('', 'hottest functions (self time):');
  for (const [f, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${f}`);
  return lines.join('\n');
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (file)
  process.stdout.write(
    summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, 25, args.includes('--loaded')) + '\n',
  );
else if (process.argv[1]?.endsWith('profile-summary.ts'))
  console.error('usage: tsx bench/profile-summary.ts [--loaded] <file.cpuprofile>');
