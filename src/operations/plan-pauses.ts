// Pausing and resuming plans, one at a time or every open plan of a mind (docs/executor.md,
// "Pausing a plan"). A pause is recorded beside the plan's status, never as one: while it holds,
// the executor claims none of the plan's steps, its waits keep their due times without acting,
// and its approvals stay open (a decision is recorded; its step runs after the resume). A step
// already executing finishes. Every pause and resume is an event naming the operator and why.

import type { Principal } from '../access/permissions.ts';
import { textProblem } from '../core/input-limits.ts';
import { CLOSED_PLAN_STATUSES } from '../core/vocabulary.ts';
import type { JsonObject } from '../core/plan.ts';
import type { MindRecord, NewEvent, PlanPause, PlanRecord, Store } from '../store/index.ts';
import { Conflict, invalid } from './errors.ts';
import { resolveMind } from './minds.ts';
import { planOfMind } from './mind-plans.ts';
import { findPlan } from './plans.ts';

/** Longest reason kept with a pause or resume. */
export const PAUSE_REASON_MAX = 2000;

export interface PauseInput {
  /** Why, in the operator's words; may be empty. */
  reason?: string | undefined;
  /** The plan must belong to this mind (name or id), as a path under `/minds/{mind}` says. */
  mind?: string | undefined;
}

function reasonOf(input: PauseInput): string {
  const reason = input.reason ?? '';
  const problem = textProblem(reason, PAUSE_REASON_MAX);
  if (problem) throw invalid(problem.code, 'reason', `the reason ${problem.message}`);
  return reason;
}

function planOf(store: Store, principal: Principal, planId: string, input: PauseInput): Promise<PlanRecord> {
  return input.mind === undefined ? findPlan(store, principal, planId) : planOfMind(store, principal, input.mind, planId);
}

function where(plan: PlanRecord) {
  return { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id };
}

function pausedEvent(plan: PlanRecord, operator: string, reason: string, withMind: boolean): NewEvent {
  return { type: 'plan_paused', ...where(plan), data: { operator, reason, status: plan.status, ...(withMind ? { with_mind: true } : {}) } };
}

function resumedEvent({ plan, lifted: pause }: { plan: PlanRecord; lifted: PlanPause }, operator: string, reason: string, withMind: boolean, now: Date): NewEvent {
  const data: JsonObject = {
    operator,
    reason,
    status: plan.status,
    paused_by: pause.by,
    paused_at: pause.at.toISOString(),
    paused_seconds: Math.max(0, Math.round((now.getTime() - pause.at.getTime()) / 1000)),
    ...(withMind ? { with_mind: true } : {}),
  };
  return { type: 'plan_resumed', ...where(plan), data };
}

/** Why `plan` cannot be paused now, or null. */
function pauseRefusal(plan: PlanRecord): Conflict | null {
  if (plan.pause) return new Conflict('id', `plan ${plan.id} is already paused (by ${plan.pause.by || 'an operator'} at ${plan.pause.at.toISOString()})`, 'already_paused');
  if (CLOSED_PLAN_STATUSES.includes(plan.status)) return new Conflict('id', `plan ${plan.id} is ${plan.status}: a closed plan runs nothing to pause`, 'plan_closed');
  if (plan.status === 'draft') return new Conflict('id', `plan ${plan.id} is a draft, which never runs: there is nothing to pause`, 'plan_draft');
  return null;
}

/** Pauses one open plan; answers it as it now is. */
export async function pausePlan(store: Store, principal: Principal, planId: string, input: PauseInput = {}): Promise<{ plan: PlanRecord }> {
  const reason = reasonOf(input);
  const plan = await planOf(store, principal, planId, input);
  const refused = pauseRefusal(plan);
  if (refused) throw refused;
  const paused = await store.transaction(async (tx) => {
    const [moved] = await tx.plans.pause([plan.id], { by: principal.operator, reason });
    if (moved) await tx.events.append(pausedEvent(moved, principal.operator, reason, false));
    return moved;
  });
  if (!paused) {
    // It moved between the read and the write: say what it is now.
    const now = await store.plans.get(plan.id);
    throw (now && pauseRefusal(now)) ?? new Conflict('id', `plan ${plan.id} moved while it was paused`, 'conflict');
  }
  return { plan: paused };
}

/** Lifts the pause of one plan; its due work acts on the executor's next pass. */
export async function resumePlan(store: Store, principal: Principal, planId: string, input: PauseInput = {}): Promise<{ plan: PlanRecord }> {
  const reason = reasonOf(input);
  const plan = await planOf(store, principal, planId, input);
  if (!plan.pause) throw new Conflict('id', `plan ${plan.id} is not paused`, 'not_paused');
  const now = store.clock.now();
  const resumed = await store.transaction(async (tx) => {
    const [done] = await tx.plans.resume([plan.id]);
    // The event wakes the executors (a resumed plan may have due work), after the commit.
    if (done) await tx.events.append(resumedEvent(done, principal.operator, reason, false, now));
    return done?.plan;
  });
  if (!resumed) throw new Conflict('id', `plan ${plan.id} is not paused`, 'not_paused');
  // The plan record, as pausing answers it (no steps).
  return { plan: resumed };
}

export interface MindPause {
  mind: MindRecord;
  /** The plans this paused or resumed. */
  plans: PlanRecord[];
}

/**
 * Pauses every open plan of a mind that is not paused yet, each with its own event and one for
 * the mind. Plans made later are not paused (to stop a mind altogether, disable it).
 */
export async function pauseMind(store: Store, principal: Principal, mindRef: string, input: { reason?: string | undefined } = {}): Promise<MindPause> {
  const reason = reasonOf(input);
  const mind = await resolveMind(store, principal, mindRef);
  const ids = await store.plans.idsOfMind(mind.id, 'pausable');
  if (ids.length === 0) throw new Conflict('mind', `mind ${mind.name} has no open plan that is not paused already`, 'nothing_to_pause');
  const plans = await store.transaction(async (tx) => {
    const paused = await tx.plans.pause(ids, { by: principal.operator, reason });
    if (paused.length === 0) return paused;
    await tx.events.appendMany([
      ...paused.map((plan) => pausedEvent(plan, principal.operator, reason, true)),
      { type: 'mind_paused', mindId: mind.id, data: { operator: principal.operator, reason, plans: paused.map((p) => p.id) } },
    ]);
    return paused;
  });
  if (plans.length === 0) throw new Conflict('mind', `mind ${mind.name} has no open plan that is not paused already`, 'nothing_to_pause');
  return { mind, plans };
}

/** Resumes every paused plan of a mind, each with its own event and one for the mind. */
export async function resumeMind(store: Store, principal: Principal, mindRef: string, input: { reason?: string | undefined } = {}): Promise<MindPause> {
  const reason = reasonOf(input);
  const mind = await resolveMind(store, principal, mindRef);
  const ids = await store.plans.idsOfMind(mind.id, 'paused');
  if (ids.length === 0) throw new Conflict('mind', `mind ${mind.name} has no paused plan`, 'not_paused');
  const now = store.clock.now();
  const plans = await store.transaction(async (tx) => {
    const resumed = await tx.plans.resume(ids);
    if (resumed.length === 0) return [];
    await tx.events.appendMany([
      ...resumed.map((done) => resumedEvent(done, principal.operator, reason, true, now)),
      { type: 'mind_resumed', mindId: mind.id, data: { operator: principal.operator, reason, plans: resumed.map((done) => done.plan.id) } },
    ]);
    return resumed.map((done) => done.plan);
  });
  if (plans.length === 0) throw new Conflict('mind', `mind ${mind.name} has no paused plan`, 'not_paused');
  return { mind, plans };
}
