// A request_capability step asks an operator for scoped, temporary access and waits for the
// answer. Operator attention is capped: when the mind already has its share of open requests,
// the step waits ten minutes and asks again. Like an approval, a request counts against the
// plan's approvals budget, checked before it is raised.

import { addSeconds } from '../../core/clock.ts';
import type { RequestAnswer } from '../../capabilities/capability-requests.ts';
import type { CapabilityRequestSpec, JsonObject } from '../../core/plan.ts';
import type { StepRecord } from '../../store/index.ts';
import type { StepScene } from '../apply.ts';
import type { StepIO } from '../pass.ts';
import { CAPPED_REQUEST_RETRY_SECONDS, stepOrigin, type ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';
import { budgetBlock, checkBudget, usage } from '../budget.ts';

export function requestOf(step: StepRecord): CapabilityRequestSpec {
  return step.spec.request as unknown as CapabilityRequestSpec;
}

/** What raising the request answered, for the step (pure). */
export function adoptRequestAnswer(step: StepRecord, answer: RequestAnswer, now: Date): StepDecision {
  const request = requestOf(step);
  switch (answer.status) {
    case 'raised':
      return {
        kind: 'await_grant',
        requestId: answer.requestId,
        reason: `waiting for an operator to grant ${request.capability} on ${request.target_pattern}`,
        objective: `get access to ${request.capability} on ${request.target_pattern} (step ${step.key})`,
      };
    case 'capped': {
      const until = addSeconds(now, CAPPED_REQUEST_RETRY_SECONDS);
      return { kind: 'wait', until, reason: `${answer.open} of ${answer.cap} capability requests are open; asking again at ${until.toISOString()}` };
    }
    case 'invalid':
      return { kind: 'fail', reason: 'the request is not valid', error: answer.issues.map((i) => `${i.path}: ${i.message}`).join('; '), failure: 'step_failed' };
    case 'refused':
      return { kind: 'fail', reason: 'the request was refused', error: `${answer.code}: ${answer.message}`, failure: 'request_denied' };
    default:
      return { kind: 'fail', reason: 'unexpected answer to a request', error: `requesting answered ${answer.status}`, failure: 'step_failed' };
  }
}

export async function runRequestStep(ctx: ExecutorContext, scene: StepScene, io: StepIO): Promise<StepDecision> {
  const { step, plan } = scene;
  const request = requestOf(step);
  // A capability request is operator attention, counted as an approval: checked before it is raised.
  const used = usage(plan, plan.steps, await io.usageCounts(ctx.store, plan), ctx.registry, ctx.clock.now());
  const budget = checkBudget(plan.budget, used, { approvals: 1 });
  if (!budget.ok) return budgetBlock(budget);
  const answer = await ctx.capabilities.requestCapability({
    mindId: plan.mindId,
    intentionId: plan.intentionId,
    origin: stepOrigin(step.id),
    capability: request.capability,
    targetPattern: request.target_pattern,
    paramLimits: (request.param_limits ?? {}) as JsonObject,
    durationSeconds: request.duration_seconds,
    maxOperations: request.max_operations,
    reason: request.reason,
    risk: request.risk,
    mitigation: request.mitigation,
    fallback: request.fallback,
    alternatives: request.alternatives ?? [],
  });
  return adoptRequestAnswer(step, answer, ctx.clock.now());
}

/**
 * After a request step's move lost (its lease ran out in the call and another executor took the
 * step over and raised a request of its own, or moved it on): withdraws the request this move
 * raised unless the step now waits on it. The request is raised in its own transaction, before
 * the move, so it does not roll back with a lost move; left open, it would be put before
 * operators, and a grant of it would give the mind access no step waits for.
 */
export async function withdrawUnwaited(ctx: ExecutorContext, step: StepRecord, decision: StepDecision): Promise<void> {
  if (decision.kind !== 'await_grant') return;
  if ((await ctx.store.steps.get(step.id))?.requestId === decision.requestId) return;
  const answer = await ctx.capabilities.withdrawRequest(decision.requestId, step.mindId);
  if (answer.status === 'withdrawn') ctx.log.warn('withdrew a capability request its step no longer waits on', { step: step.id, request: decision.requestId, executor: ctx.name });
}
