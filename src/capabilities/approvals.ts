// Deciding approval requests, and performing what was approved. Deciding only records the
// decision: the approved action runs in an executor serving the mind's host (a mind bound to
// host A must never be acted on by the process that happened to approve, on host B or on an
// operator's laptop). That executor performs exactly the stored action and nothing else, only
// while it still matches the digest taken when the request was raised and no lock, deny rule or
// disabled mind has come since. Every move is conditional on the previous status, so a racing
// approve and withdraw cannot both win, and claiming an approved request for execution is
// conditional too, so two executors never perform it twice. Approval history is shown to
// operators but never consulted to decide.

import type { JsonObject } from '../core/plan.ts';
import { fourEyesRefusal, isOperatorName } from '../core/operator.ts';
import type { EventType } from '../core/vocabulary.ts';
import type { ApprovalDecision, ApprovalRecord, NewEvent } from '../store/index.ts';
import { callEvent, noRecords, writeRecords, type CallRecords } from './call-records.ts';
import type { Denied, Executed, Failed } from './invocation.ts';
import { act, allow, type Allowed } from './perform.ts';
import { loadPolicyInputs } from './policy-inputs.ts';
import { actionDigest } from './policy/action-digest.ts';
import { decidePolicy } from './policy/decide.ts';
import type { ServiceContext } from './service.ts';

export type ApprovalAnswer =
  | { status: 'awaiting_second_approver'; approvalId: string; approvals: number; required: number }
  /** Approved: the mind's executor performs the action (see performApprovedAction). */
  | { status: 'approved'; approvalId: string }
  | { status: 'denied' | 'withdrawn'; approvalId: string }
  | {
      status: 'refused';
      /** not_found, not_pending, expired, tampered, self_approval, already_decided, not_owner, conflict, invalid_operator */
      code: string;
      message: string;
    };

function refused(code: string, message: string): ApprovalAnswer {
  return { status: 'refused', code, message };
}

async function pendingApproval(ctx: ServiceContext, approvalId: string): Promise<ApprovalRecord | ApprovalAnswer> {
  const approval = await ctx.store.approvals.get(approvalId);
  if (!approval) return refused('not_found', `no approval request ${approvalId}`);
  if (approval.status !== 'pending') return refused('not_pending', `approval request ${approvalId} is ${approval.status}, not pending`);
  if (approval.expiresAt.getTime() <= ctx.clock.now().getTime()) {
    if (await ctx.store.approvals.transition(approval.id, 'pending', 'expired', { decidedAt: ctx.clock.now() })) {
      await event(ctx, 'approval_expired', approval, {});
    }
    return refused('expired', `approval request ${approvalId} expired at ${approval.expiresAt.toISOString()}`);
  }
  return approval;
}

function isRecord(value: ApprovalRecord | ApprovalAnswer): value is ApprovalRecord {
  return 'digest' in value;
}

function checkOperator(operator: string): ApprovalAnswer | null {
  return isOperatorName(operator) ? null : refused('invalid_operator', 'a decision needs the name of the operator making it');
}

/** The stored action still hashes to its digest and its target still follows from its parameters. */
function actionIntact(ctx: ServiceContext, approval: ApprovalRecord): boolean {
  const digest = actionDigest({ capability: approval.capability, target: approval.target, params: approval.params });
  if (digest !== approval.digest) return false;
  if (ctx.registry.checkParams(approval.capability, approval.params).length > 0) return false;
  return ctx.registry.targetOf(approval.capability, approval.params) === approval.target;
}

export async function decideApproval(ctx: ServiceContext, approvalId: string, operator: string, note?: string): Promise<ApprovalAnswer> {
  const bad = checkOperator(operator);
  if (bad) return bad;
  const found = await pendingApproval(ctx, approvalId);
  if (!isRecord(found)) return found;
  const approval = found;
  const now = ctx.clock.now();

  if (!actionIntact(ctx, approval)) {
    if (await ctx.store.approvals.transition(approval.id, 'pending', 'failed', { decidedAt: now })) {
      await event(ctx, 'approval_denied', approval, { operator, reason: 'tampered: the stored action no longer matches its digest' });
    }
    return refused('tampered', 'the stored action no longer matches the digest it was raised with; it cannot be approved');
  }
  // Four eyes with names compared normalised, whichever surface (or library caller) asks.
  const fourEyes = fourEyesRefusal(approval, operator);
  if (fourEyes) return refused(fourEyes.code, fourEyes.message);

  const decisions: ApprovalDecision[] = [...approval.decisions, { operator, decision: 'approve', at: now.toISOString(), ...(note ? { note } : {}) }];
  const approvals = decisions.filter((d) => d.decision === 'approve').length;
  if (approvals < approval.approversRequired) {
    const recorded = await ctx.store.approvals.recordDecision(approval.id, approval.decisions, decisions);
    if (!recorded) return refused('conflict', 'the request changed while deciding; look at it again');
    await event(ctx, 'approval_approved', approval, { operator, approvals, required: approval.approversRequired, final: false });
    return { status: 'awaiting_second_approver', approvalId: approval.id, approvals, required: approval.approversRequired };
  }

  const approved = await ctx.store.transaction(async (tx) => {
    const moved = await tx.approvals.transition(approval.id, 'pending', 'approved', { decisions, decidedAt: now });
    // approval_approved wakes the executors; the final one names the request, so an executor
    // serving the mind's host can perform it at once, without a pass over everything due.
    if (moved) await tx.events.append(approvalEvent('approval_approved', approval, { operator, approvals, required: approval.approversRequired, final: true }));
    return moved;
  });
  if (!approved) return refused('conflict', 'the request was decided, withdrawn or expired meanwhile');
  return { status: 'approved', approvalId: approval.id };
}

/**
 * What an approved request may do now (reads only): act, as exactly the stored action, or be
 * refused, because an approval does not outrank a lock or a deny rule added since the request
 * was raised, nor a mind that has been disabled. The refusal's records are the caller's to
 * write, with the request's move to failed.
 */
export async function authoriseApproved(ctx: ServiceContext, approval: ApprovalRecord): Promise<Allowed | { status: 'refused'; result: Denied; records: CallRecords }> {
  const request = {
    mindId: approval.mindId,
    capability: approval.capability,
    params: approval.params,
    origin: approval.origin,
    correlationId: approval.correlationId,
    evidence: approval.evidence,
  };
  const definition = ctx.registry.get(approval.capability);
  const mind = await ctx.store.minds.get(approval.mindId);
  const now = ctx.clock.now();
  const refuse = (code: string, reason: string) => {
    const records = noRecords();
    records.events.push(callEvent('tool_failed', request, { capability: approval.capability, target: approval.target, code, error: reason, approval_id: approval.id }));
    return { status: 'refused' as const, result: { status: 'denied' as const, code, reason }, records };
  };
  if (!definition) return refuse('unknown_capability', `no capability named "${approval.capability}" is registered in this daemon`);
  if (!mind || mind.status !== 'active') return refuse('mind_disabled', 'the mind is no longer active');
  if (!actionIntact(ctx, approval)) return refuse('tampered', 'the stored action no longer matches the digest it was approved with');
  const inputs = await loadPolicyInputs(ctx.store, approval.mindId, now, { grants: false });
  const verdict = decidePolicy({ definition, target: approval.target, params: approval.params, ...inputs, requireApproval: false, now });
  if (verdict.decision === 'deny') return refuse(verdict.source === 'locked' ? 'locked' : 'policy_denied', `${verdict.reason} (since the request was raised)`);
  const approvedBy = approval.decisions.filter((d) => d.decision === 'approve').map((d) => d.operator);
  return allow(
    request,
    {
      definition,
      target: approval.target,
      params: approval.params,
      verdict: { decision: 'allow', source: 'approval', approvers: approval.approversRequired, reason: `approval ${approval.id}` },
      approvalId: approval.id,
    },
    [callEvent('tool_authorised', request, { capability: definition.name, target: approval.target, source: 'approval', approval_id: approval.id, approved_by: approvedBy })],
  );
}

/** How an approved request ends once its action ran (or was refused): executed, or failed. */
export function approvalOutcome(result: Executed | Failed | Denied): { to: 'executed' | 'failed'; executionId: string | null } {
  return { to: result.status === 'executed' ? 'executed' : 'failed', executionId: result.status === 'denied' ? null : (result.executionId ?? null) };
}

/**
 * Performs an approved one-off action (one not raised by a plan step) in the calling executor.
 * The claim of the request and the execution's write-ahead row commit together before the act;
 * the outcome and the request's move to executed or failed commit together after. Undefined when
 * another executor claimed it first or it is no longer approved.
 */
export async function performApprovedAction(ctx: ServiceContext, approvalId: string): Promise<Executed | Failed | Denied | undefined> {
  const { store } = ctx;
  const approval = await store.approvals.get(approvalId);
  if (!approval || approval.status !== 'approved' || approval.executionId) return undefined;
  const authorised = await authoriseApproved(ctx, approval);
  if (authorised.status === 'refused') {
    const moved = await store.transaction(async (tx) => {
      const failed = await tx.approvals.transition(approval.id, 'approved', 'failed', { executionId: null });
      if (failed) await writeRecords(tx, authorised.records);
      return failed;
    });
    return moved ? authorised.result : undefined;
  }
  const claimed = await store.transaction(async (tx) => {
    const won = await tx.approvals.claimForExecution(approval.id, authorised.executionId);
    if (won) await writeRecords(tx, authorised.records);
    return won;
  });
  if (!claimed) return undefined;
  const acted = await act(ctx.implementations, authorised);
  const outcome = approvalOutcome(acted.result);
  await store.transaction(async (tx) => {
    await writeRecords(tx, acted.records);
    await tx.approvals.transition(approval.id, 'approved', outcome.to, { executionId: outcome.executionId });
  });
  return acted.result;
}

export async function denyApproval(ctx: ServiceContext, approvalId: string, operator: string, note?: string): Promise<ApprovalAnswer> {
  const bad = checkOperator(operator);
  if (bad) return bad;
  const found = await pendingApproval(ctx, approvalId);
  if (!isRecord(found)) return found;
  const now = ctx.clock.now();
  const decisions: ApprovalDecision[] = [...found.decisions, { operator, decision: 'deny', at: now.toISOString(), ...(note ? { note } : {}) }];
  const denied = await ctx.store.approvals.transition(found.id, 'pending', 'denied', { decisions, decidedAt: now });
  if (!denied) return refused('conflict', 'the request was decided, withdrawn or expired meanwhile');
  await event(ctx, 'approval_denied', found, { operator, note: note ?? '' });
  return { status: 'denied', approvalId: found.id };
}

/** Only the mind that raised a request may withdraw it, and only while it is pending. */
export async function withdrawApproval(ctx: ServiceContext, approvalId: string, mindId: string): Promise<ApprovalAnswer> {
  const approval = await ctx.store.approvals.get(approvalId);
  if (!approval) return refused('not_found', `no approval request ${approvalId}`);
  if (approval.mindId !== mindId) return refused('not_owner', 'only the mind that raised a request may withdraw it');
  const withdrawn = await ctx.store.approvals.transition(approval.id, 'pending', 'withdrawn', { decidedAt: ctx.clock.now() });
  if (!withdrawn) return refused('not_pending', `approval request ${approvalId} is no longer pending`);
  await event(ctx, 'approval_withdrawn', approval, {});
  return { status: 'withdrawn', approvalId: approval.id };
}

/** Moves every pending request past its expiry to `expired`; returns how many moved. */
export async function expireApprovals(ctx: ServiceContext): Promise<number> {
  const expired = await ctx.store.approvals.expireDue(ctx.clock.now());
  for (const approval of expired) await event(ctx, 'approval_expired', approval, {});
  return expired.length;
}

async function event(ctx: ServiceContext, type: EventType, approval: ApprovalRecord, data: JsonObject): Promise<void> {
  await ctx.store.events.append(approvalEvent(type, approval, data));
}

function approvalEvent(type: EventType, approval: ApprovalRecord, data: JsonObject): NewEvent {
  return {
    type,
    mindId: approval.mindId,
    intentionId: approval.correlationId || null,
    data: { approval_id: approval.id, capability: approval.capability, target: approval.target, origin: approval.origin, ...data },
  };
}
