// `npm run bench:pair -- <git ref> [pairs] [--alternate]`: the SQLite throughput of this checkout against
// another commit's, in pairs of runs made at the same time. On this machine kind a run's figure
// moves by a quarter or more from one minute to the next with the host's load, so runs made one
// after the other compare the machine as much as the code; two runs side by side see the same
// machine. Each pair runs the throughput workload (throughput.ts: BENCH_STEPS steps, default
// 20,000, in plans of four, one executor pass) once in each tree, on a fresh SQLite file of its
// own, both processes started together, and prints both figures and their ratio; the end shows the
// ratios' mean and range. Both runs share the machine's two cores, so each figure is below what a
// run alone gives: read the ratio, never the figures, and only against the spread of the ratios.
//
// With `--alternate`, the two trees run one after the other in this one process instead, in
// shorter runs (BENCH_STEPS default 4,000 there), the tree that goes first changing every pair,
// and the first two pairs dropped as warm-up: the machine's drift from one second to the next hits
// both alike, and neither shares the cores with the other. The same engine against itself this
// way gave 1.013 at the mean over 38 pairs (0.997 the median) on a steady night, and 0.98 (1.015
// the median, single pairs 0.75-1.32) over 20 on a noisy one: read the median of 40 or more, which
// tells a change of 2-3 % where side-by-side pairs (one ratio each, runs 15 % apart) do not.
//
// The other commit is checked out in a temporary git worktree that borrows this checkout's
// node_modules, and removed at the end. It must have bench/throughput.ts's runDiamonds.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const alternate = process.argv.includes('--alternate');
const [ref, pairsArgument] = process.argv.slice(2).filter((argument) => argument !== '--alternate');

function fail(message: string): never {
  process.stderr.write(`bench:pair: ${message}\n`);
  process.exit(2);
}

function git(...args: string[]): string {
  const run = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) fail(`git ${args.join(' ')} failed: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

/** One run of the workload in `tree`, in a process of its own: its steps per second. */
function runIn(tree: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'pair-run.ts'), tree], { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const figure = Number(/steps_per_second (\d+)/.exec(out)?.[1]);
      if (code === 0 && Number.isFinite(figure)) resolve(figure);
      else reject(new Error(`the run in ${tree} ended with code ${code}: ${out.trim()}`));
    });
  });
}

/** The throughput workload of `tree`, loaded into this process (its own modules; node_modules shared). */
async function workloadOf(tree: string): Promise<{ once(steps: number): Promise<number> }> {
  const from = (path: string) => import(pathToFileURL(join(tree, path)).href);
  const { benchStore } = (await from('bench/stores.ts')) as typeof import('./stores.ts');
  const { runDiamonds } = (await from('bench/throughput.ts')) as typeof import('./throughput.ts');
  return {
    async once(steps) {
      const bench = await benchStore('sqlite');
      try {
        const run = await runDiamonds(bench.store, steps);
        return run.steps / run.seconds;
      } finally {
        await bench.dispose();
      }
    },
  };
}

/** The ratios (this checkout over `base`) of `pairs` pairs run one after the other in this process, warm-up dropped. */
async function alternating(base: string, pairs: number): Promise<number[]> {
  const steps = Number(process.env.BENCH_STEPS ?? 4000);
  const [theirs, ours] = [await workloadOf(base), await workloadOf(root)];
  const ratios: number[] = [];
  for (let i = 1; i <= pairs + WARM_UP_PAIRS; i += 1) {
    const first = i % 2 === 0 ? ours : theirs;
    const a = await first.once(steps);
    const b = await (first === ours ? theirs : ours).once(steps);
    const [theirFigure, ourFigure] = first === ours ? [b, a] : [a, b];
    if (i <= WARM_UP_PAIRS) continue;
    ratios.push(ourFigure / theirFigure);
    console.log(`pair ${i - WARM_UP_PAIRS}: ${ref} ${Math.round(theirFigure)}, this checkout ${Math.round(ourFigure)}, ratio ${(ourFigure / theirFigure).toFixed(3)}`);
  }
  return ratios;
}

/** Pairs run before the counted ones in --alternate, while V8 compiles both trees' code. */
const WARM_UP_PAIRS = 2;

if (!ref) fail('name the commit to compare against, for example: npm run bench:pair -- HEAD~1 8, or -- HEAD~1 40 --alternate');
const pairs = pairsArgument === undefined ? (alternate ? 40 : 6) : Number(pairsArgument);
if (!Number.isInteger(pairs) || pairs < 1 || pairs > 100) fail(`pairs must be a whole number from 1 to 100, not ${pairsArgument}`);
const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
const base = join(mkdtempSync(join(tmpdir(), 'praxis-pair-')), 'tree');
git('worktree', 'add', '--detach', base, commit);
try {
  if (!existsSync(join(base, 'bench', 'throughput.ts'))) fail(`${ref} has no bench/throughput.ts to run`);
  symlinkSync(join(root, 'node_modules'), join(base, 'node_modules'));
  console.log(`SQLite steps per second, ${ref} (${commit.slice(0, 7)}) against this checkout, ${pairs} pairs ${alternate ? 'alternating in one process' : 'run side by side'}`);
  const ratios: number[] = [];
  if (alternate) ratios.push(...(await alternating(base, pairs)));
  else {
    for (let i = 1; i <= pairs; i += 1) {
      const [theirs, ours] = await Promise.all([runIn(base), runIn(root)]);
      const ratio = ours / theirs;
      ratios.push(ratio);
      console.log(`pair ${i}: ${ref} ${theirs}, this checkout ${ours}, ratio ${ratio.toFixed(3)}`);
    }
  }
  const mean = ratios.reduce((sum, r) => sum + r, 0) / ratios.length;
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
  console.log(`ratio: mean ${mean.toFixed(3)}, median ${median.toFixed(3)}, from ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}`);
} finally {
  git('worktree', 'remove', '--force', base);
  rmSync(join(base, '..'), { recursive: true, force: true });
}
