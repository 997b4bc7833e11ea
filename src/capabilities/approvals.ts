// Deciding approval requests, and performing what was approved. Deciding only records the
// decision: the approved action runs in an executor serving the mind's host (a mind bound to
// host A must never be acted on by the process that happened to approve, on host B or on an
// operator's laptop). That executor performs exactly the stored action and nothing else, only
// while it still matches the digest taken when the request was raised (keyed with the daemon
// secret, so someone who can write the database cannot alter the request and forge it: see
// policy/action-digest.ts) and no lock, deny rule or disabled mind has come since. Every move is conditional on the previous status, so a racing
// approve and withdraw cannot both win, and claiming an approved request for execution is
// conditional too, so two executors never perform it twice. Approval history is shown to
// operators but never consulted to decide.

import type { JsonObject, ValidationIssue } from '../core/plan.ts';
import { fourEyesRefusal, isOperatorName } from '../core/operator.ts';
import type { EventType } from '../core/vocabulary.ts';
import type { ApprovalDecision, ApprovalRecord, MindRecord, NewEvent } from '../store/index.ts';
import { callEvent, moveWithEvent, noRecords, writeRecords, type CallRecords } from './call-records.ts';
import type { Denied, Executed, Failed } from './invocation.ts';
import { act, allow, type Allowed } from './perform.ts';
import { loadPolicyInputs, type PolicyInputs } from './policy-inputs.ts';
import { approvalDigest, checkApprovalDigest, digestKeyId, type DigestCheck } from './policy/action-digest.ts';
import { decidePolicy } from './policy/decide.ts';
import type { ServiceContext } from './service.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export type ApprovalAnswer =
  | { status: 'awaiting_second_approver'; approvalId: string; approvals: number; required: number }
  /** Approved: the mind's executor performs the action (see performApprovedAction). */
  | { status: 'approved'; approvalId: string }
  | { status: 'denied' | 'withdrawn'; approvalId: string }
  | { status: 'author_named'; approvalId: string; author: string }
  /** The action was amended (amendments.ts): it waits for approvers other than its authors. */
  | { status: 'amended'; approvalId: string; approversRequired: number; amendedBy: string }
  | {
      status: 'refused';
      /**
       * not_found, not_pending, expired, tampered, digest_key_mismatch, unkeyed_digest, no_approval_key, no_author, self_approval, already_decided, not_owner, conflict, invalid_operator;
       * amending: invalid_params, invalid_reason, target_mismatch, unchanged, unknown_capability, mind_disabled, policy_denied, locked, step_moved, check_on_old_target
       */
      code: ErrorCode;
      message: string;
      /** Where the input was wrong (amended parameters that fail the capability's schema). */
      issues?: ValidationIssue[];
    };

export function refused(code: ErrorCode, message: string, issues?: ValidationIssue[]): ApprovalAnswer {
  return { status: 'refused', code, message, ...(issues ? { issues } : {}) };
}

export async function pendingApproval(ctx: ServiceContext, approvalId: string): Promise<ApprovalRecord | ApprovalAnswer> {
  const approval = await ctx.store.approvals.get(approvalId);
  if (!approval) return refused('not_found', `no approval request ${approvalId}`);
  if (approval.status !== 'pending') return refused('not_pending', `approval request ${approvalId} is ${approval.status}, not pending`);
  if (approval.expiresAt.getTime() <= ctx.clock.now().getTime()) {
    await moveWithEvent(ctx.store, (tx) => tx.approvals.transition(approval.id, 'pending', 'expired', { decidedAt: ctx.clock.now() }), approvalEvent('approval_expired', approval, {}));
    return refused('expired', `approval request ${approvalId} expired at ${approval.expiresAt.toISOString()}`);
  }
  return approval;
}

export function isRecord(value: ApprovalRecord | ApprovalAnswer): value is ApprovalRecord {
  return 'digest' in value;
}

export function checkOperator(operator: string): ApprovalAnswer | null {
  return isOperatorName(operator) ? null : refused('invalid_operator', 'a decision needs the name of the operator making it');
}

/** A refusal to act on a stored request that does not verify, and the tamper event it raises. */
export interface IntegrityRefusal {
  code: 'tampered' | 'digest_key_mismatch' | 'unkeyed_digest' | 'no_approval_key';
  message: string;
  /** Nothing can ever verify it: the request is closed (failed), not left for another daemon. */
  final: boolean;
  event: NewEvent;
}

/**
 * Null when the stored request matches its digest and its target still follows from its
 * parameters; else why it may not be acted on. Checked at each decision and again right before
 * the action runs, so a row altered between approval and execution is caught too.
 */
export function integrityRefusal(ctx: ServiceContext, approval: ApprovalRecord): IntegrityRefusal | null {
  const key = ctx.approvalKey;
  let check: DigestCheck = checkApprovalDigest(key, approval, approval.digest);
  if (check === 'intact') {
    const paramsHold = ctx.registry.checkParams(approval.capability, approval.params).length === 0;
    if (paramsHold && ctx.registry.targetOf(approval.capability, approval.params) === approval.target) return null;
    check = 'altered';
  }
  const signedWith = digestKeyId(approval.digest);
  const refusal = (code: IntegrityRefusal['code'], message: string, final: boolean): IntegrityRefusal => ({
    code,
    message,
    final,
    event: approvalEvent('approval_tampered', approval, { check, code, signed_with: signedWith ?? '', key_id: key?.id ?? '', message }),
  });
  switch (check) {
    case 'other_key':
      return refusal(
        'digest_key_mismatch',
        `approval request ${approval.id} was signed with another daemon secret (key id ${signedWith}) than this process holds (key id ${key?.id}); every daemon and CLI of one database must share one secret file (PRAXIS_SECRET_FILE, docs/daemon.md)`,
        false,
      );
    case 'no_key':
      return refusal('no_approval_key', `approval request ${approval.id} is signed with a daemon secret (key id ${signedWith}) and this capability service was given no key to check it with`, false);
    case 'unkeyed':
      return refusal(
        'unkeyed_digest',
        `approval request ${approval.id} carries an unkeyed digest (raised before digests were keyed, or rewritten by someone without the daemon secret), so nothing shows it was not altered; it cannot be approved or performed: raise the action again`,
        true,
      );
    default:
      return refusal('tampered', `the stored request ${approval.id} no longer matches the digest it was raised with; it cannot be approved or performed`, true);
  }
}

/**
 * Approves a pending request. `seenDigest`, when the approver's surface sends it, is the digest of
 * the request as the approver was shown it: a request amended since then is refused (`changed`),
 * since the approver never saw the action that would run.
 */
export async function decideApproval(ctx: ServiceContext, approvalId: string, operator: string, note?: string, seenDigest?: string): Promise<ApprovalAnswer> {
  const bad = checkOperator(operator);
  if (bad) return bad;
  const found = await pendingApproval(ctx, approvalId);
  if (!isRecord(found)) return found;
  const approval = found;
  if (seenDigest !== undefined && seenDigest !== approval.digest) {
    return refused('changed', `approval request ${approval.id} was amended after you looked at it; look at the action again before approving`);
  }
  const now = ctx.clock.now();

  const broken = integrityRefusal(ctx, approval);
  if (broken) return refuseBroken(ctx, approval, broken, operator);
  // Four eyes with names compared normalised, whichever surface (or library caller) asks.
  const fourEyes = fourEyesRefusal(approval, operator);
  if (fourEyes) return refused(fourEyes.code, fourEyes.message);

  const decisions: ApprovalDecision[] = [...approval.decisions, { operator, decision: 'approve', at: now.toISOString(), ...(note ? { note } : {}) }];
  const approvals = decisions.filter((d) => d.decision === 'approve').length;
  if (approvals < approval.approversRequired) {
    // Guarded by the digest read: an amendment committed meanwhile changed the action, and this
    // approval was of the earlier one.
    const recorded = await moveWithEvent(
      ctx.store,
      (tx) => tx.approvals.recordDecision(approval.id, approval.decisions, decisions, { digest: approval.digest }),
      approvalEvent('approval_approved', approval, { operator, approvals, required: approval.approversRequired, final: false }),
    );
    if (!recorded) return refused('conflict', 'the request changed while deciding; look at it again');
    return { status: 'awaiting_second_approver', approvalId: approval.id, approvals, required: approval.approversRequired };
  }

  const approved = await ctx.store.transaction(async (tx) => {
    const moved = await tx.approvals.transition(approval.id, 'pending', 'approved', { decisions, decidedAt: now }, { digest: approval.digest });
    // approval_approved wakes the executors; the final one names the request, so an executor
    // serving the mind's host can perform it at once, without a pass over everything due.
    if (moved) await tx.events.append(approvalEvent('approval_approved', approval, { operator, approvals, required: approval.approversRequired, final: true }));
    return moved;
  });
  if (!approved) return refused('conflict', 'the request was decided, withdrawn, expired or amended meanwhile; look at it again');
  return { status: 'approved', approvalId: approval.id };
}

/**
 * Names the author of a pending request raised without one (an older version's call, or a
 * library caller that named nobody), so four eyes can hold and it can be approved. The operator
 * naming it may not approve it afterwards, whoever they named: naming yourself the author means
 * someone else must approve, and naming someone else does not make you a second pair of eyes.
 * The request must still verify; its digest is re-signed over the named author.
 */
export async function nameApprovalAuthor(ctx: ServiceContext, approvalId: string, author: string, operator: string, note?: string): Promise<ApprovalAnswer> {
  const bad = checkOperator(operator);
  if (bad) return bad;
  if (!isOperatorName(author)) return refused('invalid_author', 'the author needs a name (letters, no control characters)');
  const found = await pendingApproval(ctx, approvalId);
  if (!isRecord(found)) return found;
  if (found.authoredBy.trim() !== '') return refused('author_recorded', `approval request ${approvalId} already records its author (${found.authoredBy}); an author is never replaced`);
  const broken = integrityRefusal(ctx, found);
  if (broken) return refuseBroken(ctx, found, broken, operator);
  const named = { ...found, authoredBy: author.trim(), authorNamedBy: operator.trim() };
  const moved = await ctx.store.transaction(async (tx) => {
    const updated = await tx.approvals.nameAuthor(found.id, { authoredBy: named.authoredBy, namedBy: named.authorNamedBy, digest: approvalDigest(ctx.approvalKey, named), fromDigest: found.digest });
    if (updated) await tx.events.append(approvalEvent('approval_author_named', found, { operator: named.authorNamedBy, author: named.authoredBy, note: note ?? '' }));
    return updated;
  });
  if (!moved) return refused('conflict', 'the request was decided, named or changed meanwhile; look at it again');
  return { status: 'author_named', approvalId: found.id, author: named.authoredBy };
}

/**
 * What a caller performing an approval has read of its mind already, read together with the
 * approval's other reads (see Executor.performApproval): authorising then reads nothing again.
 */
export interface ReadForApproval {
  mind?: MindRecord | undefined;
  /** The mind's policy inputs without grants (an approval does not spend one). */
  inputs?: PolicyInputs;
}

/**
 * What an approved request may do now (reads only): act, as exactly the stored action, or be
 * refused, because an approval does not outrank a lock or a deny rule added since the request
 * was raised, nor a mind that has been disabled. The refusal's records are the caller's to
 * write, with the request's move to failed.
 */
export async function authoriseApproved(ctx: ServiceContext, approval: ApprovalRecord, read: ReadForApproval = {}): Promise<Allowed | { status: 'refused'; result: Denied; records: CallRecords }> {
  const request = {
    mindId: approval.mindId,
    capability: approval.capability,
    params: approval.params,
    origin: approval.origin,
    correlationId: approval.correlationId,
    evidence: approval.evidence,
  };
  const definition = ctx.registry.get(approval.capability);
  const mind = 'mind' in read ? read.mind : await ctx.store.minds.get(approval.mindId);
  const now = ctx.clock.now();
  const refuse = (code: ErrorCode, reason: string) => {
    const records = noRecords();
    records.events.push(callEvent('tool_failed', request, { capability: approval.capability, target: approval.target, code, error: reason, approval_id: approval.id }));
    return { status: 'refused' as const, result: { status: 'denied' as const, code, reason }, records };
  };
  if (!definition) return refuse('unknown_capability', `no capability named "${approval.capability}" is registered in this daemon`);
  if (!mind || mind.status !== 'active') return refuse('mind_disabled', 'the mind is no longer active');
  const broken = integrityRefusal(ctx, approval);
  if (broken) {
    const refusal = refuse(broken.code, broken.message);
    refusal.records.events.push(broken.event);
    return refusal;
  }
  const inputs = read.inputs ?? (await loadPolicyInputs(ctx.store, approval.mindId, now, { grants: false }));
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
 * another executor claimed it first or it is no longer approved. `claimant` names the executor
 * performing it on the claim, so that its claim is taken over as soon as it is known to be gone
 * (stranded-approvals.ts); empty for a caller that is no executor.
 */
export async function performApprovedAction(ctx: ServiceContext, approvalId: string, claimant: string): Promise<Executed | Failed | Denied | undefined> {
  const { store } = ctx;
  const approval = await store.approvals.get(approvalId);
  if (!approval || approval.status !== 'approved' || approval.executionId) return undefined;
  const authorised = await authoriseApproved(ctx, approval);
  if (authorised.status === 'refused') {
    const moved = await store.transaction(async (tx) => {
      // Only while no executor has claimed it: one that did is acting on it now.
      const failed = await tx.approvals.transition(approval.id, 'approved', 'failed', { executionId: null }, { executionId: null });
      if (failed) await writeRecords(tx, authorised.records);
      return failed;
    });
    return moved ? authorised.result : undefined;
  }
  const claimed = await store.transaction(async (tx) => {
    const won = await tx.approvals.claimForExecution(approval.id, authorised.executionId, claimant);
    if (won) await writeRecords(tx, authorised.records);
    return won;
  });
  if (!claimed) return undefined;
  const acted = await act(ctx.implementations, authorised);
  const outcome = approvalOutcome(acted.result);
  await store.transaction(async (tx) => {
    await writeRecords(tx, acted.records);
    await tx.approvals.transition(approval.id, 'approved', outcome.to, { executionId: outcome.executionId }, { executionId: authorised.executionId });
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
  const denied = await moveWithEvent(
    ctx.store,
    (tx) => tx.approvals.transition(found.id, 'pending', 'denied', { decisions, decidedAt: now }),
    approvalEvent('approval_denied', found, { operator, note: note ?? '' }),
  );
  if (!denied) return refused('conflict', 'the request was decided, withdrawn or expired meanwhile');
  return { status: 'denied', approvalId: found.id };
}

/** An operator's own call (`praxis invoke`, the API's one-off calls): not the mind's to withdraw. */
export function raisedByOperator(approval: Pick<ApprovalRecord, 'origin'>): boolean {
  return approval.origin.startsWith('operator:');
}

/**
 * Only the mind that raised a request may withdraw it, and only while it is pending. A call an
 * operator made for the mind was raised by the operator: an agent's `withdraw_requests` took it
 * back before a second operator could decide it.
 */
export async function withdrawApproval(ctx: ServiceContext, approvalId: string, mindId: string): Promise<ApprovalAnswer> {
  const approval = await ctx.store.approvals.get(approvalId);
  if (!approval) return refused('not_found', `no approval request ${approvalId}`);
  if (approval.mindId !== mindId) return refused('not_owner', 'only the mind that raised a request may withdraw it');
  if (raisedByOperator(approval)) return refused('not_owner', `operator ${approval.origin.slice('operator:'.length)} raised this request; an operator denies it, the mind cannot withdraw it`);
  const withdrawn = await moveWithEvent(
    ctx.store,
    (tx) => tx.approvals.transition(approval.id, 'pending', 'withdrawn', { decidedAt: ctx.clock.now() }),
    approvalEvent('approval_withdrawn', approval, {}),
  );
  if (!withdrawn) return refused('not_pending', `approval request ${approvalId} is no longer pending`);
  return { status: 'withdrawn', approvalId: approval.id };
}

/**
 * Open requests (pending or approved, not yet performed) this service cannot verify because of
 * their digest's key: signed with another secret, or unkeyed while this service has a key. What a
 * daemon reports at start, so a secret missing from one host is noticed before anyone approves.
 */
export async function unverifiableApprovals(ctx: ServiceContext): Promise<{ otherKey: number; unkeyed: number; keyIds: string[] }> {
  const key = ctx.approvalKey;
  const open = await ctx.store.approvals.list({ status: ['pending', 'approved'], limit: 1000 });
  const keyIds = new Set<string>();
  let otherKey = 0;
  let unkeyed = 0;
  for (const approval of open) {
    if (approval.executionId) continue;
    const signedWith = digestKeyId(approval.digest);
    if (signedWith === null) {
      if (key) unkeyed += 1;
    } else if (signedWith !== key?.id) {
      otherKey += 1;
      keyIds.add(signedWith);
    }
  }
  return { otherKey, unkeyed, keyIds: [...keyIds] };
}

/** Moves every pending request past its expiry to `expired`; returns how many moved. */
export async function expireApprovals(ctx: ServiceContext): Promise<number> {
  // Swept on every executor pass: the write transaction only when something is due. (An idle
  // one took the write lock each pass, and on SQLite held it across awaits, so another connection
  // of the same process waited on it and failed busy.)
  if (!(await ctx.store.approvals.anyDue(ctx.clock.now()))) return 0;
  const expired = await ctx.store.transaction(async (tx) => {
    const moved = await tx.approvals.expireDue(ctx.clock.now());
    for (const approval of moved) await tx.events.append(approvalEvent('approval_expired', approval, {}));
    return moved;
  });
  return expired.length;
}

/**
 * Records a request that does not verify (the tamper event), closing it when nothing could ever
 * verify it; one held under another secret stays pending for a daemon that holds the right one.
 */
export async function refuseBroken(ctx: ServiceContext, approval: ApprovalRecord, broken: IntegrityRefusal, operator: string): Promise<ApprovalAnswer> {
  await ctx.store.transaction(async (tx) => {
    if (broken.final && !(await tx.approvals.transition(approval.id, 'pending', 'failed', { decidedAt: ctx.clock.now() }))) return;
    await tx.events.append({ ...broken.event, data: { ...broken.event.data, operator } });
  });
  return refused(broken.code, broken.message);
}

export function approvalEvent(type: EventType, approval: ApprovalRecord, data: JsonObject): NewEvent {
  return {
    type,
    mindId: approval.mindId,
    intentionId: approval.correlationId || null,
    data: { approval_id: approval.id, capability: approval.capability, target: approval.target, origin: approval.origin, ...data },
  };
}
