// `npm run bench`: the executor's figures on both stores, printed and written to
// bench/results.json. Timing lives here, never in the tests.
//
// - steps_per_second {sqlite, postgres}: the median of BENCH_RUNS runs (default 3) of
//   BENCH_STEPS trivial read-only steps (default 20,000; throughput.ts), with
//   ratio_to_commit_limit: the same figure over the store's own one-row commit stream measured
//   in the same run at the same durability (commit-rate.ts).
// - statements_per_step and commits_per_step for a read-only and a non-idempotent step, counted
//   from the store's query log (costs.ts): what one more step in a pass adds; and
//   per_step_in_a_batch: everything 50 plans of four steps cost together, shared out per step.
// - approval_to_executing_ms_p50 in process on SQLite, cross_process_wake_ms_p50,
//   takeover_after_kill_ms_p50 and cross_host_takeover_after_kill_ms_p50 on PostgreSQL
//   (latency.ts); in details.latency also
//   cross_process_after_quiet: BENCH_QUIET_SAMPLES approvals (default 3; 0 skips them) each
//   after 11 s of quiet, past the pool's idle timeout, as approvals usually come.
// - tick_cost_ratio_100k {sqlite, postgres}: the median cost of a pass with nothing due, with
//   BENCH_HISTORY closed plans (default 100,000) in the store, over the same with none: two
//   stores, their passes taken in turn, so that the machine's drift falls on both alike. The
//   executors have a host, as every daemon has (its name by default), so each read of steps
//   walks two parts of the due index (its host's and the unbound).
// - idle_tick_ms {sqlite, postgres}: the median of those passes on the empty store: what a
//   daemon with nothing to do spends on a pass, its housekeeping included.
// - due_read_ratio_backlog {sqlite, postgres}: the median time of the executor's read of due
//   steps (a batch of 100) with BENCH_BACKLOG ready steps waiting (default 20,000), over the same
//   with a batch and a half waiting, taken in turn likewise: the read walks the due index and
//   stops at the batch (migration 0017), so the backlog should not show.
//   The backlog's mind is bound to a host and the read is its daemon's, which also walks the
//   unbound part of the due index (migration 0019).
// - due_read_ratio_other_host {sqlite, postgres}: the same read by a daemon of another host,
//   with the backlog over the same with a batch and a half: it walks neither part of the
//   backlog's host (before 0019 it walked all of it on every pass), so it should not show.
// - settle_sweep_ms_backlog {sqlite, postgres}: the median time of the settling sweep's read
//   (planIdsToSettle, every SETTLE_SWEEP_SECONDS on each daemon) on the same store with the
//   backlog: it looks at every live plan, so it grows with them, but never by compiling itself
//   (PostgreSQL's JIT took 400 ms of it before the store turned JIT off).
//
// Environment: PRAXIS_TEST_PG_URL as for the tests; BENCH_PASSES sets the executor's passes side by
// side (default: as the daemon, 2 on PostgreSQL, 1 on SQLite); BENCH_STEPS, BENCH_RUNS, BENCH_HISTORY, BENCH_BACKLOG and
// BENCH_SAMPLES scale the runs down for a quick look (results.json records what was used).
// BENCH_RESULTS names the file the figures go to (default bench/results.json; npm run bench:node22
// writes bench/results-node22.json, from a run under Node 22: scripts/node22.sh).

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { CapabilityService } from '../src/capabilities/service.ts';
import { newId } from '../src/core/ids.ts';
import { Executor } from '../src/execution/executor.ts';
import type { Store, StoreKind } from '../src/store/index.ts';
import { benchImplementations, benchRegistry } from './capabilities.ts';
import { costPerStep, type Counts } from './costs.ts';
import { fillBacklog, fillHistory } from './history.ts';
import { approvalToExecuting, crossProcessWake, median, QUIET_PAUSE_MS, takeoverAfterKill } from './latency.ts';
import { benchStore } from './stores.ts';
import { throughput, type Throughput } from './throughput.ts';

const STEPS = Number(process.env.BENCH_STEPS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const HISTORY = Number(process.env.BENCH_HISTORY ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 25);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 20_000);
const TICKS = 60;
/** The executor's batch, as the daemon runs it: what a due read asks for. */
const BATCH = 100;

/**
 * The median of `reads` timed calls of `a` and of `b` (a pass, a read), taken in turn, which
 * goes first alternating so neither always follows the other's garbage, after five of each to
 * warm up: both medians come from the same minutes of the machine, whose speed drifts by a
 * quarter and more from one minute to the next, so their ratio measures the two and not the drift.
 */
async function inTurn(a: () => Promise<unknown>, b: () => Promise<unknown>, reads: number): Promise<{ aMs: number; bMs: number }> {
  for (let i = 0; i < 5; i += 1) {
    await a();
    await b();
  }
  const times = { a: [] as number[], b: [] as number[] };
  const timed = async (read: () => Promise<unknown>, into: number[]) => {
    const started = performance.now();
    await read();
    into.push(performance.now() - started);
  };
  for (let i = 0; i < reads; i += 1) {
    const pair: [() => Promise<void>, () => Promise<void>] = [() => timed(a, times.a), () => timed(b, times.b)];
    if (i % 2 === 1) pair.reverse();
    await pair[0]();
    await pair[1]();
  }
  return { aMs: median(times.a), bMs: median(times.b) };
}

/** The cost of a pass over a store with HISTORY closed plans, against one with none, each on a store of its own. */
async function tickCostRatio(kind: StoreKind) {
  const emptyBench = await benchStore(kind);
  const fullBench = await benchStore(kind);
  try {
    const executorOn = (store: Store) => new Executor({ store, capabilities: new CapabilityService(store, benchRegistry, benchImplementations), concurrency: 4, batch: 100, host: BACKLOG_HOST });
    await emptyBench.store.minds.create({ name: `bench-${newId()}` });
    const mind = await fullBench.store.minds.create({ name: `bench-${newId()}` });
    await fillHistory(fullBench.store, mind, HISTORY);
    // What autovacuum (PostgreSQL) or an operator's ANALYZE (SQLite) would have done by now.
    await sql`analyze`.execute(fullBench.store.db);
    await sql`analyze`.execute(emptyBench.store.db);
    const [empty, full] = [executorOn(emptyBench.store), executorOn(fullBench.store)];
    const { aMs: emptyMs, bMs: fullMs } = await inTurn(
      () => empty.tick(),
      () => full.tick(),
      TICKS,
    );
    return { value: Math.round((fullMs / emptyMs) * 100) / 100, emptyMs: Math.round(emptyMs * 1000) / 1000, fullMs: Math.round(fullMs * 1000) / 1000, history: HISTORY };
  } finally {
    await Promise.all([emptyBench.dispose(), fullBench.dispose()]);
  }
}

/** How a read's median time with BACKLOG waiting compares with the same read with a batch and a half waiting. */
interface BacklogRead {
  value: number;
  smallMs: number;
  largeMs: number;
}

/** The host the backlog's mind is bound to, and another daemon's. */
const BACKLOG_HOST = 'bench-a';
const OTHER_HOST = 'bench-b';

/**
 * Reads a pass makes, each on a store with BACKLOG running plans of a mind bound to
 * BACKLOG_HOST waiting (each with a ready step) against one with a batch and a half, each store of
 * its own, taken in turn:
 * - due: the due read of a batch of BATCH by a daemon of that host, which walks its host's part
 *   of the due index and the unbound part (migration 0019);
 * - otherHost: the same read by a daemon of OTHER_HOST, with nothing to do: it walks neither part
 *   of the backlog's host (before 0019 it walked the whole backlog on every pass);
 * - sweep: the settling sweep (planIdsToSettle) of the backlog's host, which looks at every live
 *   plan; what it costs on each daemon every SETTLE_SWEEP_SECONDS.
 */
async function backlogReads(kind: StoreKind): Promise<{ due: BacklogRead; otherHost: BacklogRead; sweep: BacklogRead; backlog: number; batch: number }> {
  const smallBench = await benchStore(kind);
  const largeBench = await benchStore(kind);
  try {
    const fill = async (store: Store, count: number) => fillBacklog(store, await store.minds.create({ name: `bench-${newId()}`, host: BACKLOG_HOST }), count);
    await fill(smallBench.store, BATCH + BATCH / 2);
    await fill(largeBench.store, BACKLOG);
    await sql`analyze`.execute(smallBench.store.db);
    await sql`analyze`.execute(largeBench.store.db);
    const compared = async (read: (store: Store) => () => Promise<unknown>): Promise<BacklogRead> => {
      const { aMs, bMs } = await inTurn(read(smallBench.store), read(largeBench.store), TICKS);
      return { value: Math.round((bMs / aMs) * 100) / 100, smallMs: Math.round(aMs * 1000) / 1000, largeMs: Math.round(bMs * 1000) / 1000 };
    };
    const due = await compared((store) => () => store.executorQueries.dueSteps({ now: new Date(), host: BACKLOG_HOST, limit: BATCH }));
    const otherHost = await compared((store) => () => store.executorQueries.dueSteps({ now: new Date(), host: OTHER_HOST, limit: BATCH }));
    const sweep = await compared((store) => () => store.executorQueries.planIdsToSettle({ host: BACKLOG_HOST, limit: BATCH }));
    return { due, otherHost, sweep, backlog: BACKLOG, batch: BATCH };
  } finally {
    await Promise.all([smallBench.dispose(), largeBench.dispose()]);
  }
}

const kinds: StoreKind[] = ['sqlite', 'postgres'];
const results = {
  steps_per_second: {} as Record<StoreKind, number>,
  ratio_to_commit_limit: {} as Record<StoreKind, number>,
  statements_per_step: {} as Record<StoreKind, { read_only: number; non_idempotent: number }>,
  commits_per_step: {} as Record<StoreKind, { read_only: number; non_idempotent: number }>,
  /** Everything a batch of plans costs (starting, moves, settling, closing, housekeeping), per step. */
  per_step_in_a_batch: {} as Record<StoreKind, { read_only: Counts; non_idempotent: Counts }>,
  approval_to_executing_ms_p50: 0,
  cross_process_wake_ms_p50: 0,
  takeover_after_kill_ms_p50: 0,
  cross_host_takeover_after_kill_ms_p50: 0,
  tick_cost_ratio_100k: {} as Record<StoreKind, number>,
  idle_tick_ms: {} as Record<StoreKind, number>,
  due_read_ratio_backlog: {} as Record<StoreKind, number>,
  due_read_ratio_other_host: {} as Record<StoreKind, number>,
  settle_sweep_ms_backlog: {} as Record<StoreKind, number>,
  details: {} as Record<string, unknown>,
  measured_at: new Date().toISOString(),
  node: process.version,
  steps: STEPS,
  runs: RUNS,
  history: HISTORY,
  backlog: BACKLOG,
  samples: SAMPLES,
};

for (const kind of kinds) {
  const runs: Throughput[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    process.stdout.write(`${kind}: steps per second, run ${run} of ${RUNS}... `);
    const measured = await throughput(kind, STEPS);
    runs.push(measured);
    process.stdout.write(
      `${measured.steps_per_second} (${measured.steps} steps in ${measured.seconds} s; the store commits ${measured.commits_per_second}/s: ratio ${measured.ratio_to_commit_limit}; ${measured.passes} pass(es) side by side, the process busy ${Math.round(measured.process_cpu_share * 100)} % of the run)\n`,
    );
  }
  results.steps_per_second[kind] = median(runs.map((r) => r.steps_per_second));
  results.ratio_to_commit_limit[kind] = median(runs.map((r) => r.ratio_to_commit_limit));

  process.stdout.write(`${kind}: statements and commits per step... `);
  const read = await costPerStep(kind, 'bench.read');
  const write = await costPerStep(kind, 'bench.write');
  results.statements_per_step[kind] = { read_only: read.per_step.statements, non_idempotent: write.per_step.statements };
  results.commits_per_step[kind] = { read_only: read.per_step.commits, non_idempotent: write.per_step.commits };
  results.per_step_in_a_batch[kind] = { read_only: read.per_step_in_a_batch, non_idempotent: write.per_step_in_a_batch };
  process.stdout.write(
    `read-only ${read.per_step.statements} statements, ${read.per_step.commits} commits; non-idempotent ${write.per_step.statements} statements, ${write.per_step.commits} commits (each step more in a pass); ` +
      `in a batch of 50 plans, all costs shared out: read-only ${read.per_step_in_a_batch.statements} statements, ${read.per_step_in_a_batch.commits} commits; non-idempotent ${write.per_step_in_a_batch.statements} statements, ${write.per_step_in_a_batch.commits} commits\n`,
  );

  process.stdout.write(`${kind}: tick cost with ${HISTORY} closed plans... `);
  const ratio = await tickCostRatio(kind);
  results.tick_cost_ratio_100k[kind] = ratio.value;
  results.idle_tick_ms[kind] = ratio.emptyMs;
  process.stdout.write(`ratio ${ratio.value} (median tick ${ratio.emptyMs} ms empty, ${ratio.fullMs} ms with history)\n`);

  process.stdout.write(`${kind}: reads with ${BACKLOG} ready steps waiting... `);
  const backlog = await backlogReads(kind);
  const { due, otherHost, sweep } = backlog;
  results.due_read_ratio_backlog[kind] = due.value;
  results.due_read_ratio_other_host[kind] = otherHost.value;
  results.settle_sweep_ms_backlog[kind] = sweep.largeMs;
  process.stdout.write(
    `the due read of a batch of ${BATCH}: ratio ${due.value} (median ${due.smallMs} ms with ${BATCH + BATCH / 2} waiting, ${due.largeMs} ms with ${BACKLOG}); ` +
      `another host's daemon: ratio ${otherHost.value} (${otherHost.smallMs} ms, ${otherHost.largeMs} ms); ` +
      `the settling sweep: ${sweep.largeMs} ms (${sweep.smallMs} ms with ${BATCH + BATCH / 2} waiting)\n`,
  );
  results.details[kind] = { throughput: runs, costs: { read_only: read, non_idempotent: write }, tick: ratio, backlog_reads: backlog };
}

process.stdout.write('sqlite: approval to executing, in process... ');
const inProcess = await approvalToExecuting('sqlite', SAMPLES);
results.approval_to_executing_ms_p50 = inProcess.p50;
process.stdout.write(`p50 ${inProcess.p50} ms, p90 ${inProcess.p90} ms over ${inProcess.samples} approvals\n`);

process.stdout.write('postgres: approval here, step started by an executor in another process... ');
const crossProcess = await crossProcessWake(SAMPLES);
results.cross_process_wake_ms_p50 = crossProcess.p50;
process.stdout.write(`p50 ${crossProcess.p50} ms, p90 ${crossProcess.p90} ms over ${crossProcess.samples} approvals\n`);

const QUIET_SAMPLES = Number(process.env.BENCH_QUIET_SAMPLES ?? 3);
process.stdout.write(`postgres: the same after ${QUIET_PAUSE_MS / 1000} s of quiet before each approval... `);
const afterQuiet = QUIET_SAMPLES > 0 ? await crossProcessWake(QUIET_SAMPLES, QUIET_PAUSE_MS) : null;
process.stdout.write(afterQuiet ? `p50 ${afterQuiet.p50} ms, p90 ${afterQuiet.p90} ms over ${afterQuiet.samples} approvals\n` : 'skipped (BENCH_QUIET_SAMPLES=0)\n');

process.stdout.write('postgres: takeover of a write claimed by a killed executor... ');
const takeover = await takeoverAfterKill(Math.max(3, Math.min(5, SAMPLES)));
results.takeover_after_kill_ms_p50 = takeover.p50;
process.stdout.write(`p50 ${takeover.p50} ms over ${takeover.samples} kills (the claim's lease was ${takeover.lease_seconds} s)\n`);
process.stdout.write('postgres: the same with the killed executor on another host (its presence lock tells)... ');
const crossHost = await takeoverAfterKill(Math.max(3, Math.min(5, SAMPLES)), true);
results.cross_host_takeover_after_kill_ms_p50 = crossHost.p50;
process.stdout.write(`p50 ${crossHost.p50} ms over ${crossHost.samples} kills\n`);
results.details.latency = {
  in_process: inProcess,
  cross_process: crossProcess,
  cross_process_after_quiet: afterQuiet && { ...afterQuiet, quiet_ms: QUIET_PAUSE_MS },
  takeover,
  cross_host_takeover: crossHost,
};

const file = process.env.BENCH_RESULTS || fileURLToPath(new URL('./results.json', import.meta.url));
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\nwritten to ${file}\n`);
console.table(
  kinds.map((kind) => ({
    store: kind,
    steps_per_second: results.steps_per_second[kind],
    ratio_to_commit_limit: results.ratio_to_commit_limit[kind],
    'statements/step (read, write)': `${results.statements_per_step[kind].read_only}, ${results.statements_per_step[kind].non_idempotent}`,
    'commits/step (read, write)': `${results.commits_per_step[kind].read_only}, ${results.commits_per_step[kind].non_idempotent}`,
    tick_cost_ratio_100k: results.tick_cost_ratio_100k[kind],
    idle_tick_ms: results.idle_tick_ms[kind],
    due_read_ratio_backlog: results.due_read_ratio_backlog[kind],
    due_read_ratio_other_host: results.due_read_ratio_other_host[kind],
    settle_sweep_ms_backlog: results.settle_sweep_ms_backlog[kind],
  })),
);
console.table([
  { figure: 'approval_to_executing_ms_p50 (sqlite, in process)', value: results.approval_to_executing_ms_p50 },
  { figure: 'cross_process_wake_ms_p50 (postgres)', value: results.cross_process_wake_ms_p50 },
  { figure: 'takeover_after_kill_ms_p50 (postgres)', value: results.takeover_after_kill_ms_p50 },
  { figure: 'cross_host_takeover_after_kill_ms_p50 (postgres)', value: results.cross_host_takeover_after_kill_ms_p50 },
]);
