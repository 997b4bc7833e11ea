// Steps per second: plans of trivial read-only steps (A, then B and C side by side, then D) run
// by the executor loop from the first start to the last plan closing. Completion is read from
// the store's events (plan_completed, walked in seq order after every pass, never past a seq
// still in flight), not from a timer.

import { LogWalk } from '../src/bus/log-walk.ts';
import { CapabilityService } from '../src/capabilities/service.ts';
import { newId } from '../src/core/ids.ts';
import type { PlanDraft, StepDraft } from '../src/core/plan.ts';
import { Executor } from '../src/execution/executor.ts';
import type { ExecutorObserver } from '../src/execution/tick.ts';
import { validate } from '../src/planning/validate.ts';
import type { Store, StoreKind, StoreOptions } from '../src/store/index.ts';
import { benchImplementations, benchRegistry } from './capabilities.ts';
import { commitRate } from './commit-rate.ts';
import { benchStore } from './stores.ts';

export function benchStep(key: string, capability: string, dependsOn: string[] = []): StepDraft {
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

export function benchDraft(steps: StepDraft[]): PlanDraft {
  return { objective: 'benchmark', strategy: 'operator', assumptions: [], completion_criteria: '', abort_conditions: [], risk: '', estimate: {}, budget: {}, alternatives: [], steps };
}

const DIAMOND = benchDraft([benchStep('A', 'bench.read'), benchStep('B', 'bench.read', ['A']), benchStep('C', 'bench.read', ['A']), benchStep('D', 'bench.read', ['B', 'C'])]);

export interface Throughput {
  steps_per_second: number;
  steps: number;
  seconds: number;
  /** The store's one-row commit stream in the same run, at the same durability. */
  commits_per_second: number;
  ratio_to_commit_limit: number;
  /** This process's CPU time over the run's wall time: near 1 (or above, with GC threads), the executor is bound by its own CPU. */
  process_cpu_share: number;
  /** Passes the executor ran side by side (BENCH_PASSES; by default 2 on PostgreSQL, 1 on SQLite, as the daemon runs). */
  passes: number;
}

/** What a run of the diamond workload lets its caller do around the timed part. */
export interface AroundRun {
  /** After the plans are written, before the executor starts. */
  before?(store: Store): Promise<void>;
  /** Once every plan has completed, before the executor stops. */
  after?(store: Store): Promise<void>;
  /** Told the wall time of each part of each pass (ExecutorObserver.phase). */
  phase?: ExecutorObserver['phase'];
}

/**
 * Writes plans of the diamond for `steps` steps (validated, not started), then runs the executor
 * until the store's events show every plan completed. Returns the run's figures, timed from the
 * executor's start to the last completion.
 */
export async function runDiamonds(store: Store, steps: number, around: AroundRun = {}): Promise<{ steps: number; seconds: number; cpuSeconds: number; passes: number }> {
  const { kind } = store;
  const mind = await store.minds.create({ name: `bench-${newId()}` });
  await store.policyRules.set({ mindId: mind.id, capability: 'bench.read', targetPattern: '*', decision: 'allow', approvers: 1 });
  const validation = validate(DIAMOND, benchRegistry);
  if (!validation.valid) throw new Error(`benchmark plan is invalid: ${JSON.stringify(validation.errors)}`);
  const plans = Math.ceil(steps / DIAMOND.steps.length);
  for (let done = 0; done < plans; done += 200) {
    await store.transaction(async (tx) => {
      for (let i = done; i < Math.min(plans, done + 200); i += 1) {
        const intention = await tx.intentions.create({ mindId: mind.id, objective: 'benchmark', origin: 'operator' });
        await tx.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft: DIAMOND, validation, status: 'validated' });
      }
    });
  }
  // The plans' completions, read as an operator's event stream reads the log (LogWalk): on
  // PostgreSQL two passes commit their events in either order, and a reader that moved past a seq
  // still in flight would never count the plan behind it.
  const completions = new LogWalk(store, { mindId: mind.id, types: ['plan_completed'] }, await store.events.latestSeq());
  let completed = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let reading = false;
  let again = false;
  const readCompletions = async () => {
    if (reading) {
      // A pass ended during the read: read once more after it, or its completions wait for the next pass.
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        for (;;) {
          const events = await completions.next(5000);
          completed += events.length;
          if (events.length < 5000) break;
        }
      } while (again);
      if (completed >= plans) finish();
      // A completion in flight commits within milliseconds; the passes may all be over by then.
      else if (completions.waiting) setTimeout(() => void readCompletions(), 2);
    } finally {
      reading = false;
    }
  };
  const passes = Number(process.env.BENCH_PASSES ?? (kind === 'postgres' ? 2 : 1));
  const executor = new Executor({
    store,
    capabilities: new CapabilityService(store, benchRegistry, benchImplementations),
    intervalMs: 1000,
    concurrency: kind === 'postgres' ? 8 : 4,
    passes,
    batch: 500,
    observer: { tick: () => void readCompletions(), ...(around.phase ? { phase: around.phase } : {}) },
  });
  await around.before?.(store);
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  executor.start();
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  try {
    await around.after?.(store);
  } finally {
    await executor.stop();
  }
  return { steps: plans * DIAMOND.steps.length, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, passes };
}

export async function throughput(kind: StoreKind, steps: number, options: StoreOptions = {}): Promise<Throughput> {
  const bench = await benchStore(kind, options);
  try {
    const run = await runDiamonds(bench.store, steps);
    const commits = await commitRate(bench.config);
    const perSecond = Math.round(run.steps / run.seconds);
    return {
      steps_per_second: perSecond,
      steps: run.steps,
      seconds: Math.round(run.seconds * 1000) / 1000,
      commits_per_second: commits,
      ratio_to_commit_limit: Math.round((perSecond / commits) * 1000) / 1000,
      process_cpu_share: Math.round((run.cpuSeconds / run.seconds) * 100) / 100,
      passes: run.passes,
    };
  } finally {
    await bench.dispose();
  }
}
