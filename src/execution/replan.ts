// Reconsidering a failed plan. The reconsideration rule (src/mind/reconsideration.ts) decides
// between a new revision and abandoning the intention; this module carries the decision out:
//
// replan:  plan → replanning (conditional: one executor carries it out), the reconsideration is
//          recorded, the plan's open steps are cancelled (their approval and capability requests
//          withdrawn, their subordinate intentions abandoned), and the planner is asked for the
//          next revision. planIntention stores it, marks the old plan superseded with links both
//          ways and emits plan_replanned naming both.
// abandon: plan → failed, the reconsideration is recorded, open steps cancelled, the intention
//          abandoned with the rule's reason (replan_limit or no_possible_plan).
//
// The failed plan is never edited to look as if the new one had been intended from the start.

import type { JsonObject } from '../core/plan.ts';
import { RUNNING_PLAN_STATUSES, type PlanStatus } from '../core/vocabulary.ts';
import { abandonIntention, resumeIntention, resumeParent } from '../mind/intentions.ts';
import { failedStrategiesOf, reconsider, recordReconsideration, type FailureKind } from '../mind/reconsideration.ts';
import { Planner } from '../planning/planner.ts';
import type { PlanRequest } from '../planning/planner-types.ts';
import type { IntentionRecord, PlanRecord, PlanWithSteps } from '../store/index.ts';
import { abortEvent, type HeldAbort } from './abort.ts';
import { actualUse } from './budget.ts';
import type { ExecutorContext } from './context.ts';
import { planIntention } from '../drafting/plan-intention.ts';
import { spentWritesOf } from '../drafting/revisions.ts';
import { loadPolicyView } from '../drafting/policy-view.ts';

/** Step statuses a replan or an abandoned plan cancels. An executing step is left to finish: its outcome is still recorded. */
const CANCELLABLE = ['pending', 'ready', 'waiting', 'awaiting_approval', 'awaiting_grant', 'blocked'] as const;

/** Plan statuses a failure is reconsidered in: started and running, or blocked. */
const RECONSIDERABLE: readonly PlanStatus[] = [...RUNNING_PLAN_STATUSES, 'blocked'];

/** The strategies that would still apply to the intention, given a set of failed ones. */
async function strategiesLeftFor(ctx: ExecutorContext, intention: IntentionRecord): Promise<(failed: readonly string[]) => readonly string[]> {
  const planning = ctx.planning;
  if (!planning) return () => [];
  const belief = intention.beliefId ? await ctx.store.beliefs.get(intention.beliefId) : undefined;
  const request: PlanRequest = {
    intention: {
      objective: intention.objective,
      means: intention.means,
      requireApproval: intention.requireApproval,
      belief: belief ? { id: belief.id, statement: belief.statement } : null,
    },
    policy: await loadPolicyView(ctx.store, planning.registry, intention.mindId),
    failedStrategies: [],
    history: [],
    modelConfigured: Boolean(planning.model),
    spentWrites: await spentWritesOf(ctx.store, intention.id, planning.registry),
  };
  const planner = new Planner(planning.registry);
  return (failed) => planner.applicableStrategies({ ...request, failedStrategies: failed });
}

/**
 * Reconsiders a plan after `failure`. Does nothing unless the plan is still running or
 * blocked, and only one of several executors reconsidering at once carries it out. With `abort`
 * (an abort condition held), `plan_aborted` names it, written with the plan's move so exactly once.
 */
export async function reconsiderPlan(ctx: ExecutorContext, planId: string, failure: FailureKind, why: string, abort?: HeldAbort): Promise<void> {
  const { store } = ctx;
  const plan = await store.plans.get(planId);
  if (!plan || !RECONSIDERABLE.includes(plan.status)) return;
  const intention = await store.intentions.get(plan.intentionId);
  const where = { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id };
  const actual = await actualUse(ctx, plan, plan.steps);

  if (!intention || intention.status === 'fulfilled' || intention.status === 'abandoned') {
    // Nothing left to serve: the plan fails without a new revision.
    const failed = await store.transaction(async (tx) => {
      const moved = await tx.plans.transition(plan.id, RECONSIDERABLE, 'failed', { statusReason: why, actual });
      if (moved && abort) await tx.events.append(abortEvent(plan, abort, ctx.name));
      if (moved) await tx.events.append({ type: 'plan_failed', ...where, data: { reason: why, failure, intention: intention?.status ?? 'gone' } });
      return moved;
    });
    if (failed) await cancelOpenSteps(ctx, plan, 'the plan failed');
    return;
  }

  const decision = reconsider({
    failure,
    plan: { revision: plan.revision, strategy: plan.strategy, maxReplans: plan.maxReplans },
    failedStrategies: await failedStrategiesOf(store, intention.id),
    strategiesLeft: await strategiesLeftFor(ctx, intention),
  });
  const to = decision.decision === 'replan' ? 'replanning' : 'failed';
  // The reconsideration commits with the move: it is the only record of the failed strategy, and
  // a plan left in `replanning` without it was replanned by the stalled-replan sweep as if
  // nothing had failed (the refuted restart planned and run again).
  const moved = await store.transaction(async (tx) => {
    const next = await tx.plans.transition(plan.id, RECONSIDERABLE, to, { statusReason: why, actual });
    if (!next) return undefined;
    if (abort) await tx.events.append(abortEvent(plan, abort, ctx.name));
    if (to === 'failed') await tx.events.append({ type: 'plan_failed', ...where, data: { reason: why, failure, decision: 'abandon' } });
    await recordReconsideration(tx, { mindId: plan.mindId, intentionId: intention.id, planId: plan.id, strategy: plan.strategy }, decision);
    return next;
  });
  if (!moved) return;
  await cancelOpenSteps(ctx, plan, decision.decision === 'replan' ? 'cancelled for a new revision' : 'the plan failed');

  if (decision.decision === 'abandon') {
    await abandonIntention(store, intention.id, decision.reason, { plan_id: plan.id, explanation: decision.explanation });
    return;
  }
  await continueReplan(ctx, plan, { revision: decision.nextRevision, failedStrategies: decision.failedStrategies });
}

/**
 * Asks the planner for the revision after `plan`, which is in `replanning`. The intention is
 * made active first (its waits were cancelled with the steps), since only an active intention
 * is planned. A model that did not answer leaves the plan in `replanning`: the stalled-replan
 * sweep asks again later.
 */
async function continueReplan(ctx: ExecutorContext, plan: PlanRecord, options: { revision?: number; failedStrategies?: readonly string[] }): Promise<void> {
  const { store } = ctx;
  const planning = ctx.planning;
  const where = { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id };
  await resumeParent(store, plan.intentionId);
  await resumeIntention(store, plan.intentionId);
  if (!planning) {
    await failReplan(ctx, plan, 'no planner is configured for replanning');
    return;
  }
  const result = await planIntention(store, planning, plan.intentionId, options);
  switch (result.status) {
    case 'planned':
    case 'no_possible_plan':
      // Stored, linked and announced by planIntention (or the intention abandoned there).
      return;
    case 'draft': {
      // The model's plan failed validation (or would repeat a write that did not work): it is
      // stored as a draft that never runs, and nothing else would move the intention on (the
      // draft superseded the plan the stalled-replan sweep looks for). The model strategy has
      // failed: reconsidered without it.
      const codes = [...new Set(result.errors.map((e) => e.code))].join(', ');
      await reconsiderWithoutModel(ctx, plan, `the model's plan was kept as a draft that never runs (${codes})`, result.plan);
      return;
    }
    case 'model_failed':
      if (!result.retryable) {
        // A refusal or a malformed answer would come back the same: the model strategy has
        // failed, and the revision is reconsidered without it (asking again every stalled-replan
        // period ran forever, a model call and two events each time).
        await reconsiderWithoutModel(ctx, plan, `the model role gave nothing usable (${result.outcome}): ${result.message}`);
        return;
      }
      ctx.log.warn('replanning waits: the model role gave nothing usable', { plan: plan.id, outcome: result.outcome, message: result.message });
      await store.events.append({ type: 'operator_note', ...where, data: { message: `replanning waits for the model role: ${result.message}` } });
      // Touching the plan puts the next attempt one stalled-replan period away.
      await store.plans.transition(plan.id, 'replanning', 'replanning', { statusReason: `waiting for the model role: ${result.message}` });
      return;
    case 'refused':
      if (result.code === 'planned_concurrently') return;
      await failReplan(ctx, plan, `replanning refused: ${result.message}`);
      return;
  }
}

/**
 * The revision after `plan` (in `replanning`) is reconsidered with the model strategy failed:
 * recorded as a reconsideration of its own, then another strategy is asked for, or the
 * intention abandoned when none is left (the model is asked only when no other applies, so
 * usually it is).
 */
async function reconsiderWithoutModel(ctx: ExecutorContext, plan: PlanRecord, why: string, draft?: PlanRecord): Promise<void> {
  const { store } = ctx;
  const intention = await store.intentions.get(plan.intentionId);
  if (!intention) return;
  // With a draft, the model's plan took a revision of its own (superseding `plan`): the next one follows it.
  const spent = draft ?? plan;
  const decision = reconsider({
    failure: 'invalid_plan',
    plan: { revision: spent.revision, strategy: 'model', maxReplans: plan.maxReplans },
    failedStrategies: await failedStrategiesOf(store, intention.id),
    strategiesLeft: await strategiesLeftFor(ctx, intention),
  });
  const subject = { mindId: plan.mindId, intentionId: intention.id, planId: spent.id, strategy: 'model' };
  const where = { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id };
  if (decision.decision === 'replan') {
    await recordReconsideration(store, subject, decision);
    await continueReplan(ctx, plan, { revision: decision.nextRevision, failedStrategies: decision.failedStrategies });
    return;
  }
  if (draft) {
    // The failed plan is superseded by the draft already; the draft stays a draft (history).
    await recordReconsideration(store, subject, decision);
    await abandonIntention(store, intention.id, decision.reason, { plan_id: draft.id, explanation: `${why}; ${decision.explanation}` });
    return;
  }
  const failed = await store.transaction(async (tx) => {
    const moved = await tx.plans.transition(plan.id, 'replanning', 'failed', { statusReason: why });
    if (!moved) return false;
    await tx.events.append({ type: 'plan_failed', ...where, data: { reason: why, failure: decision.failure, decision: 'abandon' } });
    await recordReconsideration(tx, subject, decision);
    return true;
  });
  if (failed) await abandonIntention(store, intention.id, decision.reason, { plan_id: plan.id, explanation: `${why}; ${decision.explanation}` });
}

async function failReplan(ctx: ExecutorContext, plan: PlanRecord, why: string): Promise<void> {
  const { store } = ctx;
  const failed = await store.transaction(async (tx) => {
    const moved = await tx.plans.transition(plan.id, 'replanning', 'failed', { statusReason: why });
    if (moved) await tx.events.append({ type: 'plan_failed', mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason: why } });
    return moved;
  });
  if (failed) await abandonIntention(store, plan.intentionId, 'no_possible_plan', { plan_id: plan.id, explanation: why });
}

/** Picks up replans an executor left half-way (it stopped between marking and storing the revision). */
export async function resumeStalledReplans(ctx: ExecutorContext, olderThanSeconds: number, limit: number): Promise<number> {
  const { store } = ctx;
  const before = new Date(ctx.clock.now().getTime() - olderThanSeconds * 1000);
  let resumed = 0;
  for (const id of await store.executorQueries.stalledReplanIds(before, { host: ctx.host, limit })) {
    const plan = await store.plans.get(id);
    if (!plan || plan.status !== 'replanning' || plan.supersededBy) continue;
    // Two sweeps may both get here: cancelling is conditional, and planIntention stores at most
    // one revision (the loser is told `planned_concurrently`).
    await cancelOpenSteps(ctx, plan, 'cancelled for a new revision');
    await continueReplan(ctx, plan, {});
    resumed += 1;
  }
  return resumed;
}

/**
 * Cancels every open step of a plan that is not executing; withdraws the approval or capability
 * request each one waits for and abandons its subordinate intention; then lets the plan's
 * intention resume if nothing else holds it.
 */
export async function cancelOpenSteps(ctx: ExecutorContext, plan: PlanWithSteps, why: string): Promise<number> {
  const { store } = ctx;
  let cancelled = 0;
  for (const step of plan.steps) {
    const status = step.status;
    if (!(CANCELLABLE as readonly string[]).includes(status)) continue;
    const moved = await store.steps.move('cancel', step.id, CANCELLABLE, { statusReason: why, leaseUntil: null, nextRunAt: null });
    if (!moved) continue;
    cancelled += 1;
    if (moved.approvalId) {
      const answer = await ctx.capabilities.withdraw(moved.approvalId, plan.mindId);
      if (answer.status === 'refused' && answer.code !== 'not_pending') ctx.log.warn('could not withdraw approval', { approval: moved.approvalId, code: answer.code });
    }
    if (moved.requestId) {
      const answer = await ctx.capabilities.withdrawRequest(moved.requestId, plan.mindId);
      if (answer.status === 'refused' && answer.code !== 'not_open') ctx.log.warn('could not withdraw capability request', { request: moved.requestId, code: answer.code });
    }
    if (moved.intentionId) await abandonIntention(store, moved.intentionId, 'cancelled', { step_id: step.id, reason: why } as JsonObject);
  }
  if (cancelled > 0) await resumeParent(store, plan.intentionId);
  return cancelled;
}

/**
 * Cancels what still waits in plans that have closed, withdrawing their approval and capability
 * requests. A step that was mid-invocation during a replan is left to finish; if it then comes
 * back waiting for an operator, this is where that wait ends.
 */
export async function cancelOrphanedWaits(ctx: ExecutorContext, batch: number): Promise<number> {
  let cancelled = 0;
  for (const planId of await ctx.store.executorQueries.closedPlansWithOpenWaits({ host: ctx.host, limit: batch })) {
    const plan = await ctx.store.plans.get(planId);
    if (plan) cancelled += await cancelOpenSteps(ctx, plan, `its plan is ${plan.status}`);
  }
  return cancelled;
}
