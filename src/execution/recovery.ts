// Recovery: a step found `executing` after its lease ran out was claimed by an executor that
// stopped mid-step (a crash, a kill, a lost host). It is resolved by what its origin left
// behind, never by guessing, and the resolution is itself the takeover: one conditional move
// guarded by the expired lease, so one taker wins.
//
// - a finished execution is adopted (completed, or failed and retried where that is safe);
// - an approval request resumes the wait for it; one approved and claimed by an act of a
//   repeatable capability that never finished is unclaimed, and performed again under it;
// - no record of an idempotent or read-only action: it runs again;
// - no write-ahead record of a non-idempotent write: the write-ahead row commits with the claim
//   and before the act, so its absence proves the act never began. The step goes back to ready,
//   and the move is an event (plan_step_released, with the executor that recovered it);
// - a `started` row with no outcome: the act may have happened. The step is blocked with
//   "outcome unknown; not repeating a non-idempotent action without verification", and the
//   intention blocked as outcome_unverified, until an operator releases it.
//
// Steps that only observe or wait (verify, monitor, wait, internal) keep their progress in the
// step row and simply run again; a request step first looks for the request it may already have
// raised, and is claimed afresh before raising one.

import { addSeconds } from '../core/clock.ts';
import { isOperatorName } from '../core/operator.ts';
import type { CapabilityDefinition } from '../capabilities/definition.ts';
import type { JsonObject } from '../core/plan.ts';
import { CLOSED_PLAN_STATUSES, type PlanStatus } from '../core/vocabulary.ts';
import { resumeIntention } from '../mind/intentions.ts';
import type { ApprovalRecord, CapabilityRequestRecord, ExecutionRecord, StepRecord, Store } from '../store/index.ts';
import { applyDecision, type StepScene } from './apply.ts';
import { stepOrigin, type ExecutorContext } from './context.ts';
import { backoffSeconds, type Effect, type StepDecision } from './decisions.ts';
import { repeatable } from './handlers/capability.ts';
import { runHandler } from './handlers/index.ts';
import { adoptRequestAnswer, withdrawUnwaited } from './handlers/request-capability.ts';
import { leaseSecondsFor } from './lease.ts';
import type { Pass } from './pass.ts';
import { decideRequestPoll } from './polling.ts';
import { inUnitOfWork } from './unit-of-work.ts';

export const OUTCOME_UNKNOWN = 'outcome unknown; not repeating a non-idempotent action without verification';

/** What the step's origin left behind during its latest claim. */
export interface OriginRecords {
  /** Newest first. */
  executions: ExecutionRecord[];
  /** Oldest first. */
  approvals: ApprovalRecord[];
}

/** How an abandoned capability step is resolved from its records (pure). */
export function decideRecovery(step: StepRecord, definition: CapabilityDefinition | undefined, records: OriginRecords, now: Date): StepDecision {
  if (!definition) {
    return { kind: 'fail', reason: 'unknown capability', error: `no capability named "${step.capability}" is registered in this daemon`, failure: 'step_failed' };
  }
  const actions = records.executions.filter((e) => e.capability === step.capability);
  const finished = actions.find((e) => e.status !== 'started');
  if (finished?.status === 'succeeded') {
    const result = (finished.result ?? {}) as JsonObject;
    const effects: Effect[] = [];
    if (step.expectation) effects.push({ type: 'make_prediction', expectation: step.expectation, executionId: finished.id, eventId: null });
    const summary = typeof result.summary === 'string' ? result.summary : `${definition.name} executed`;
    return {
      kind: 'complete',
      reason: `recovered: ${summary} (the recorded outcome was adopted)`,
      result: { summary, execution_id: finished.id, recovered: true },
      observation: (result.observation ?? null) as JsonObject | null,
      executionId: finished.id,
      effects,
    };
  }
  if (finished?.status === 'failed') {
    const refused = /^(policy_denied|locked|mind_disabled|unknown_mind|not_observable):/.test(finished.error);
    if (!refused && finished.retrySafe && repeatable(definition) && step.attempts < step.maxAttempts) {
      return { kind: 'retry', at: addSeconds(now, backoffSeconds(step.attempts)), reason: 'recovered: the recorded attempt failed; trying again', error: finished.error, executionId: finished.id };
    }
    return {
      kind: 'fail',
      reason: 'recovered: the recorded attempt failed',
      error: finished.error,
      failure: refused ? 'capability_denied' : 'step_failed',
      executionId: finished.id,
    };
  }
  // A started act comes before a raised request: an approved action that began must never be
  // resumed as a wait, which would perform it again.
  const started = actions.find((e) => e.status === 'started');
  if (started && !repeatable(definition)) {
    return {
      kind: 'block',
      reason: `the action was started (execution ${started.id}) and never finished`,
      error: OUTCOME_UNKNOWN,
      intention: 'outcome_unverified',
      blockPlan: false,
      executionId: started.id,
    };
  }
  const approval = records.approvals.at(-1);
  if (approval) {
    const objective = `get an operator's approval for ${definition.name} on ${approval.target} (step ${step.key})`;
    // Claimed for an act that never finished (a read keeps no write-ahead row, so there may be
    // none), and safe to repeat: performed again under the same approval, claimed afresh. Left
    // claimed, the request would keep the step waiting until the poll gave up on it and blocked
    // it as an outcome unknown.
    const claim = approval.status === 'approved' && repeatable(definition) ? approval.executionId : null;
    if (claim) {
      return {
        kind: 'await_approval',
        approvalId: approval.id,
        reason: `recovered: the approved ${definition.name} stopped part-way (execution ${claim}) and is safe to repeat; performing it again`,
        objective,
        effects: [{ type: 'release_approval_claim', approvalId: approval.id, executionId: claim }],
      };
    }
    return { kind: 'await_approval', approvalId: approval.id, reason: 'recovered: an approval request was raised; waiting for it again', objective };
  }
  const why = repeatable(definition)
    ? `recovered: no record of the outcome, and ${definition.name} is safe to run again`
    : `recovered: no write-ahead record of ${definition.name}, so it never began; it may run`;
  return { kind: 'retry', at: now, reason: why, error: '', effects: [{ type: 'requeued', reason: why }] };
}

/** How an abandoned request step is resolved from the requests its origin raised (pure); null: raise one now. */
export function decideRequestRecovery(step: StepRecord, requests: readonly CapabilityRequestRecord[], now: Date): StepDecision | null {
  const latest = requests.at(-1);
  if (!latest) return null;
  if (latest.status === 'open') return adoptRequestAnswer(step, { status: 'raised', requestId: latest.id, batchKey: latest.batchKey }, now);
  return decideRequestPoll({ ...step, requestId: latest.id }, latest);
}

async function recordsSince(store: Store, step: StepRecord): Promise<OriginRecords> {
  const origin = stepOrigin(step.id);
  const since = step.startedAt?.getTime() ?? 0;
  const [executions, approvals] = await Promise.all([store.executions.listByOrigin(origin), store.approvals.listByOrigin(origin)]);
  return {
    executions: executions.filter((e) => e.createdAt.getTime() >= since),
    approvals: approvals.filter((a) => a.createdAt.getTime() >= since),
  };
}

/**
 * Resolves a step whose lease expired, or (`gone`) whose claimant is known to have stopped before
 * its lease ran out, taking it over; true when it moved. Taking over from a gone claimant is
 * guarded by that claimant and its lease still being on the step, so a claim renewed or
 * finished meanwhile is never taken.
 */
export async function recoverStep(ctx: ExecutorContext, pass: Pass, due: StepRecord, gone = false): Promise<boolean> {
  const { store } = ctx;
  const scene = await pass.scene(store, due);
  if (!scene) return false;
  const now = ctx.clock.now();
  const io = pass.io();
  let decision: StepDecision;
  switch (due.kind) {
    case 'capability':
      decision = decideRecovery(due, ctx.registry.get(due.capability), await recordsSince(store, due), now);
      break;
    case 'request_capability': {
      const found = decideRequestRecovery(due, await store.capabilityRequests.listByOrigin(stepOrigin(due.id)), now);
      if (!found) return takeOverAndRun(ctx, pass, scene, now, gone);
      decision = found;
      break;
    }
    default:
      decision = await runHandler(ctx, scene, io);
  }
  const guard = gone ? { claimedBy: due.claimedBy, leaseUntil: due.leaseUntil } : { leaseExpiredBy: now };
  const moved = await applyDecision(ctx, scene, decision, { from: 'executing', guard, records: io.records, deferSettle: pass.settleLater });
  if (moved) ctx.log.warn(gone ? 'recovered a step whose claimant is gone' : 'recovered a step whose claim expired', { step: due.id, kind: due.kind, decision: decision.kind, executor: ctx.name });
  return moved !== undefined;
}

/** Takes the step over under a new lease (one taker wins), then runs it as its claimant would. */
async function takeOverAndRun(ctx: ExecutorContext, pass: Pass, scene: StepScene, now: Date, gone: boolean): Promise<boolean> {
  const { step } = scene;
  const lease = addSeconds(now, leaseSecondsFor(step, scene.plan.steps, ctx.registry));
  const taken = await ctx.store.steps.move(
    'take_over',
    step.id,
    'executing',
    { leaseUntil: lease, nextRunAt: lease, claimedBy: ctx.name, statusReason: `taken over by ${ctx.name}: the previous claim ${gone ? `was held by ${step.claimedBy}, which is gone` : 'expired'}` },
    gone ? { claimedBy: step.claimedBy, leaseUntil: step.leaseUntil } : { leaseExpiredBy: now },
  );
  if (!taken) return false;
  ctx.log.warn(gone ? 'taking over a step whose claimant is gone' : 'taking over a step whose claim expired', { step: taken.id, kind: taken.kind, executor: ctx.name });
  const io = pass.io();
  const decision = await runHandler(ctx, { ...scene, step: taken }, io);
  const moved = await applyDecision(ctx, { ...scene, step: taken }, decision, { from: 'executing', guard: { leaseUntil: taken.leaseUntil }, records: io.records, deferSettle: pass.settleLater });
  if (!moved) await withdrawUnwaited(ctx, taken, decision);
  return moved !== undefined;
}

export type Release = { released: true; step: StepRecord } | { released: false; code: 'invalid_operator' | 'not_found' | 'not_blocked' | 'plan_closed' | 'conflict'; message: string };

/**
 * An operator has checked the world and lets a blocked step run again (blocked → ready). A plan
 * blocked with it goes back to executing, and an intention held only by it resumes.
 */
export async function releaseStep(store: Store, stepId: string, operator: string): Promise<Release> {
  if (!isOperatorName(operator)) {
    return { released: false, code: 'invalid_operator', message: 'a release needs the name of the operator making it' };
  }
  const step = await store.steps.get(stepId);
  if (!step) return { released: false, code: 'not_found', message: `no step ${stepId}` };
  if (step.status !== 'blocked') return { released: false, code: 'not_blocked', message: `step ${step.key} is ${step.status}, not blocked` };
  const plan = await store.plans.get(step.planId);
  if (!plan) return { released: false, code: 'not_found', message: `no plan ${step.planId}` };
  // A step left blocked in a plan that has since closed (it was executing when the plan was
  // replanned or failed, and its outcome proved unknown) would only become a ready step no pass
  // runs, reported as released: the operator settles it on the new revision or by hand instead.
  const closed = (status: PlanStatus) => CLOSED_PLAN_STATUSES.includes(status);
  const closedRefusal = (status: PlanStatus): Release => ({
    released: false,
    code: 'plan_closed',
    message: `plan ${plan.id} is ${status}: step ${step.key} will not run again; check what it did on the host and act through the current plan`,
  });
  if (closed(plan.status)) return closedRefusal(plan.status);
  let closedMeanwhile: PlanStatus | undefined;
  const released = await inUnitOfWork(store, async (scoped) => {
    const current = (await scoped.plans.get(plan.id))?.status;
    if (current === undefined || closed(current)) {
      closedMeanwhile = current;
      return undefined;
    }
    const moved = await scoped.steps.move('release', step.id, 'blocked', {
      statusReason: `released by ${operator}`,
      error: '',
      leaseUntil: null,
      nextRunAt: null,
    });
    if (!moved) return undefined;
    const where = { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id };
    await scoped.events.append({ type: 'plan_step_released', ...where, stepId: step.id, data: { key: step.key, operator, was: step.error || step.statusReason } });
    if (await scoped.plans.transition(plan.id, 'blocked', 'executing', { statusReason: `step ${step.key} released by ${operator}` })) {
      await scoped.events.append({ type: 'plan_started', ...where, data: { resumed: true, operator } });
    }
    const intention = await scoped.intentions.get(plan.intentionId);
    if (intention && (intention.reason === 'outcome_unverified' || intention.reason === 'budget_exhausted')) {
      await resumeIntention(scoped, intention.id);
    }
    return moved;
  });
  if (closedMeanwhile !== undefined) return closedRefusal(closedMeanwhile);
  if (!released) return { released: false, code: 'conflict', message: `step ${step.key} moved while it was released` };
  return { released: true, step: released };
}
