// One profiled run of the throughput workload, for bench:profile (profile.ts), which runs this
// file compiled by tsc: a warm-up run, then BENCH_STEPS steps (default 20,000) on a fresh SQLite
// file under V8's sampling profiler, started and stopped around the executor's run only. Writes
// the profile (a .cpuprofile) to the path given as its argument and prints `steps <n>`.

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { benchStore } from './stores.ts';
import { runDiamonds } from './throughput.ts';

const out = process.argv[2];
if (!out) throw new Error('profile-run needs the path to write the profile to');
const steps = Number(process.env.BENCH_STEPS ?? 20_000);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
// Every 200 µs: fine enough for functions of a microsecond a step over 20,000 steps.
await session.post('Profiler.setSamplingInterval', { interval: 200 });
const bench = await benchStore('sqlite');
try {
  // V8 compiles the executor's code in the warm-up, as a daemon's is after its first minutes.
  await runDiamonds(bench.store, Math.min(steps, 8000));
  const run = await runDiamonds(bench.store, steps, {
    async before() {
      await session.post('Profiler.start');
    },
    async after() {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(out, JSON.stringify(profile));
    },
  });
  process.stdout.write(`steps ${run.steps} steps_per_second ${Math.round(run.steps / run.seconds)}\n`);
} finally {
  await bench.dispose();
}
