// Plans as a whole: starting validated ones, moving pending steps once their dependencies have
// finished, and closing a plan when every step is final. Deciding is pure (`settlement`);
// every move is a conditional update, so two executors settling one plan cannot both win.

import type { JsonObject } from '../core/plan.ts';
import type { StepStatus } from '../core/vocabulary.ts';
import { fulfilIntention } from '../mind/intentions.ts';
import { recordProcedure } from '../mind/procedural-memory.ts';
import { FINAL_STEP_STATUSES, type PlanRecord, type PlanWithSteps, type StepRecord } from '../store/index.ts';
import { actualUse } from './budget.ts';
import type { ExecutorContext } from './context.ts';
import { reconsiderPlan, cancelOpenSteps } from './replan.ts';
import { inUnitOfWork } from './unit-of-work.ts';

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
}

/** What settling a plan's steps would do (pure). */
export function settlement(steps: readonly StepRecord[]): Settlement {
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const promote: StepRecord[] = [];
  const cancel: { step: StepRecord; reason: string }[] = [];
  for (const step of steps) {
    if (step.status !== 'pending') continue;
    const deps = step.dependsOn.map((key) => byKey.get(key));
    const broken = deps.find((d) => d !== undefined && BROKEN.includes(d.status));
    if (broken) cancel.push({ step, reason: `dependency ${broken.key} ${broken.status}` });
    else if (deps.every((d) => d !== undefined && DONE.includes(d.status))) promote.push(step);
  }
  const failedStep = steps.find((s) => s.status === 'failed') ?? null;
  const cancelled = new Set(cancel.map((c) => c.step.id));
  const allFinal = steps.every((s) => FINAL_STEP_STATUSES.includes(s.status) || cancelled.has(s.id));
  const outcome = failedStep ? 'failed' : allFinal && promote.length === 0 ? 'completed' : null;
  return { promote, cancel, outcome, failedStep };
}

/**
 * A plan that only diagnoses and tells the operator. Completing it informs; it does not bring
 * about the intention, so it never fulfils it.
 */
export function isEscalation(plan: Pick<PlanRecord, 'strategy'>, steps: readonly StepRecord[]): boolean {
  if (plan.strategy === 'diagnose_then_escalate') return true;
  const notifies = steps.some((s) => s.kind === 'internal' && s.spec.action === 'notify_operator');
  const acts = steps.some((s) => s.kind === 'capability' || s.kind === 'request_capability');
  return notifies && !acts && plan.strategy !== 'diagnose';
}

/** Starts validated plans this daemon may advance; returns how many it started. */
export async function startPlans(ctx: ExecutorContext, limit: number): Promise<number> {
  const { store } = ctx;
  let started = 0;
  for (const id of await store.executorQueries.startablePlanIds({ host: ctx.host, limit })) {
    const plan = await store.plans.get(id);
    if (!plan || plan.status !== 'validated') continue;
    const intention = await store.intentions.get(plan.intentionId);
    const where = { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id };
    if (!intention || intention.status === 'fulfilled' || intention.status === 'abandoned') {
      await store.transaction(async (tx) => {
        const ended = await tx.plans.transition(plan.id, 'validated', 'abandoned', { statusReason: `the intention is ${intention?.status ?? 'gone'}` });
        if (ended) await tx.events.append({ type: 'plan_abandoned', ...where, data: { reason: 'intention_closed' } });
      });
      continue;
    }
    const moved = await store.transaction(async (tx) => {
      const executing = await tx.plans.transition(plan.id, 'validated', 'executing', { statusReason: '' });
      if (executing) {
        await tx.events.append({
          type: 'plan_started',
          ...where,
          data: { revision: plan.revision, strategy: plan.strategy, steps: plan.steps.length, executor: ctx.name },
        });
      }
      return executing;
    });
    if (!moved) continue;
    started += 1;
    await settlePlan(ctx, plan.id);
  }
  return started;
}

/** Settles every executing plan that has something to settle; returns how many steps or plans moved. */
export async function settlePlans(ctx: ExecutorContext, limit: number): Promise<number> {
  let moved = 0;
  for (const id of await ctx.store.executorQueries.planIdsToSettle({ host: ctx.host, limit })) {
    moved += await settlePlan(ctx, id);
  }
  return moved;
}

/**
 * Promotes and cancels pending steps of one executing plan and closes it when it is done.
 * Returns how many things moved.
 */
export async function settlePlan(ctx: ExecutorContext, planId: string): Promise<number> {
  const { store } = ctx;
  const plan = await store.plans.get(planId);
  if (!plan || plan.status !== 'executing') return 0;
  const intention = await store.intentions.get(plan.intentionId);
  if (intention?.status === 'abandoned') return abandonPlan(ctx, plan, `the intention was abandoned (${intention.reason || 'no reason given'})`);

  const plan_ = settlement(plan.steps);
  let moved = 0;
  if (plan_.cancel.length > 0 || plan_.promote.length > 0) {
    // One commit for every step the settlement moves; the promotions in one statement.
    moved = await store.transaction(async (tx) => {
      let n = 0;
      for (const { step, reason } of plan_.cancel) {
        if (await tx.steps.transition(step.id, 'pending', 'cancelled', { statusReason: reason })) n += 1;
      }
      return n + (await tx.steps.promote(plan_.promote.map((s) => s.id))).length;
    });
  }
  if (plan_.outcome === 'failed' && plan_.failedStep) {
    await reconsiderPlan(ctx, plan.id, 'step_failed', `${plan_.failedStep.key} failed: ${plan_.failedStep.error || plan_.failedStep.statusReason}`);
    return moved + 1;
  }
  if (plan_.outcome === 'completed') return moved + (await completePlan(ctx, plan));
  // Promoting may have left nothing open (every remaining step was cancelled): look again.
  if (moved > 0 && plan_.cancel.length > 0) return moved + (await settlePlan(ctx, plan.id));
  return moved;
}

async function completePlan(ctx: ExecutorContext, plan: PlanWithSteps): Promise<number> {
  const { store } = ctx;
  const steps = plan.steps;
  const escalation = isEscalation(plan, steps);
  const actual = await actualUse(ctx, plan, steps);
  const done = await inUnitOfWork(store, async (scoped) => {
    const completed = await scoped.plans.transition(plan.id, 'executing', 'completed', { statusReason: '', actual });
    if (!completed) return false;
    const where = { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id };
    await scoped.events.append({
      type: 'plan_completed',
      ...where,
      data: { revision: plan.revision, strategy: plan.strategy, escalation, actual: actual as unknown as JsonObject, executor: ctx.name },
    });
    if (escalation) {
      // The operator was told; the intention waits for them rather than counting as brought about.
      const blocked = await scoped.intentions.transition(plan.intentionId, ['active', 'blocked'], 'blocked', 'expectation_failed');
      if (blocked) {
        await scoped.events.append({
          type: 'intention_blocked',
          mindId: plan.mindId,
          intentionId: plan.intentionId,
          data: { reason: 'expectation_failed', escalated: true, plan_id: plan.id },
        });
      }
    } else {
      await fulfilIntention(scoped, plan.intentionId, 'completed');
    }
    await recordProcedure(scoped, plan.id);
    return true;
  });
  return done ? 1 : 0;
}

/** The intention went away under the plan: its open steps are cancelled and the plan abandoned. */
async function abandonPlan(ctx: ExecutorContext, plan: PlanWithSteps, why: string): Promise<number> {
  const ended = await ctx.store.transaction(async (tx) => {
    const abandoned = await tx.plans.transition(plan.id, ['executing', 'blocked'], 'abandoned', { statusReason: why });
    if (abandoned) {
      await tx.events.append({ type: 'plan_abandoned', mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason: why } });
    }
    return abandoned;
  });
  if (!ended) return 0;
  await cancelOpenSteps(ctx, plan, why);
  return 1;
}
