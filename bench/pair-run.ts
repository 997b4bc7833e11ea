// One run of the throughput workload for bench:pair (pair.ts), in the tree named by its argument:
// that tree's store and executor, on a fresh SQLite file. Prints `steps_per_second <n>`.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const tree = process.argv[2];
if (!tree) throw new Error('pair-run needs the tree to run in');
const from = (path: string) => import(pathToFileURL(join(tree, path)).href);
const { benchStore } = (await from('bench/stores.ts')) as typeof import('./stores.ts');
const { runDiamonds } = (await from('bench/throughput.ts')) as typeof import('./throughput.ts');
const steps = Number(process.env.BENCH_STEPS ?? 20_000);
const bench = await benchStore('sqlite');
try {
  const run = await runDiamonds(bench.store, steps);
  process.stdout.write(`steps_per_second ${Math.round(run.steps / run.seconds)}\n`);
} finally {
  await bench.dispose();
}
