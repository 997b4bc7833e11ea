// Plans as a whole: starting validated ones, moving pending steps once their dependencies have
// finished, and closing a plan when every step is final. Deciding is pure (`settlement`);
// every move is a conditional update, so two executors settling one plan cannot both win.

import type { JsonObject } from '../core/plan.ts';
import { RUNNING_PLAN_STATUSES, RunningPlanStatuses, type EventType, type PlanStatus, type RunningPlanStatus, type StepStatus } from '../core/vocabulary.ts';
import { blockIntention, fulfilIntentions } from '../mind/intentions.ts';
import { isEscalation, recordProcedures } from '../mind/procedural-memory.ts';
import type { Resources } from '../core/plan.ts';
import { FINAL_STEP_STATUSES, promotedStep, stepStatusList, type IntentionRecord, type NewEvent, type OriginCounts, type PlanWithSteps, type StepRecord, type Store } from '../store/index.ts';
import { originsOf, usage } from './budget.ts';
import type { ExecutorContext } from './context.ts';
import { abortReason, foldsFailures, heldAbort, isFoldedFailure, withCancellations, type HeldAbort } from './abort.ts';
import { reconsiderPlan, cancelOpenSteps } from './replan.ts';
import { inUnitOfWork } from './unit-of-work.ts';
import type { Loaded } from './pass.ts';
import { errorText, MAX_FAILURES } from './stuck.ts';

const DONE: readonly StepStatus[] = ['completed', 'skipped'];
const BROKEN: readonly StepStatus[] = ['failed', 'cancelled'];

export interface Settlement {
  /** Pending steps whose dependencies all completed or were skipped. */
  promote: StepRecord[];
  /** Pending steps with a failed or cancelled dependency, and why. */
  cancel: { step: StepRecord; reason: string }[];
  /** What the plan comes to: null while anything is still open. */
  outcome: 'completed' | 'failed' | null;
  /** The failed step that decides a failed outcome. */
  failedStep: StepRecord | null;
  /** What the plan shows while it stays open, once the promotions and cancellations are made. */
  status: RunningPlanStatus;
}

const RUNNABLE: readonly StepStatus[] = ['ready', 'executing'];
const FOR_AN_OPERATOR: readonly StepStatus[] = ['awaiting_approval', 'awaiting_grant'];

/**
 * What a started, open plan shows (pure), from its steps' statuses with `promoted` counted as
 * ready: `executing` while a step is ready or executing; otherwise `awaiting_approval` while a
 * step waits for an operator's approval or grant (even if another branch waits for its time:
 * the plan cannot finish without the operator); otherwise `waiting` while a step waits for its
 * time (a wait, a monitor's or verify's next check); and `executing` when nothing is in motion
 * (a blocked step, or every step final and the plan about to close).
 */
export function runningStatus(steps: readonly Pick<StepRecord, 'id' | 'status'>[], promoted: ReadonlySet<string> = new Set()): RunningPlanStatus {
  if (steps.some((s) => RUNNABLE.includes(s.status) || promoted.has(s.id))) return 'executing';
  if (steps.some((s) => FOR_AN_OPERATOR.includes(s.status))) return 'awaiting_approval';
  if (steps.some((s) => s.status === 'waiting')) return 'waiting';
  return 'executing';
}

/** The plan is started and running: executing, waiting or awaiting approval. */
export function isRunning(status: PlanStatus): status is RunningPlanStatus {
  return RunningPlanStatuses.has(status);
}

/**
 * Whether `moved`, as it now is, changes what its running plan shows (pure): a step that parked
 * or came back. The executor then settles the plan, which writes the new status.
 */
export function changesRunningStatus(plan: Pick<PlanWithSteps, 'status' | 'steps'>, moved: Pick<StepRecord, 'id' | 'status'>): boolean {
  if (!isRunning(plan.status)) return false;
  return runningStatus(plan.steps.map((s) => (s.id === moved.id ? moved : s))) !== plan.status;
}

/** What settling a plan's steps would do (pure). */
export function settlement(steps: readonly StepRecord[]): Settlement {
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const promote: StepRecord[] = [];
  const cancel: { step: StepRecord; reason: string }[] = [];
  for (const step of steps) {
    if (step.status !== 'pending') continue;
    const deps = step.dependsOn.map((key) => byKey.get(key));
    // A summary folds failures in: it waits for every dependency to finish, however it finished.
    if (foldsFailures(step)) {
      if (deps.every((d) => d !== undefined && FINAL_STEP_STATUSES.includes(d.status))) promote.push(step);
      continue;
    }
    const broken = deps.find((d) => d !== undefined && BROKEN.includes(d.status));
    if (broken) cancel.push({ step, reason: `dependency ${broken.key} ${broken.status}` });
    else if (deps.every((d) => d !== undefined && DONE.includes(d.status))) promote.push(step);
  }
  const failedStep = steps.find((s) => s.status === 'failed' && !isFoldedFailure(s, steps)) ?? null;
  const cancelled = new Set(cancel.map((c) => c.step.id));
  const allFinal = steps.every((s) => FINAL_STEP_STATUSES.includes(s.status) || cancelled.has(s.id));
  const outcome = failedStep ? 'failed' : allFinal && promote.length === 0 ? 'completed' : null;
  const status = runningStatus(
    steps.map((s) => (cancelled.has(s.id) ? { ...s, status: 'cancelled' as const } : s)),
    new Set(promote.map((s) => s.id)),
  );
  return { promote, cancel, outcome, failedStep, status };
}

/**
 * Starts validated plans this daemon may advance, all in one transaction, and in the same
 * transaction promotes the first steps of those it started (reported to `onPromoted` with the
 * plans as read here); returns how many it started. A plan whose start calls for more than
 * promotions (see firstPromotions) is settled after the commit, as any plan.
 */
export async function startPlans(ctx: ExecutorContext, limit: number, onPromoted?: OnPromoted): Promise<number> {
  const { store } = ctx;
  const ids = await store.executorQueries.startablePlanIds({ host: ctx.host, limit });
  if (ids.length === 0) return 0;
  const candidates: { plan: PlanWithSteps; intention: IntentionRecord | undefined; closed: string | null }[] = [];
  const plans = await store.plans.getMany(ids);
  const intentions = await store.intentions.getMany([...plans.values()].map((p) => p.intentionId));
  for (const id of ids) {
    const plan = plans.get(id);
    if (plan?.status !== 'validated') continue;
    const intention = intentions.get(plan.intentionId);
    const closed = !intention || intention.status === 'fulfilled' || intention.status === 'abandoned' ? (intention?.status ?? 'gone') : null;
    candidates.push({ plan, intention, closed });
  }
  // What each plan's start promotes, when that is all its start does (firstPromotions); when the
  // promotions were written, and which (from the transactions that committed).
  const firsts = new Map(candidates.map(({ plan }) => [plan.id, firstPromotions(plan)]));
  const at = ctx.clock.now();
  const promoted = new Set<string>();
  const start = (some: typeof candidates) =>
    store
      .transaction(async (tx) => {
        const moved: string[] = [];
        const events: NewEvent[] = [];
        for (const { plan, closed } of some) {
          if (!closed) continue;
          const ended = await tx.plans.transition(plan.id, 'validated', 'abandoned', { statusReason: `the intention is ${closed}` });
          if (ended) events.push({ type: 'plan_abandoned', mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason: 'intention_closed' } });
        }
        const starting = some.filter((c) => !c.closed).map((c) => c.plan);
        const executing = new Set(
          await tx.plans.transitionMany(
            starting.map((p) => p.id),
            'validated',
            'executing',
            { statusReason: '' },
          ),
        );
        for (const plan of starting) {
          if (!executing.has(plan.id)) continue;
          events.push({
            type: 'plan_started',
            mindId: plan.mindId,
            intentionId: plan.intentionId,
            planId: plan.id,
            data: { revision: plan.revision, strategy: plan.strategy, steps: plan.steps.length, executor: ctx.name },
          });
          moved.push(plan.id);
        }
        await tx.events.appendMany(events);
        // The plan just moved from validated, so its steps are as read: no other writer moves the
        // steps of a plan that has not started. The promotion itself is still conditional.
        const first = moved.flatMap((id) => firsts.get(id) ?? []);
        return {
          moved,
          promoted: await tx.steps.promote(
            first.map((step) => step.id),
            at,
          ),
        };
      })
      .then(({ moved, promoted: ids }) => {
        for (const id of ids) promoted.add(id);
        return moved;
      });
  let started: string[];
  try {
    started = await start(candidates);
  } catch (error) {
    // One plan that cannot be started must not hold back the others: each on its own.
    if (candidates.length > 1) ctx.log.warn('starting plans together failed; starting them one at a time', { plans: candidates.length, error: errorText(error) });
    started = [];
    for (const one of candidates) {
      try {
        started.push(...(await (candidates.length > 1 ? start([one]) : Promise.reject(error))));
        ctx.failures.moved(one.plan.id);
      } catch (single) {
        await stuckPlan(ctx, one.plan, single, 'starting');
      }
    }
  }
  // The plans whose start was only their first promotions are reported as the store now has
  // them; the others are settled from the plans as read here, now executing (the light read of
  // their statuses in settlePlansTogether stands in for reading them whole again).
  const known = new Map<string, Loaded>();
  const toSettle: string[] = [];
  const startedIds = new Set(started);
  for (const { plan, intention } of candidates) {
    // A plan started only with its intention open (closed: null).
    if (!startedIds.has(plan.id) || !intention) continue;
    const executing = { plan: { ...plan, status: 'executing' as const, statusReason: '' }, intention };
    const first = firsts.get(plan.id);
    if (!first) {
      known.set(plan.id, executing);
      toSettle.push(plan.id);
      continue;
    }
    const ready = first.filter((step) => promoted.has(step.id)).map((step) => promotedStep(step, at));
    if (ready.length < first.length) {
      // A promotion that did not happen (the step moved meanwhile): settle the plan afresh.
      toSettle.push(plan.id);
      continue;
    }
    const byId = new Map(ready.map((step) => [step.id, step]));
    executing.plan = { ...executing.plan, steps: plan.steps.map((step) => byId.get(step.id) ?? step) };
    onPromoted?.(executing, ready);
  }
  await settlePlansTogether(ctx, toSettle, known, onPromoted);
  return started.length;
}

/**
 * The steps a plan that has just started promotes (pure), when promoting them is all its
 * settling would do: it stays executing, cancels nothing, does not close, and no abort condition
 * holds. Null otherwise: then the plan is settled as any other.
 */
export function firstPromotions(plan: PlanWithSteps): StepRecord[] | null {
  const decided = settlement(plan.steps);
  if (decided.promote.length === 0 || decided.cancel.length > 0 || decided.outcome || decided.status !== 'executing') return null;
  return heldAbort(plan.abortConditions, plan.steps) ? null : decided.promote;
}

/** Settles every executing plan that has something to settle; returns how many steps or plans moved. */
export async function settlePlans(ctx: ExecutorContext, limit: number): Promise<number> {
  return settlePlansTogether(ctx, await ctx.store.executorQueries.planIdsToSettle({ host: ctx.host, limit }));
}

/**
 * Promotes and cancels pending steps of one executing plan and closes it when it is done.
 * Returns how many things moved.
 */
export function settlePlan(ctx: ExecutorContext, planId: string): Promise<number> {
  return settlePlansTogether(ctx, [planId]);
}

/** One executing plan read for settling, and what settling it decides. */
interface ToSettle {
  plan: PlanWithSteps;
  decided: Settlement;
  /** The plan's use so far, read when it is about to complete. */
  actual: Resources | null;
}

/**
 * Told of the steps settling promoted in a plan the pass read (`loaded`, patched in place to
 * show them ready): exactly as the store now has them, so the pass may run them at once without
 * reading them or their plan again (tick.ts).
 */
export type OnPromoted = (loaded: Loaded, ready: StepRecord[]) => void;

/**
 * Settles several executing plans: every promotion (in one statement), cancellation and
 * completion they call for commits in one transaction. A failed plan is reconsidered after the
 * commit, each on its own. Should the shared transaction fail, each plan is settled alone, so
 * one plan that cannot be settled never holds back the others. Returns how many things moved.
 * With `onPromoted`, a plan settled from `known` that only had steps promoted (no cancellation,
 * no change of its own status) reports them.
 */
export async function settlePlansTogether(ctx: ExecutorContext, planIds: readonly string[], known: ReadonlyMap<string, Loaded> = new Map(), onPromoted?: OnPromoted): Promise<number> {
  const { store } = ctx;
  let moved = 0;
  if (planIds.length === 0) return moved;
  const { current, plans, abandoned, aborted } = await readSettlements(ctx, planIds, known);
  for (const { plan, intention } of abandoned) moved += await abandonPlan(ctx, plan, `the intention was abandoned (${intention.reason || 'no reason given'})`);
  for (const { plan, abort } of aborted) {
    await reconsiderPlan(ctx, plan.id, 'step_failed', abortReason(abort), abort);
    moved += 1;
  }
  if (plans.length === 0) return moved;
  let outcomes: number[];
  // When the promotions were written, and which steps they moved.
  const at = ctx.clock.now();
  const promoted = new Set<string>();
  try {
    const settled = await inUnitOfWork(store, (scoped) => settleIn(ctx, scoped, plans, at));
    outcomes = settled.moved;
    for (const id of settled.promoted) promoted.add(id);
    for (const { plan } of plans) ctx.failures.moved(plan.id);
  } catch (error) {
    if (plans.length > 1) ctx.log.warn('settling plans together failed; settling them one at a time', { plans: plans.length, error: errorText(error) });
    outcomes = [];
    for (const one of plans) {
      try {
        const settled = await (plans.length > 1 ? inUnitOfWork(store, (scoped) => settleIn(ctx, scoped, [one], at)) : Promise.reject(error));
        outcomes.push(...settled.moved);
        for (const id of settled.promoted) promoted.add(id);
        ctx.failures.moved(one.plan.id);
      } catch (single) {
        await stuckPlan(ctx, one.plan, single);
        outcomes.push(0);
      }
    }
  }
  if (onPromoted) reportPromoted(plans, current, promoted, at, onPromoted);
  const again: string[] = [];
  for (const [i, { plan, decided }] of plans.entries()) {
    moved += outcomes[i]!;
    if (decided.outcome === 'failed' && decided.failedStep) {
      await reconsiderPlan(ctx, plan.id, 'step_failed', `${decided.failedStep.key} failed: ${decided.failedStep.error || decided.failedStep.statusReason}`);
      moved += 1;
    } else if (!decided.outcome && outcomes[i]! > 0 && decided.cancel.length > 0) {
      // Cancelling may have left nothing open (every remaining step was cancelled): look again.
      again.push(plan.id);
    }
  }
  return again.length > 0 ? moved + (await settlePlansTogether(ctx, again)) : moved;
}

/** What settling a batch of plans decided for them, as one committed transaction left it. */
export interface SettledWithMoves {
  /** How many things moved. */
  moved: number;
  /** Plans this settling left alone, for settling on its own after the commit. */
  left: string[];
  /** Once the transaction has committed: reports the promotions (onPromoted). */
  committed(): void;
}

/**
 * Settles plans inside a transaction already open (`ctx.store` is bound to it: SQLite, where
 * the executor commits a round's moves and their settling together, tick.ts). Only the plans
 * whose settling is writes alone are settled here: promotions, a change of what a running plan
 * shows, completion. A plan whose intention was abandoned, that an abort condition stops, that
 * failed or that has steps to cancel is left for settlePlansTogether after the commit, since
 * that reconsiders plans (which may plan anew) and settles again. Nothing here is caught: a
 * failure fails the caller's transaction, whose moves are then applied without this settling,
 * and their plans settled after them.
 */
export async function settleWithMoves(ctx: ExecutorContext, planIds: readonly string[], known: ReadonlyMap<string, Loaded>, onPromoted?: OnPromoted): Promise<SettledWithMoves> {
  const left: string[] = [];
  if (planIds.length === 0) return { moved: 0, left, committed: () => {} };
  const { current, plans, abandoned, aborted } = await readSettlements(ctx, planIds, known);
  left.push(...abandoned.map(({ plan }) => plan.id), ...aborted.map(({ plan }) => plan.id));
  const writesAlone = plans.filter(({ plan, decided }) => {
    if (decided.outcome !== 'failed' && decided.cancel.length === 0) return true;
    left.push(plan.id);
    return false;
  });
  const at = ctx.clock.now();
  const settled = writesAlone.length > 0 ? await settleIn(ctx, ctx.store, writesAlone, at) : { moved: [], promoted: new Set<string>() };
  return {
    moved: settled.moved.reduce((sum, n) => sum + n, 0),
    left,
    committed() {
      for (const { plan } of writesAlone) ctx.failures.moved(plan.id);
      if (onPromoted) reportPromoted(writesAlone, current, settled.promoted, at, onPromoted);
    },
  };
}

/** Plans read for settling: those with writes to make, and those to end otherwise. */
interface Settlements {
  /** The plans of `known` found unchanged, as known. */
  current: Map<string, Loaded>;
  /** Running plans with something to settle, each with what its use comes to when it is about to complete. */
  plans: ToSettle[];
  /** Running plans whose intention was abandoned: they end with it. */
  abandoned: { plan: PlanWithSteps; intention: IntentionRecord }[];
  /** Running plans one of whose abort conditions holds once their cancellations count: they stop. */
  aborted: { plan: PlanWithSteps; abort: HeldAbort }[];
}

/**
 * Reads `planIds` for settling and decides each. A plan the pass read already is settled from
 * that reading (see Pass.settleLater) when a light read of the statuses shows it unchanged
 * since; the others are read whole, fresh and together (three statements). What the plans the
 * pass read as about to complete have used is counted beside that light read, not after it: a
 * plan that turns out to have changed is counted again.
 */
async function readSettlements(ctx: ExecutorContext, planIds: readonly string[], known: ReadonlyMap<string, Loaded>): Promise<Settlements> {
  const { store } = ctx;
  const plans: ToSettle[] = [];
  const abandoned: Settlements['abandoned'] = [];
  const aborted: Settlements['aborted'] = [];
  // Each plan's settlement is worked out once: a plan found unchanged is the one known here.
  const settlements = new WeakMap<PlanWithSteps, Settlement>();
  const settled = (plan: PlanWithSteps): Settlement => {
    let decided = settlements.get(plan);
    if (!decided) settlements.set(plan, (decided = settlement(plan.steps)));
    return decided;
  };
  const completingAsKnown = planIds.flatMap((id) => {
    const plan = known.get(id)?.plan;
    return plan && settled(plan).outcome === 'completed' ? [plan] : [];
  });
  const [current, counted] = await Promise.all([unchanged(store, planIds, known), countUse(store, completingAsKnown)]);
  const unknown = planIds.filter((id) => !current.has(id));
  const found = new Map([...current].map(([id, loaded]) => [id, loaded.plan]));
  const intentions = new Map([...current.values()].flatMap((loaded) => (loaded.intention ? [[loaded.intention.id, loaded.intention]] : [])));
  if (unknown.length > 0) {
    const [plans, ofPlans] = await Promise.all([store.plans.getMany(unknown), store.intentions.getOfPlans(unknown)]);
    for (const [id, plan] of plans) found.set(id, plan);
    for (const [id, intention] of ofPlans) intentions.set(id, intention);
  }
  for (const planId of new Set(planIds)) {
    const plan = found.get(planId);
    if (!plan || !isRunning(plan.status)) continue;
    const intention = intentions.get(plan.intentionId);
    if (intention?.status === 'abandoned') {
      abandoned.push({ plan, intention });
      continue;
    }
    const decided = settled(plan);
    // An abort condition that holds once this settlement's cancellations count stops the plan
    // instead (abort.ts): decided from the steps already read, no read of its own.
    const abort = heldAbort(plan.abortConditions, withCancellations(plan.steps, decided.cancel));
    if (abort) {
      aborted.push({ plan, abort });
      continue;
    }
    if (decided.promote.length > 0 || decided.cancel.length > 0 || decided.outcome || decided.status !== plan.status) plans.push({ plan, decided, actual: null });
  }
  // What the plans about to complete used, from one count over all their origins.
  const completing = plans.filter((p) => p.decided.outcome === 'completed');
  if (completing.length > 0) {
    const uncounted = completing.filter((p) => !current.has(p.plan.id) || !counted.plans.has(p.plan.id)).map((p) => p.plan);
    const counts = uncounted.length > 0 ? mergeCounts(counted.counts, (await countUse(store, uncounted)).counts) : counted.counts;
    const now = ctx.clock.now();
    for (const p of completing) p.actual = usage(p.plan, p.plan.steps, counts, ctx.registry, now);
  }
  return { current, plans, abandoned, aborted };
}

/** What the origins of `plans` caused (one count for all of them), and which plans it covers. */
async function countUse(store: Store, plans: readonly PlanWithSteps[]): Promise<{ counts: OriginCounts; plans: Set<string> }> {
  const counts = plans.length > 0 ? await store.executorQueries.countByOrigin(plans.flatMap((p) => originsOf(p.steps))) : { executions: new Map(), approvals: new Map(), requests: new Map() };
  return { counts, plans: new Set(plans.map((p) => p.id)) };
}

/** Counts by origin from two reads; the later one's wins where both counted an origin. */
function mergeCounts(earlier: OriginCounts, later: OriginCounts): OriginCounts {
  return {
    executions: new Map([...earlier.executions, ...later.executions]),
    approvals: new Map([...earlier.approvals, ...later.approvals]),
    requests: new Map([...earlier.requests, ...later.requests]),
  };
}

/**
 * The plans of `known` whose status, intention status and step statuses are still as known
 * (one light statement for all of them): settling may decide from these as from a fresh read.
 */
async function unchanged(store: Store, planIds: readonly string[], known: ReadonlyMap<string, Loaded>): Promise<Map<string, Loaded>> {
  const candidates = planIds.filter((id) => known.has(id));
  const same = new Map<string, Loaded>();
  if (candidates.length === 0) return same;
  const statuses = await store.executorQueries.planStatuses(candidates);
  for (const id of candidates) {
    const loaded = known.get(id)!;
    const now = statuses.get(id);
    if (!now || now.plan !== loaded.plan.status || now.intention !== loaded.intention?.status) continue;
    if (now.steps !== stepStatusList(loaded.plan.steps)) continue;
    same.set(id, loaded);
  }
  return same;
}

/**
 * Patches the promoted steps into the plans settled from a reading of the pass, and reports
 * them: only where promoting was all that happened to the plan, so the patched reading is the
 * plan as the store has it.
 */
function reportPromoted(plans: readonly ToSettle[], read: ReadonlyMap<string, Loaded>, promoted: ReadonlySet<string>, at: Date, onPromoted: OnPromoted): void {
  for (const { plan, decided } of plans) {
    const loaded = read.get(plan.id);
    if (!loaded || loaded.plan !== plan || decided.outcome || decided.cancel.length > 0 || decided.status !== plan.status) continue;
    const ready = decided.promote.filter((s) => promoted.has(s.id)).map((s) => promotedStep(s, at));
    if (ready.length === 0) continue;
    const byId = new Map(ready.map((s) => [s.id, s]));
    loaded.plan = { ...plan, steps: plan.steps.map((s) => byId.get(s.id) ?? s) };
    onPromoted(loaded, ready);
  }
}

/** The settlements' writes inside one unit of work: how many things moved for each plan, and the steps promoted (at `at`). */
async function settleIn(ctx: ExecutorContext, scoped: Store, plans: readonly ToSettle[], at: Date): Promise<{ moved: number[]; promoted: Set<string> }> {
  const moved = plans.map(() => 0);
  const promoted = new Set(
    await scoped.steps.promote(
      plans.flatMap((p) => p.decided.promote.map((s) => s.id)),
      at,
    ),
  );
  const events: NewEvent[] = [];
  for (const [i, { plan, decided }] of plans.entries()) {
    moved[i]! += decided.promote.filter((s) => promoted.has(s.id)).length;
    for (const { step, reason } of decided.cancel) {
      if (await scoped.steps.move('cancel', step.id, 'pending', { statusReason: reason })) moved[i]! += 1;
    }
    if (!decided.outcome && decided.status !== plan.status) {
      // Only from the status it was read in: a plan that moved meanwhile is settled again later.
      const reason = statusReasonOf(decided.status);
      if (await scoped.plans.transition(plan.id, plan.status, decided.status, { statusReason: reason })) {
        events.push({ type: STATUS_EVENTS[decided.status], mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: statusEventData(plan, decided.status, reason, ctx.name) });
      }
    }
  }
  // One insert for the status events of every plan of the batch.
  await scoped.events.appendMany(events);
  const completing = plans.flatMap((p, i) => (p.decided.outcome === 'completed' && p.actual ? [{ plan: p.plan, actual: p.actual, i }] : []));
  const completed = await completeIn(ctx, scoped, completing);
  for (const { plan, i } of completing) if (completed.has(plan.id)) moved[i]! += 1;
  return { moved, promoted };
}

/**
 * The event of a running plan's status change, as other plan moves have theirs: `plan_waiting`
 * and `plan_awaiting_approval` when it parks, and back to executing `plan_started` with
 * `resumed`, as a released plan's return is recorded.
 */
const STATUS_EVENTS: Record<RunningPlanStatus, EventType> = { executing: 'plan_started', waiting: 'plan_waiting', awaiting_approval: 'plan_awaiting_approval' };

function statusReasonOf(status: RunningPlanStatus): string {
  switch (status) {
    case 'waiting':
      return 'every open step waits for its time';
    case 'awaiting_approval':
      return 'an open step waits for an operator';
    case 'executing':
      return '';
  }
}

function statusEventData(plan: PlanWithSteps, to: RunningPlanStatus, reason: string, executor: string): JsonObject {
  const waiting = plan.steps.filter((s) => (to === 'waiting' ? s.status === 'waiting' : FOR_AN_OPERATOR.includes(s.status))).map((s) => s.key);
  return {
    from: plan.status,
    ...(to === 'executing' ? { resumed: true } : { reason, steps: waiting }),
    executor,
  };
}

/**
 * Closes the plans whose steps are all done, with their intentions and procedures, a few
 * statements for the whole batch: the plans' conditional move, then their events, the
 * intentions' move and the procedures, each for every plan at once. Returns the ids it
 * completed (a plan closed already by someone else is left alone).
 */
async function completeIn(ctx: ExecutorContext, scoped: Store, completing: readonly { plan: PlanWithSteps; actual: Resources }[]): Promise<Set<string>> {
  if (completing.length === 0) return new Set();
  const completed = new Set(
    await scoped.plans.completeMany(
      completing.map(({ plan, actual }) => ({ id: plan.id, actual })),
      RUNNING_PLAN_STATUSES,
    ),
  );
  const closed = completing.filter(({ plan }) => completed.has(plan.id));
  await scoped.events.appendMany(
    closed.map(({ plan, actual }) => ({
      type: 'plan_completed',
      mindId: plan.mindId,
      intentionId: plan.intentionId,
      planId: plan.id,
      data: { revision: plan.revision, strategy: plan.strategy, escalation: isEscalation(plan), actual: actual as unknown as JsonObject, executor: ctx.name },
    })),
  );
  // An escalation told an operator: its intention waits for them rather than counting as brought about.
  for (const { plan } of closed) if (isEscalation(plan)) await blockIntention(scoped, plan.intentionId, 'expectation_failed', { escalated: true, plan_id: plan.id });
  await fulfilIntentions(
    scoped,
    closed.filter(({ plan }) => !isEscalation(plan)).map(({ plan }) => plan.intentionId),
    'completed',
  );
  await recordProcedures(
    scoped,
    closed.map(({ plan }) => plan),
  );
  return completed;
}

/**
 * Starting or settling `plan` failed. The failure is logged; the MAX_FAILURES-th in a row blocks the plan
 * with the error as its reason (and `plan_blocked`), so it is not tried again on every pass.
 */
async function stuckPlan(ctx: ExecutorContext, plan: PlanWithSteps, error: unknown, doing: 'starting' | 'settling' = 'settling'): Promise<void> {
  const failures = ctx.failures.failed(plan.id);
  const why = errorText(error);
  ctx.log.error(`${doing} plan ${plan.id} failed`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error), failures, executor: ctx.name });
  if (failures < MAX_FAILURES) return;
  const reason = `${doing} failed ${failures} times in a row: ${why}`;
  try {
    const blocked = await ctx.store.transaction(async (tx) => {
      const moved = await tx.plans.transition(plan.id, ['validated', ...RUNNING_PLAN_STATUSES], 'blocked', { statusReason: reason });
      if (moved) await tx.events.append({ type: 'plan_blocked', mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason, stuck: true, failures, executor: ctx.name } });
      return moved;
    });
    if (blocked) {
      ctx.failures.moved(plan.id);
      ctx.log.error(`blocked a plan that could not be moved (${doing}); an operator must look at it`, { plan: plan.id, reason, executor: ctx.name });
    }
  } catch (blocking) {
    ctx.log.error(`blocking plan ${plan.id} failed too`, { error: errorText(blocking), executor: ctx.name });
  }
}

/** The intention went away under the plan: its open steps are cancelled and the plan abandoned. */
async function abandonPlan(ctx: ExecutorContext, plan: PlanWithSteps, why: string): Promise<number> {
  const ended = await ctx.store.transaction(async (tx) => {
    const abandoned = await tx.plans.transition(plan.id, [...RUNNING_PLAN_STATUSES, 'blocked'], 'abandoned', { statusReason: why });
    if (abandoned) {
      await tx.events.append({ type: 'plan_abandoned', mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason: why } });
    }
    return abandoned;
  });
  if (!ended) return 0;
  await cancelOpenSteps(ctx, plan, why);
  return 1;
}
