// What one pass of the executor reads once and shares between the steps it handles: each plan
// with its steps and intention, and each mind's policy inputs. Nothing here outlives the pass,
// so the next pass reads the store afresh; within a pass a plan read earlier may be slightly
// behind its steps, which is harmless because every move is conditional on the step's status.

import { PolicyMemo } from '../capabilities/policy-inputs.ts';
import { noRecords, type CallRecords } from '../capabilities/call-records.ts';
import type { ApprovalRecord, IntentionRecord, OriginCounts, PlanWithSteps, StepRecord, Store } from '../store/index.ts';
import type { ExecutorObserver } from './tick.ts';
import { originsOf } from './budget.ts';
import type { StepScene } from './apply.ts';
import { isRunning, runningStatus } from './settle.ts';

export class Pass {
  readonly memo = new PolicyMemo();
  /** Told what the pass did, for counters outside the execution layer; never changes what it does. */
  readonly #observer: ExecutorObserver | undefined;

  constructor(observer?: ExecutorObserver) {
    this.#observer = observer;
  }

  /** An approved step's claim committed; its action runs next (ExecutorObserver.approvalClaimed). */
  approvalClaimed(approval: ApprovalRecord, step: StepRecord): void {
    try {
      this.#observer?.approvalClaimed?.(approval, step);
    } catch {
      // Observing must not change what the executor does; a broken counter is the observer's to mend.
    }
  }
  readonly #plans = new Map<string, Promise<Loaded | undefined>>();
  /** What the origins of the plans in `#counted` caused, as read once and tallied since (see usageCounts). */
  readonly #counts: OriginCounts = { executions: new Map(), approvals: new Map(), requests: new Map() };
  readonly #counted = new Set<string>();

  /**
   * Reads the plans (with steps and intentions) of all `steps` at once, and what the origins of
   * those with a capability step to run caused: three statements side by side for the plans it
   * has not read yet and one for the counts, however many plans the pass touches.
   */
  async preload(store: Store, steps: readonly StepRecord[]): Promise<void> {
    const ids = [...new Set(steps.map((s) => s.planId))].filter((id) => !this.#plans.has(id));
    if (ids.length > 0) {
      // Plans, their steps and their intentions side by side: one round trip on PostgreSQL.
      const [plans, intentions] = await Promise.all([store.plans.getMany(ids), store.intentions.getOfPlans(ids)]);
      for (const id of ids) {
        const plan = plans.get(id);
        const loaded = plan && { plan, intention: intentions.get(plan.intentionId) ?? null };
        if (loaded) this.#known.set(id, loaded);
        this.#plans.set(id, Promise.resolve(loaded));
      }
    }
    // Read here or adopted from the plans the pass started: one count for all of them.
    const budgeted = [...new Set(steps.filter(checksBudget).map((s) => s.planId))].flatMap((id) => this.#known.get(id)?.plan ?? []);
    await this.#count(store, budgeted);
  }

  /**
   * Takes a plan read elsewhere (with its steps and intention) as this pass's reading of it.
   * `started`: this pass has just started it (validated to executing, its first steps promoted in
   * the same commit), so none of its steps has acted: nothing in the store carries their origins
   * (only a step's own run writes under `plan_step:<id>`, ids are new with each plan, and a
   * mind's bundle never carries executions or requests), and its budget's counts are zero
   * without a read. The tallies then count what the pass's own calls record, as for any plan.
   */
  adopt(loaded: Loaded, started = false): void {
    this.#known.set(loaded.plan.id, loaded);
    this.#plans.set(loaded.plan.id, Promise.resolve(loaded));
    if (started) this.#counted.add(loaded.plan.id);
  }

  /** The step with its plan and intention, each plan read at most once per pass. */
  async scene(store: Store, step: StepRecord): Promise<StepScene | undefined> {
    let found = this.#plans.get(step.planId);
    if (!found) {
      found = loadPlan(store, step.planId).then((loaded) => {
        if (loaded) this.#known.set(step.planId, loaded);
        return loaded;
      });
      this.#plans.set(step.planId, found);
    }
    const loaded = await found;
    return loaded && { step, plan: loaded.plan, intention: loaded.intention };
  }

  /**
   * What the origins of `plan`'s steps caused, for its budget: read once per pass (for every plan
   * of the pass at once by preload), then kept current by tallying what this pass's own calls
   * recorded, so a second step of the plan in the same pass counts the first one's calls.
   */
  async usageCounts(store: Store, plan: PlanWithSteps): Promise<OriginCounts> {
    if (!this.#counted.has(plan.id)) await this.#count(store, [plan]);
    return this.#counts;
  }

  /** Adds the calls in `records` to the tallies. */
  tally(records: CallRecords): void {
    for (const execution of records.executions) addOne(this.#counts.executions, execution.origin);
    for (const approval of records.approvals) addOne(this.#counts.approvals, approval.origin);
  }

  /** Adds a capability request this pass raised (under `origin`) to the tallies. */
  tallyRequest(origin: string): void {
    addOne(this.#counts.requests, origin);
  }

  async #count(store: Store, plans: readonly PlanWithSteps[]): Promise<void> {
    const fresh = plans.filter((p) => !this.#counted.has(p.id));
    if (fresh.length === 0) return;
    const counts = await store.executorQueries.countByOrigin(fresh.flatMap((p) => originsOf(p.steps)));
    for (const p of fresh) this.#counted.add(p.id);
    for (const key of ['executions', 'approvals', 'requests'] as const) for (const [origin, n] of counts[key]) this.#counts[key].set(origin, n);
  }

  readonly #toSettle = new Set<string>();
  /** Plans as this pass read them, with the steps it finished patched in: what settling decides from. */
  readonly #known = new Map<string, Loaded>();

  /**
   * Puts a step this pass moved into its plan as this pass read it, and remembers the plan to
   * settle once after the pass's steps when the move calls for it (`settle`) or when the plan's
   * steps, as now known, change what the running plan shows (executing, waiting,
   * awaiting_approval: two steps parking in one pass change it together). Settling then decides
   * from that plan without reading it whole again, once a light read shows every status in it
   * still current.
   */
  readonly settleLater = (planId: string, moved: StepRecord, settle = true): void => {
    const known = this.#known.get(planId);
    if (known) known.plan = { ...known.plan, steps: known.plan.steps.map((s) => (s.id === moved.id ? moved : s)) };
    const relabel = known ? isRunning(known.plan.status) && runningStatus(known.plan.steps) !== known.plan.status : true;
    if (settle || relabel) this.#toSettle.add(planId);
  };

  /** Puts plans back on the list to settle (a settling that left them, or did not commit). */
  settleAgain(planIds: readonly string[]): void {
    for (const id of planIds) this.#toSettle.add(id);
  }

  /** The plans to settle, each once, with those this pass read; asking empties the list. */
  takePlansToSettle(): { planIds: string[]; known: ReadonlyMap<string, Loaded> } {
    const planIds = [...this.#toSettle];
    this.#toSettle.clear();
    return { planIds, known: new Map(planIds.flatMap((id) => (this.#known.has(id) ? [[id, this.#known.get(id)!]] : []))) };
  }

  /** A place for the records of the calls a step makes before its move, written with the move. */
  io(): StepIO {
    return { memo: this.memo, records: noRecords(), usageCounts: (store, plan) => this.usageCounts(store, plan) };
  }
}

function addOne(map: Map<string, number>, origin: string): void {
  map.set(origin, (map.get(origin) ?? 0) + 1);
}

/** A step about to act compares its plan's use with the budget: a capability step, or a capability request about to be raised. */
function checksBudget(step: StepRecord): boolean {
  if (step.kind === 'capability') return step.status === 'ready';
  return step.kind === 'request_capability' && (step.status === 'ready' || step.status === 'waiting');
}

/** A plan with its steps and intention, as a pass read it. */
export type Loaded = { plan: PlanWithSteps; intention: IntentionRecord | null };

/** What a handler observes with: the pass's policy memo, and where its calls' records go. */
export interface StepIO {
  memo: PolicyMemo;
  records: CallRecords;
  /** What the origins of a plan's steps caused so far, for its budget (the pass's tallies). */
  usageCounts(store: Store, plan: PlanWithSteps): Promise<OriginCounts>;
}

async function loadPlan(store: Store, planId: string): Promise<Loaded | undefined> {
  // The plan's row, its steps and its intention side by side (on PostgreSQL, on three
  // connections at once): one round trip rather than three in a row.
  const [plan, intention] = await Promise.all([store.plans.get(planId), store.intentions.getOfPlan(planId)]);
  if (!plan) return undefined;
  return { plan, intention: intention ?? null };
}
