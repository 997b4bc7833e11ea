// Steps waiting for an operator: the approval of an action or the grant of a capability
// request. Polling reads the request and decides (pure) whether the wait is over. An approval
// only records the decision: the executor that finds the step's request approved performs
// exactly the approved action itself, since it serves the mind's host. It claims the request and
// the step together with the action's write-ahead record, acts, and commits the outcome with the
// step's move.

import { approvalOutcome, authoriseApproved, type ReadForApproval } from '../capabilities/approvals.ts';
import type { CapabilityDefinition } from '../capabilities/definition.ts';
import type { Denied, Executed, Failed } from '../capabilities/invocation.ts';
import { addSeconds } from '../core/clock.ts';
import type { JsonObject } from '../core/plan.ts';
import type { ApprovalRecord, CapabilityRequestRecord, ExecutionRecord, StepRecord, Store } from '../store/index.ts';
import { applyDecision, type StepScene } from './apply.ts';
import { leaseSecondsFor } from './lease.ts';
import type { Pass } from './pass.ts';
import { LEASE_MARGIN_SECONDS, type ExecutorContext } from './context.ts';
import type { Effect, StepDecision } from './decisions.ts';

/** The decision about a step that waits for `approval` (pure). */
export function decideApprovalPoll(
  step: StepRecord,
  approval: ApprovalRecord | undefined,
  execution: ExecutionRecord | undefined,
  definition: CapabilityDefinition | undefined,
  now: Date,
): StepDecision {
  if (!approval) {
    return {
      kind: 'fail',
      reason: 'the approval request is gone',
      error: `no approval request ${step.approvalId ?? '(none)'}`,
      failure: 'step_failed',
      effects: [{ type: 'abandon_subordinate', reason: 'cancelled' }],
    };
  }
  const lastNote = [...approval.decisions].reverse().find((d) => d.note)?.note ?? '';
  switch (approval.status) {
    case 'pending':
      return { kind: 'keep', reason: 'still waiting for an operator' };
    case 'approved': {
      // Claimed for execution, yet the step still waits: only a request performed outside this
      // step's claim (an older daemon) gets here. If it has had longer than the capability could
      // take, it stopped part-way: the outcome is unknown.
      const limit = (definition?.timeoutSeconds ?? 0) + LEASE_MARGIN_SECONDS;
      const since = approval.decidedAt ?? approval.updatedAt;
      if (now.getTime() - since.getTime() <= limit * 1000) return { kind: 'keep', reason: 'approved; the action is being performed' };
      return {
        kind: 'block',
        reason: 'approved, but the approved action never finished',
        error: 'outcome unknown; not repeating a non-idempotent action without verification',
        intention: 'outcome_unverified',
        blockPlan: false,
      };
    }
    case 'executed': {
      if (!execution || execution.status !== 'succeeded') {
        return {
          kind: 'fail',
          reason: 'the approved action left no successful execution',
          error: execution?.error || 'no execution recorded',
          failure: 'step_failed',
          effects: [{ type: 'abandon_subordinate', reason: 'cancelled' }],
        };
      }
      const result = (execution.result ?? {}) as JsonObject;
      const effects: Effect[] = [{ type: 'fulfil_subordinate' }];
      if (step.expectation) effects.push({ type: 'make_prediction', expectation: step.expectation, executionId: execution.id, eventId: null });
      const summary = typeof result.summary === 'string' ? result.summary : `${approval.capability} executed`;
      return {
        kind: 'complete',
        reason: `approved and executed: ${summary}`,
        result: { summary, execution_id: execution.id, approval_id: approval.id },
        observation: (result.observation ?? null) as JsonObject | null,
        executionId: execution.id,
        effects,
      };
    }
    case 'failed': {
      const denied = !execution;
      return {
        kind: 'fail',
        reason: denied ? 'the approved action was refused when it came to run' : 'the approved action failed',
        error: execution?.error || 'refused at execution: policy, a lock or the mind changed since the request was raised',
        failure: denied ? 'capability_denied' : 'step_failed',
        executionId: execution?.id ?? null,
        effects: [{ type: 'abandon_subordinate', reason: 'capability_denied' }],
      };
    }
    case 'denied': {
      const by = approval.decisions
        .filter((d) => d.decision === 'deny')
        .map((d) => d.operator)
        .join(', ');
      return {
        kind: 'fail',
        reason: `denied by ${by || 'an operator'}`,
        error: `approval denied${lastNote ? `: ${lastNote}` : ''}`,
        failure: 'approval_denied',
        effects: [{ type: 'abandon_subordinate', reason: 'capability_denied' }],
      };
    }
    case 'expired':
    case 'withdrawn':
      return {
        kind: 'fail',
        reason: `the approval request was ${approval.status}`,
        error: `expired approval: the request was ${approval.status} before anyone approved it`,
        failure: 'approval_expired',
        effects: [{ type: 'abandon_subordinate', reason: 'cancelled' }],
      };
  }
}

/** The decision about a step that waits for capability request `request` (pure). */
export function decideRequestPoll(step: StepRecord, request: CapabilityRequestRecord | undefined): StepDecision {
  if (!request) {
    return {
      kind: 'fail',
      reason: 'the capability request is gone',
      error: `no capability request ${step.requestId ?? '(none)'}`,
      failure: 'step_failed',
      effects: [{ type: 'abandon_subordinate', reason: 'cancelled' }],
    };
  }
  switch (request.status) {
    case 'open':
      return { kind: 'keep', reason: 'still waiting for an operator' };
    case 'granted':
      return {
        kind: 'complete',
        reason: `granted by ${request.decidedBy || 'an operator'}`,
        result: { summary: `access to ${request.capability} on ${request.targetPattern} granted`, grant_id: request.grantId, request_id: request.id },
        effects: [{ type: 'fulfil_subordinate' }],
      };
    case 'denied':
      return {
        kind: 'fail',
        reason: `denied by ${request.decidedBy || 'an operator'}`,
        error: `capability request denied by ${request.decidedBy || 'an operator'}`,
        failure: 'request_denied',
        effects: [{ type: 'abandon_subordinate', reason: 'capability_denied' }],
      };
    case 'withdrawn':
    case 'expired':
      return {
        kind: 'fail',
        reason: `the capability request was ${request.status}`,
        error: `expired approval: the capability request was ${request.status}`,
        failure: 'approval_expired',
        effects: [{ type: 'abandon_subordinate', reason: 'cancelled' }],
      };
  }
}

/** What an approved action's run means for the step that waited for it (pure). */
export function adoptApprovedRun(step: StepRecord, approval: ApprovalRecord, result: Executed | Failed | Denied): StepDecision {
  switch (result.status) {
    case 'executed': {
      const effects: Effect[] = [{ type: 'fulfil_subordinate' }];
      if (step.expectation) effects.push({ type: 'make_prediction', expectation: step.expectation, executionId: result.executionId, eventId: result.eventId });
      return {
        kind: 'complete',
        reason: `approved and executed: ${result.summary}`,
        result: { summary: result.summary, execution_id: result.executionId, approval_id: approval.id },
        observation: result.observation,
        executionId: result.executionId,
        effects,
      };
    }
    case 'failed':
      return {
        kind: 'fail',
        reason: 'the approved action failed',
        error: `${result.code}: ${result.error}`,
        failure: 'step_failed',
        executionId: result.executionId ?? null,
        effects: [{ type: 'abandon_subordinate', reason: 'capability_denied' }],
      };
    case 'denied':
      return {
        kind: 'fail',
        reason: 'the approved action was refused when it came to run',
        error: `${result.code}: ${result.reason}`,
        failure: 'capability_denied',
        effects: [{ type: 'abandon_subordinate', reason: 'capability_denied' }],
      };
  }
}

/**
 * Performs the approved action a step waits for. The request's claim, the step's move to
 * executing and the action's write-ahead row commit together; the outcome, the request's move
 * to executed or failed and the step's decision commit together after the act. True when the
 * step moved.
 */
export async function performApprovedStep(ctx: ExecutorContext, pass: Pass, scene: StepScene, approval: ApprovalRecord, read: ReadForApproval = {}): Promise<boolean> {
  const { store } = ctx;
  const { step, plan } = scene;
  const service = ctx.capabilities.context;
  const authorised = await authoriseApproved(service, approval, read);
  // Made whether or not the step's move wins, but only under the claim this executor knows: a
  // refusal read while the request was unclaimed changes nothing once another executor claimed
  // it (that one is acting and will record the outcome); an outcome, only under its own claim.
  const settleApproval = (result: Executed | Failed | Denied, claim: string | null) => async (scoped: Store) => {
    const outcome = approvalOutcome(result);
    await scoped.approvals.transition(approval.id, 'approved', outcome.to, { executionId: outcome.executionId }, { executionId: claim });
  };
  if (authorised.status === 'refused') {
    const decision = adoptApprovedRun(step, approval, authorised.result);
    const refused = { from: 'awaiting_approval', records: authorised.records, alsoWrite: settleApproval(authorised.result, null), deferSettle: pass.settleLater } as const;
    return (await applyDecision(ctx, scene, decision, refused)) !== undefined;
  }
  const lease = addSeconds(ctx.clock.now(), leaseSecondsFor(step, plan.steps, ctx.registry));
  // The claim of the request and of the step, the write-ahead execution and the events commit
  // together, before the act (steps.claimApproved: one statement on PostgreSQL). Undefined when
  // either moved on (a replan cancelled the step, another executor claimed it): act on nothing.
  const { records } = authorised;
  if (records.finished.length > 0 || records.approvals.length > 0) throw new Error('an authorised approval carries no finished execution and no approval request');
  const claimed = await store.steps.claimApproved({
    stepId: step.id,
    approvalId: approval.id,
    executionId: authorised.executionId,
    patch: { leaseUntil: lease, nextRunAt: lease, claimedBy: ctx.name },
    executions: records.executions,
    events: [
      ...records.events,
      {
        type: 'plan_step_started',
        mindId: plan.mindId,
        intentionId: plan.intentionId,
        planId: plan.id,
        stepId: step.id,
        data: {
          key: step.key,
          kind: step.kind,
          // The claim counts no attempt: the step's count as read.
          attempt: step.attempts,
          capability: step.capability,
          target: approval.target,
          approval_id: approval.id,
          lease_until: lease.toISOString(),
          executor: ctx.name,
        },
      },
    ],
  });
  if (!claimed) return false;
  pass.approvalClaimed(approval, claimed);
  const acted = await ctx.capabilities.act(authorised);
  const decision = adoptApprovedRun(claimed, approval, acted.result);
  await applyDecision(ctx, { ...scene, step: claimed }, decision, {
    from: 'executing',
    guard: { leaseUntil: claimed.leaseUntil },
    records: acted.records,
    alsoWrite: settleApproval(acted.result, authorised.executionId),
    deferSettle: pass.settleLater,
  });
  return true;
}

/** Looks at a step in awaiting_approval or awaiting_grant; true when it moved. */
export async function pollStep(ctx: ExecutorContext, pass: Pass, step: StepRecord): Promise<boolean> {
  const { store } = ctx;
  let decision: StepDecision;
  if (step.status === 'awaiting_approval') {
    const approval = step.approvalId ? await store.approvals.get(step.approvalId) : undefined;
    if (approval?.status === 'approved' && !approval.executionId) {
      const scene = await pass.scene(store, step);
      return scene ? performApprovedStep(ctx, pass, scene, approval) : false;
    }
    const execution = approval?.executionId ? await store.executions.get(approval.executionId) : undefined;
    decision = decideApprovalPoll(step, approval, execution, ctx.registry.get(step.capability), ctx.clock.now());
  } else {
    const request = step.requestId ? await store.capabilityRequests.get(step.requestId) : undefined;
    decision = decideRequestPoll(step, request);
  }
  if (decision.kind === 'keep') return false;
  const scene = await pass.scene(store, step);
  if (!scene) return false;
  return (await applyDecision(ctx, scene, decision, { from: step.status, deferSettle: pass.settleLater })) !== undefined;
}
