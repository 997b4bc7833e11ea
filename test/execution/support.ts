// Shared set-up for executor tests: a mind, a capability service over either the counting test
// capabilities or the simulated host, plans built from small step descriptions and stored
// validated (after passing the real validator), and an executor driven tick by tick on the
// store's manual clock.

import assert from 'node:assert/strict';
import { after, afterEach } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import type { CapabilityImplementations } from '../../src/capabilities/implementation.ts';
import { builtinRegistry, createRegistry, type CapabilityRegistry } from '../../src/capabilities/registry.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { newId } from '../../src/core/ids.ts';
import type { Budget, Expectation, JsonObject, PlanDraft, Precondition, StepDraft } from '../../src/core/plan.ts';
import type { PlanOrigin } from '../../src/core/vocabulary.ts';
import { Executor, type ExecutorOptions } from '../../src/execution/executor.ts';
import { validate } from '../../src/planning/validate.ts';
import type { IntentionRecord, MindRecord, PlanWithSteps, Store } from '../../src/store/index.ts';
import { openStore } from '../../src/store/store.ts';
import type { TestStore } from '../support/stores.ts';
import { testImplementations, testRegistry, type CallLog } from '../support/test-capabilities.ts';

export function step(key: string, over: Partial<StepDraft> & Pick<StepDraft, 'kind'>): StepDraft {
  return {
    key,
    title: over.title ?? `step ${key}`,
    depends_on: [],
    capability: '',
    target: '',
    params: {},
    expectation: null,
    precondition: null,
    max_attempts: 1,
    require_approval: false,
    spec: {},
    ...over,
  };
}

export function draftOf(steps: StepDraft[], over: Partial<PlanDraft> = {}): PlanDraft {
  return {
    objective: over.objective ?? 'test objective',
    strategy: 'operator',
    assumptions: [],
    completion_criteria: '',
    abort_conditions: [],
    risk: '',
    estimate: {},
    budget: { invocations: 20 } as Budget,
    alternatives: [],
    steps,
    ...over,
  };
}

export interface World {
  ts: TestStore;
  store: Store;
  clock: TestStore['clock'];
  registry: CapabilityRegistry;
  service: CapabilityService;
  mind: MindRecord;
  log: CallLog;
  host: SimulatedHost | null;
  /** Errors the executors of this world logged; a test ends with none. */
  errors: string[];
  executor(over?: Partial<ExecutorOptions>): Executor;
  /** Forms an intention and stores a validated plan for it (the validator must accept the draft). */
  plan(
    draft: PlanDraft,
    options?: { origin?: PlanOrigin; intention?: Partial<IntentionRecord>; revision?: number; requireApproval?: boolean; mind?: MindRecord },
  ): Promise<{ plan: PlanWithSteps; intention: IntentionRecord }>;
  allow(capability: string, pattern?: string): Promise<void>;
  /** Moves the manual clock (and the simulated host's clock with it). */
  advance(seconds: number): void;
}

export interface WorldOptions {
  /** Use the built-in capabilities on a simulated host instead of the counting test ones. */
  simulated?: boolean;
  implementations?: CapabilityImplementations;
  /** The test capabilities with these timeouts (seconds) instead of their own. */
  timeouts?: Record<string, number>;
  mindHost?: string | null;
}

export async function makeWorld(ts: TestStore, options: WorldOptions = {}): Promise<World> {
  const { store, clock } = ts;
  const calls: CallLog = { calls: [] };
  let host: SimulatedHost | null = null;
  let registry: CapabilityRegistry;
  let implementations: CapabilityImplementations;
  if (options.simulated) {
    host = SimulatedHost.create();
    host.setClock(clock.now());
    registry = builtinRegistry();
    implementations = builtinImplementations({ runner: host.runner() });
  } else {
    const { timeouts } = options;
    registry = timeouts ? createRegistry(testRegistry.list().map((d) => (timeouts[d.name] === undefined ? d : { ...d, timeoutSeconds: timeouts[d.name]! }))) : testRegistry;
    implementations = options.implementations ?? testImplementations(calls);
  }
  const service = new CapabilityService(store, registry, implementations);
  const mind = await store.minds.create({ name: `mind-${newId()}`, host: options.mindHost ?? null });
  const errors: string[] = [];
  const log = {
    debug() {},
    warn() {},
    error(message: string, data?: Record<string, unknown>) {
      errors.push(`${message} ${JSON.stringify(data ?? {})}`);
    },
  };
  const world: World = {
    errors,
    ts,
    store,
    clock,
    registry,
    service,
    mind,
    log: calls,
    host,
    executor(over = {}) {
      return new Executor({ store, capabilities: service, registry, concurrency: 1, name: `test-${newId().slice(-6)}`, log, ...over });
    },
    async plan(draft, planOptions = {}) {
      const validation = validate(draft, registry);
      assert.deepEqual(validation.errors, [], 'the test plan must pass validation');
      const mindId = planOptions.mind?.id ?? mind.id;
      const intention = await store.intentions.create({
        mindId,
        objective: draft.objective,
        origin: 'operator',
        requireApproval: planOptions.intention?.requireApproval ?? false,
        means: planOptions.intention?.means ?? null,
        beliefId: planOptions.intention?.beliefId ?? null,
        // An author, as every surface records one: an authorless action cannot be approved there.
        authoredBy: planOptions.intention?.authoredBy ?? 'plan-author',
      });
      const plan = await store.plans.create({
        mindId,
        intentionId: intention.id,
        origin: planOptions.origin ?? 'operator',
        revision: planOptions.revision ?? 1,
        draft,
        validation,
        status: 'validated',
        requireApproval: planOptions.requireApproval ?? false,
        authoredBy: planOptions.intention?.authoredBy ?? 'plan-author',
      });
      return { plan, intention };
    },
    async allow(capability, pattern = '*') {
      await store.policyRules.set({ mindId: mind.id, capability, targetPattern: pattern, decision: 'allow', approvers: 1 });
    },
    advance(seconds) {
      clock.advance(seconds);
      host?.setClock(clock.now());
    },
  };
  return world;
}

/**
 * Worlds for the tests of one describe block, made on its store: each test ends with no executor
 * error logged, and the block's simulated hosts are removed after it.
 */
/** A world on a connection of its own to the test store that records each statement it runs (spaces folded), allowing test.read; the caller closes `observed`. */
export async function observedWorld(ts: TestStore): Promise<{ w: World; observed: Store; statements: string[] }> {
  const statements: string[] = [];
  const observed = await openStore(ts.config, { clock: ts.clock, observeQuery: (text) => void statements.push(text.replace(/\s+/g, ' ')) });
  try {
    const w = await makeWorld({ ...ts, store: observed });
    await w.allow('test.read');
    return { w, observed, statements };
  } catch (error) {
    await observed.close();
    throw error;
  }
}

export function useWorlds(current: () => TestStore): (options?: WorldOptions) => Promise<World> {
  const worlds: World[] = [];
  afterEach(() => {
    const errors = worlds.flatMap((w) => w.errors.splice(0));
    assert.deepEqual(errors, [], 'no executor logged an error');
  });
  after(() => {
    for (const w of worlds) w.host?.remove();
  });
  return async (options = {}) => {
    const w = await makeWorld(current(), options);
    worlds.push(w);
    return w;
  };
}

export async function stepsOf(store: Store, planId: string): Promise<Record<string, string>> {
  const plan = await store.plans.get(planId);
  return Object.fromEntries((plan?.steps ?? []).map((s) => [s.key, s.status]));
}

export async function eventTypes(store: Store, query: { planId?: string; intentionId?: string; mindId?: string }): Promise<string[]> {
  return (await store.events.list({ ...query, limit: 5000 })).map((e) => e.type);
}

export function readStep(key: string, capability = 'test.read', params: JsonObject = { name: key.toLowerCase() }, over: Partial<StepDraft> = {}): StepDraft {
  return step(key, { kind: 'capability', capability, params, ...over });
}

/** The unit the restart scenarios act on. */
export const UNIT = 'atlas-worker.service';
const status = { capability: 'service.status', params: { unit: UNIT } };

/** P1's expectation: the unit is active within a minute. */
export const isActive: Expectation = {
  statement: 'atlas-worker is active',
  confidence: 0.8,
  within_seconds: 60,
  check: { ...status, field: 'active_state', comparison: 'equals', value: 'active' },
};

/** P1's precondition: the unit is not already running (which fulfils the intention). */
export const notRunning: Precondition = {
  ...status,
  statement: 'atlas-worker is not already running',
  field: 'active_state',
  comparison: 'not_equals',
  value: 'active',
  fulfils_intention: true,
};

/** Restart the unit (P1), then verify it is active (V1). */
export function restartPlan(): PlanDraft {
  return draftOf(
    [
      step('P1', { kind: 'capability', title: 'Restart atlas-worker', capability: 'service.restart', params: { unit: UNIT }, expectation: isActive, precondition: notRunning }),
      step('V1', { kind: 'verify', title: 'Confirm it is active', depends_on: ['P1'], capability: 'service.status', params: { unit: UNIT }, spec: { verifies: 'P1', interval_seconds: 10 } }),
    ],
    { objective: 'Restart atlas-worker and confirm it is healthy', strategy: 'direct', budget: { invocations: 10, wall_seconds: 600 } },
  );
}

/** Waits, looking at the store every `everyMs`, until none of the world's plans is validated or executing; fails after `minutes`. */
export async function untilPlansClose(w: World, { minutes = 1, everyMs = 20 } = {}): Promise<void> {
  const deadline = Date.now() + minutes * 60_000;
  for (;;) {
    const open = await w.store.plans.listByMind(w.mind.id, { status: ['validated', 'executing'], limit: 1 });
    if (open.length === 0) return;
    assert.ok(Date.now() < deadline, `the plans finish within ${minutes} minute(s)`);
    await sleep(everyMs);
  }
}
