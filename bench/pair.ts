// `npm run bench:pair -- <git ref> [pairs]`: the SQLite throughput of this checkout against
// another commit's, in pairs of runs made at the same time. On this machine kind a run's figure
// moves by a quarter or more from one minute to the next with the host's load, so runs made one
// after the other compare the machine as much as the code; two runs side by side see the same
// machine. Each pair runs the throughput workload (throughput.ts: BENCH_STEPS steps, default
// 20,000, in plans of four, one executor pass) once in each tree, on a fresh SQLite file of its
// own, both processes started together, and prints both figures and their ratio; the end shows the
// ratios' mean and range. Both runs share the machine's two cores, so each figure is below what a
// run alone gives: read the ratio, never the figures, and only against the spread of the ratios.
//
// The other commit is checked out in a temporary git worktree that borrows this checkout's
// node_modules, and removed at the end. It must have bench/throughput.ts's runDiamonds.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [ref, pairsArgument] = process.argv.slice(2);

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

if (!ref) fail('name the commit to compare against, for example: npm run bench:pair -- HEAD~1 8');
const pairs = pairsArgument === undefined ? 6 : Number(pairsArgument);
if (!Number.isInteger(pairs) || pairs < 1 || pairs > 100) fail(`pairs must be a whole number from 1 to 100, not ${pairsArgument}`);
const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
const base = join(mkdtempSync(join(tmpdir(), 'praxis-pair-')), 'tree');
git('worktree', 'add', '--detach', base, commit);
try {
  if (!existsSync(join(base, 'bench', 'throughput.ts'))) fail(`${ref} has no bench/throughput.ts to run`);
  symlinkSync(join(root, 'node_modules'), join(base, 'node_modules'));
  console.log(`SQLite steps per second, ${ref} (${commit.slice(0, 7)}) against this checkout, ${pairs} pairs run side by side`);
  const ratios: number[] = [];
  for (let i = 1; i <= pairs; i += 1) {
    const [theirs, ours] = await Promise.all([runIn(base), runIn(root)]);
    const ratio = ours / theirs;
    ratios.push(ratio);
    console.log(`pair ${i}: ${ref} ${theirs}, this checkout ${ours}, ratio ${ratio.toFixed(3)}`);
  }
  const mean = ratios.reduce((sum, r) => sum + r, 0) / ratios.length;
  console.log(`ratio: mean ${mean.toFixed(3)}, from ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}`);
} finally {
  git('worktree', 'remove', '--force', base);
  rmSync(join(base, '..'), { recursive: true, force: true });
}
