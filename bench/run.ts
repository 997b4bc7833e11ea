// `npm run bench`: the executor's three figures on both stores, printed and written to
// bench/results.json.
//
// - steps_per_second: plans of trivial read-only steps (A, then B and C side by side, then D)
//   run through the executor loop from start to the last plan closing.
// - tick_cost_ratio_100k: the median cost of a tick with nothing due, with 100,000 closed plans
//   (each with a finished step and an execution) in the store, divided by the same with none.
//   Due work is found through partial indexes, so this should stay near 1.
// - approval_to_execute_ms_p50: with the loop running (and sleeping on the wake bus, 15 s
//   interval), the median time from an operator's approval to the step having executed and
//   been completed by the executor.
//
// Timing lives here, never in the tests. Environment: PRAXIS_TEST_PG_URL as for the tests;
// BENCH_PLANS, BENCH_HISTORY and BENCH_SAMPLES scale the runs down for a quick look.

import { writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { CapabilityService } from '../src/capabilities/service.ts';
import { newId } from '../src/core/ids.ts';
import type { PlanDraft, StepDraft } from '../src/core/plan.ts';
import { Executor } from '../src/execution/index.ts';
import { validate } from '../src/planning/validate.ts';
import type { MindRecord, Store, StoreKind } from '../src/store/index.ts';
import { benchImplementations, benchRegistry } from './capabilities.ts';
import { fillHistory } from './history.ts';
import { benchStore } from './stores.ts';

const PLANS = Number(process.env.BENCH_PLANS ?? 150);
const HISTORY = Number(process.env.BENCH_HISTORY ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 25);
const TICKS = 60;

function stepDraft(key: string, capability: string, dependsOn: string[]): StepDraft {
  return {
    key,
    title: `bench ${key}`,
    kind: 'capability',
    depends_on: dependsOn,
    capability,
    target: '',
    params: { name: key.toLowerCase() },
    expectation: null,
    precondition: null,
    max_attempts: 1,
    require_approval: false,
    spec: {},
  };
}

function draftOf(steps: StepDraft[]): PlanDraft {
  return { objective: 'benchmark', strategy: 'operator', assumptions: [], completion_criteria: '', abort_conditions: [], risk: '', estimate: {}, budget: {}, alternatives: [], steps };
}

async function storePlan(store: Store, mind: MindRecord, draft: PlanDraft): Promise<string> {
  const validation = validate(draft, benchRegistry);
  if (!validation.valid) throw new Error(`benchmark plan is invalid: ${JSON.stringify(validation.errors)}`);
  const intention = await store.intentions.create({ mindId: mind.id, objective: draft.objective, origin: 'operator' });
  const plan = await store.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft, validation, status: 'validated' });
  return plan.id;
}

async function setUp(store: Store) {
  const mind = await store.minds.create({ name: `bench-${newId()}` });
  await store.policyRules.set({ mindId: mind.id, capability: 'bench.read', targetPattern: '*', decision: 'allow', approvers: 1 });
  const service = new CapabilityService(store, benchRegistry, benchImplementations);
  return { mind, service };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function stepsPerSecond(kind: StoreKind): Promise<{ value: number; steps: number; seconds: number }> {
  const bench = await benchStore(kind);
  try {
    const { store } = bench;
    const { mind, service } = await setUp(store);
    const draft = draftOf([
      stepDraft('A', 'bench.read', []),
      stepDraft('B', 'bench.read', ['A']),
      stepDraft('C', 'bench.read', ['A']),
      stepDraft('D', 'bench.read', ['B', 'C']),
    ]);
    for (let i = 0; i < PLANS; i += 1) await storePlan(store, mind, draft);
    const executor = new Executor({ store, capabilities: service, intervalMs: 1000, concurrency: kind === 'postgres' ? 8 : 4, batch: 200 });
    const started = performance.now();
    executor.start();
    for (;;) {
      const open = await store.plans.listByMind(mind.id, { status: ['validated', 'executing'], limit: 1 });
      if (open.length === 0) break;
      await sleep(25);
    }
    const seconds = (performance.now() - started) / 1000;
    await executor.stop();
    const done = await store.plans.listByMind(mind.id, { status: 'completed', limit: PLANS + 1 });
    if (done.length !== PLANS) throw new Error(`only ${done.length} of ${PLANS} plans completed`);
    const steps = PLANS * draft.steps.length;
    return { value: Math.round(steps / seconds), steps, seconds: Math.round(seconds * 1000) / 1000 };
  } finally {
    await bench.dispose();
  }
}

async function tickCost(executor: Executor): Promise<number> {
  for (let i = 0; i < 5; i += 1) await executor.tick();
  const times: number[] = [];
  for (let i = 0; i < TICKS; i += 1) {
    const started = performance.now();
    await executor.tick();
    times.push(performance.now() - started);
  }
  return median(times);
}

async function tickCostRatio(kind: StoreKind): Promise<{ value: number; emptyMs: number; fullMs: number; history: number }> {
  const bench = await benchStore(kind);
  try {
    const { store } = bench;
    const { mind, service } = await setUp(store);
    const executor = new Executor({ store, capabilities: service, concurrency: 4, batch: 100 });
    const emptyMs = await tickCost(executor);
    await fillHistory(store, mind, HISTORY);
    // What autovacuum (PostgreSQL) or an operator's ANALYZE (SQLite) would have done by now.
    await sql`analyze`.execute(store.db);
    const fullMs = await tickCost(executor);
    return { value: Math.round((fullMs / emptyMs) * 100) / 100, emptyMs: Math.round(emptyMs * 1000) / 1000, fullMs: Math.round(fullMs * 1000) / 1000, history: HISTORY };
  } finally {
    await bench.dispose();
  }
}

async function approvalToExecute(kind: StoreKind): Promise<{ value: number; samples: number; p90: number }> {
  const bench = await benchStore(kind);
  try {
    const { store } = bench;
    const { mind, service } = await setUp(store);
    const executor = new Executor({ store, capabilities: service, concurrency: 4 });
    executor.start();
    const latencies: number[] = [];
    try {
      for (let i = 0; i < SAMPLES; i += 1) {
        const planId = await storePlan(store, mind, draftOf([stepDraft('W', 'bench.write', [])]));
        await store.events.append({ type: 'plan_validated', mindId: mind.id, planId });
        let step = (await store.plans.get(planId))!.steps[0]!;
        while (step.status !== 'awaiting_approval') {
          await sleep(1);
          step = (await store.steps.get(step.id))!;
        }
        const started = performance.now();
        const answer = await service.approve(step.approvalId!, 'bench-operator');
        if (answer.status !== 'approved') throw new Error(`approval answered ${answer.status}`);
        while (step.status !== 'completed') {
          await new Promise((resolve) => setImmediate(resolve));
          step = (await store.steps.get(step.id))!;
          if (step.status === 'failed') throw new Error(`the approved step failed: ${step.error}`);
        }
        latencies.push(performance.now() - started);
      }
    } finally {
      await executor.stop();
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    return { value: Math.round(median(latencies) * 100) / 100, samples: latencies.length, p90: Math.round(sorted[Math.floor(sorted.length * 0.9)]! * 100) / 100 };
  } finally {
    await bench.dispose();
  }
}

const kinds: StoreKind[] = ['sqlite', 'postgres'];
const results = {
  steps_per_second: {} as Record<StoreKind, number>,
  tick_cost_ratio_100k: {} as Record<StoreKind, number>,
  approval_to_execute_ms_p50: {} as Record<StoreKind, number>,
  details: {} as Record<string, unknown>,
  measured_at: new Date().toISOString(),
  node: process.version,
  plans: PLANS,
  history: HISTORY,
  samples: SAMPLES,
};

for (const kind of kinds) {
  process.stdout.write(`${kind}: steps per second... `);
  const throughput = await stepsPerSecond(kind);
  results.steps_per_second[kind] = throughput.value;
  process.stdout.write(`${throughput.value} (${throughput.steps} steps in ${throughput.seconds} s)\n`);

  process.stdout.write(`${kind}: tick cost with ${HISTORY} closed plans... `);
  const ratio = await tickCostRatio(kind);
  results.tick_cost_ratio_100k[kind] = ratio.value;
  process.stdout.write(`ratio ${ratio.value} (median tick ${ratio.emptyMs} ms empty, ${ratio.fullMs} ms with history)\n`);

  process.stdout.write(`${kind}: approval to execution... `);
  const latency = await approvalToExecute(kind);
  results.approval_to_execute_ms_p50[kind] = latency.value;
  process.stdout.write(`p50 ${latency.value} ms, p90 ${latency.p90} ms over ${latency.samples} approvals\n`);
  results.details[kind] = { throughput, tick: ratio, approval: latency };
}

const file = new URL('./results.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\nwritten to bench/results.json\n`);
console.table(
  kinds.map((kind) => ({
    store: kind,
    steps_per_second: results.steps_per_second[kind],
    tick_cost_ratio_100k: results.tick_cost_ratio_100k[kind],
    approval_to_execute_ms_p50: results.approval_to_execute_ms_p50[kind],
  })),
);
