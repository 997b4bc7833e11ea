// `npm run bench:profile [-- --top N]`: where a read-only step's CPU goes, function by function.
// The checkout is compiled by tsc into .cache/profile/tree (tsx's output puts each module on one
// line, so its profiles name no lines; tsc's keeps them), and one run of the throughput workload
// (profile-run.ts: a warm-up, then BENCH_STEPS steps, default 20,000) is profiled there in a
// process of its own, on the Node that runs this. It prints the run's CPU in µs per step, the
// files and functions with the most self time (file:line), and the native parts (the garbage
// collector, SQLite's statements as better-sqlite3's `run` and `all`), and writes the profile
// to .cache/profile/run.cpuprofile for a closer look (Chrome's DevTools open it). Lines are those
// of the compiled files in .cache/profile/tree. On Node 20 a few µs a step show as `dispatch
// (native)`: that is the inspector's own, not Praxis's. The figures
// compare functions with each other, or one commit with another on the same Node and night;
// they set no target. To compare the Node lines: bash scripts/node22.sh npm run bench:profile.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, '.cache', 'profile');
const tree = join(dir, 'tree');
const output = join(dir, 'run.cpuprofile');
const topArgument = process.argv.indexOf('--top');
const top = topArgument > 0 ? Number(process.argv[topArgument + 1]) : 30;
if (!Number.isInteger(top) || top < 1) {
  process.stderr.write('bench:profile: --top takes a whole number of rows\n');
  process.exit(2);
}

// A fresh tree each time: no output of a source since removed is left behind to run.
rmSync(tree, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Emitted without a type check (npm run typecheck does that); inside the checkout, so the compiled
// modules find its node_modules and its package.json ("type": "module").
const compiled = spawnSync(
  process.execPath,
  [
    tsc,
    '-p',
    join(root, 'tsconfig.json'),
    '--noEmit',
    'false',
    '--outDir',
    tree,
    '--rootDir',
    root,
    '--rewriteRelativeImportExtensions',
    '--declaration',
    'false',
    '--noCheck',
    '--incremental',
    'false',
  ],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
const run = spawnSync(process.execPath, [join(tree, 'bench', 'profile-run.js'), output], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
if (run.status !== 0) process.exit(run.status ?? 1);
const steps = Number(/steps (\d+)/.exec(run.stdout)?.[1]);
const perSecond = /steps_per_second (\d+)/.exec(run.stdout)?.[1];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const profile = JSON.parse(readFileSync(output, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));

/** Where a frame's code is: a path in the checkout (src/…, bench/…), a package, or Node's own. */
function placeOf(url: string): string {
  if (url === '') return '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(tree)) return relative(tree, path);
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return packaged ? packaged[1]! : path;
}

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const frame = nodes.get(id)!.callFrame;
  const ms = (profile.timeDeltas[i] ?? 0) / 1000;
  const place = placeOf(frame.url);
  // The line is the compiled file's, in .cache/profile/tree (tsc drops types, so the source's is near it).
  const name = `${frame.functionName || '(anonymous)'} ${place}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
  total += ms;
});

const perStep = (ms: number) => Math.round((ms * 1000 * 100) / steps) / 100;
const rows = (times: Map<string, number>, key: string) =>
  [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ us_per_step: perStep(ms), [key]: name }));
console.log(`\n${steps} read-only steps on SQLite (${perSecond} steps/s while profiled), Node ${process.version}: ${perStep(total)} µs of CPU per step`);
console.log('\nself time by file or package ((native): SQLite statements, the garbage collector, idle)');
console.table(rows(byPlace, 'place'));
console.log('\nself time by function');
console.table(rows(byFunction, 'function'));
console.log(`\nthe profile: ${relative(root, output)}`);
