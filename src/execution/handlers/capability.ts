// A capability step: check the budget, check the precondition, act through the capability
// service, and adopt what it answered. Deciding from an answer is pure (adoptInvocation,
// judgePrecondition); only observing and acting touch the world.

import type { CapabilityDefinition } from '../../capabilities/definition.ts';
import { mergeRecords, noRecords, type CallRecords } from '../../capabilities/call-records.ts';
import type { InvokeResult } from '../../capabilities/invocation.ts';
import { addSeconds } from '../../core/clock.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { StepRecord } from '../../store/index.ts';
import type { StepScene } from '../apply.ts';
import { budgetBlock, checkBudget, usage } from '../budget.ts';
import { observe, type CheckOutcome } from '../checks.ts';
import { preconditionOrigin, stepOrigin, type ExecutorContext } from '../context.ts';
import type { StepIO } from '../pass.ts';
import { backoffSeconds, type Effect, type StepDecision } from '../decisions.ts';
import { evidenceOf, explanationOf } from '../explain.ts';

/** True when calling again can never repeat a side effect. */
export function repeatable(definition: Pick<CapabilityDefinition, 'readOnly' | 'idempotent'>): boolean {
  return definition.readOnly || definition.idempotent;
}

/** Approval is required by the step, the plan or the intention, and only ever for a write. */
export function requiresApproval(scene: StepScene, definition: CapabilityDefinition): boolean {
  if (definition.readOnly) return false;
  return scene.step.requireApproval || scene.plan.requireApproval || (scene.intention?.requireApproval ?? false);
}

/** What a precondition's observation means for the step (pure): null means go ahead and act. */
export function judgePrecondition(step: StepRecord, outcome: CheckOutcome, now: Date): StepDecision | null {
  const precondition = step.precondition!;
  const what = precondition.statement || `${precondition.field} ${precondition.comparison}${precondition.value === undefined ? '' : ` ${JSON.stringify(precondition.value)}`}`;
  const seen = outcome.observation;
  switch (seen.kind) {
    case 'held':
      return null;
    case 'not_held': {
      const effects: Effect[] = precondition.fulfils_intention ? [{ type: 'fulfil_intention', reason: 'precondition_met' }] : [];
      return {
        kind: 'skip',
        reason: `precondition does not hold (${what}); the world already changed, so the action is skipped`,
        observation: { precondition: { observed: seen.observed ?? null, holds: false } },
        executionId: outcome.executionId,
        effects,
      };
    }
    case 'unobservable':
      if (!seen.lasting && step.attempts < step.maxAttempts) {
        return { kind: 'retry', at: addSeconds(now, backoffSeconds(step.attempts)), reason: `precondition not observable yet: ${seen.why}`, error: seen.why };
      }
      return { kind: 'fail', reason: 'the precondition could not be checked', error: `precondition not observable: ${seen.why}`, failure: 'step_failed' };
  }
}

/** What the capability service's answer means for the step (pure). */
export function adoptInvocation(step: StepRecord, definition: CapabilityDefinition, result: InvokeResult, now: Date): StepDecision {
  switch (result.status) {
    case 'executed': {
      const effects: Effect[] = step.expectation ? [{ type: 'make_prediction', expectation: step.expectation, executionId: result.executionId, eventId: result.eventId }] : [];
      return {
        kind: 'complete',
        reason: result.summary,
        result: { summary: result.summary, execution_id: result.executionId, low_trust: result.lowTrust },
        observation: result.observation,
        executionId: result.executionId,
        effects,
      };
    }
    case 'pending':
      return {
        kind: 'await_approval',
        approvalId: result.approvalId,
        reason: `waiting for an operator to approve ${definition.name} (${result.verdict.reason})`,
        objective: `get an operator's approval for ${definition.name} on ${step.target || definition.target(step.params)} (step ${step.key})`,
      };
    case 'denied':
      return {
        kind: 'fail',
        reason: 'refused by policy',
        error: `${result.code}: ${result.reason}`,
        failure: 'capability_denied',
        executionId: result.executionId ?? null,
      };
    case 'failed':
      if (result.retrySafe && repeatable(definition) && step.attempts < step.maxAttempts) {
        const wait = backoffSeconds(step.attempts);
        return {
          kind: 'retry',
          at: addSeconds(now, wait),
          reason: `attempt ${step.attempts} of ${step.maxAttempts} failed; trying again in ${wait} s`,
          error: `${result.code}: ${result.error}`,
          executionId: result.executionId ?? null,
        };
      }
      return {
        kind: 'fail',
        reason: step.attempts >= step.maxAttempts ? `attempt ${step.attempts} of ${step.maxAttempts} failed` : 'failed in a way that is not safe to repeat',
        error: `${result.code}: ${result.error}`,
        failure: 'step_failed',
        executionId: result.executionId ?? null,
      };
  }
}

/** How a capability step's run ended: the decision, and the claim it took if it wrote ahead. */
export interface CapabilityRun {
  decision: StepDecision;
  /** Set when the step was claimed before acting (a non-idempotent write): the decision applies from this claim. */
  claimed?: StepRecord;
}

/**
 * Commits the claim of a step that is about to make a non-idempotent write, together with the
 * records of its authorisation (its `started` execution row among them); undefined when another
 * executor won the step, and then no `started` row is written.
 */
export type ClaimForWrite = (records: CallRecords) => Promise<StepRecord | undefined>;

/**
 * A ready capability step: check the budget and the precondition, ask the capability service,
 * and act. Nothing is claimed before a read or an idempotent action: the step acts first and its
 * move (with everything the calls recorded, in `io.records`) commits afterwards in one
 * transaction, guarded by the step's status, so a lost race only repeats a read. A
 * non-idempotent write is claimed first, in the same commit as its write-ahead record, and acts
 * only if the claim won.
 */
export async function runCapabilityStep(ctx: ExecutorContext, scene: StepScene, io: StepIO, claimForWrite: ClaimForWrite): Promise<CapabilityRun> {
  const { step, plan, intention } = scene;
  const now = ctx.clock.now();
  const definition = ctx.registry.get(step.capability);
  if (!definition) {
    return { decision: { kind: 'fail', reason: 'unknown capability', error: `no capability named "${step.capability}" is registered in this daemon`, failure: 'step_failed' } };
  }

  const counts = await io.usageCounts(ctx.store, plan);
  const used = usage(plan, plan.steps, counts, ctx.registry, now);
  const approval = requiresApproval(scene, definition);
  const preconditionPending = step.precondition !== null && !(counts.executions.get(preconditionOrigin(step.id)) ?? 0);
  const verdict = checkBudget(plan.budget, used, {
    invocations: 1 + (preconditionPending ? 1 : 0),
    network_ops: definition.cost.network_ops,
    money: definition.cost.money,
    approvals: approval ? 1 : 0,
  });
  if (!verdict.ok) return { decision: budgetBlock(verdict) };

  const call = { mindId: plan.mindId, intentionId: plan.intentionId, evidence: evidenceOf(scene) };
  if (step.precondition) {
    const outcome = await observe(ctx, io, { ...call, origin: preconditionOrigin(step.id), why: `precondition of step ${step.key}: ${step.precondition.statement ?? step.title}` }, step.precondition);
    const decided = judgePrecondition(step, outcome, ctx.clock.now());
    if (decided) return { decision: decided };
  }

  const authorisation = await ctx.capabilities.authorise(
    {
      mindId: plan.mindId,
      capability: definition.name,
      params: step.params,
      origin: stepOrigin(step.id),
      correlationId: plan.intentionId,
      evidence: call.evidence as JsonObject,
      explanation: explanationOf(scene, definition),
      requireApproval: approval,
      ...(plan.authoredBy ? { authoredBy: plan.authoredBy } : {}),
      ...(intention ? { batchKey: intention.id } : {}),
    },
    { memo: io.memo },
  );
  if (authorisation.status === 'settled') {
    // Policy asks an operator about a write the step did not say needs approval, so the budget
    // above did not count it: an approval the plan cannot afford is never raised.
    const asking = authorisation.result.status === 'pending' && !approval ? checkBudget(plan.budget, used, { approvals: 1 }) : { ok: true as const };
    if (!asking.ok) {
      io.records = mergeRecords(io.records, { ...noRecords(), events: authorisation.records.events.filter((e) => e.type === 'policy_decision') });
      return { decision: budgetBlock({ ...asking, reason: `${asking.reason} (policy asks an operator)` }) };
    }
    io.records = mergeRecords(io.records, authorisation.records);
    return { decision: adoptInvocation(step, definition, authorisation.result, ctx.clock.now()) };
  }
  if (!authorisation.writeAhead) {
    const acted = await ctx.capabilities.act(authorisation);
    io.records = mergeRecords(io.records, authorisation.records, acted.records);
    return { decision: adoptInvocation(step, definition, acted.result, ctx.clock.now()) };
  }

  // The write-ahead record commits with the claim, before the act: whoever finds the step
  // executing later finds the record too, and a claim without one proves nothing was done.
  const claimed = await claimForWrite(mergeRecords(io.records, authorisation.records));
  io.records = noRecords();
  if (!claimed) return { decision: { kind: 'keep', reason: 'another executor claimed the step first' } };
  const acted = await ctx.capabilities.act(authorisation);
  io.records = acted.records;
  return { decision: adoptInvocation(claimed, definition, acted.result, ctx.clock.now()), claimed };
}
