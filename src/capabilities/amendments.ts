// Amending an action before approving it. An operator looking at a pending request may change its
// parameters (a narrower unit, a shorter window) instead of denying it and waiting for it to be
// raised again. The amended action meets everything a fresh request would: the capability's
// schema, the target its parameters imply, and the mind's policy as it stands now (a deny or a
// lock refuses the amendment and changes nothing). It is then bound by a new digest, and the
// amendment is recorded beside the action as first raised, which stays readable. Whoever amends
// becomes one of the action's authors, so they cannot approve it: the amended action waits for
// the approvers its policy asks for, none of them an author, and approvals given to the earlier
// action no longer count. A plan step's own action is rewritten in the same commit, so what runs
// once approved is the step's action. Operators amend through the API, the CLI and the console;
// MCP offers no way to (a model proposes, it never decides).

import { approvalDigest, canonicalJson } from './policy/action-digest.ts';
import { decidePolicy } from './policy/decide.ts';
import { loadPolicyInputs } from './policy-inputs.ts';
import { approvalEvent, checkOperator, integrityRefusal, isRecord, pendingApproval, refuseBroken, refused, type ApprovalAnswer } from './approvals.ts';
import type { ServiceContext } from './service.ts';
import { textProblem } from '../core/input-limits.ts';
import type { JsonObject } from '../core/plan.ts';
import type { ApprovalAmendment, ApprovalRecord, StepRecord } from '../store/index.ts';

/** What an operator changes: the whole parameter object, and optionally the target it must imply. */
export interface AmendmentInput {
  /** Untrusted until checked against the capability's schema; replaces the parameters whole. */
  params: unknown;
  /** When given, must be the target the new parameters imply (targets follow from parameters). */
  target?: string;
  reason?: string;
  /**
   * The digest of the request as the amending operator was shown it (the console always sends it;
   * a script may). When given, a request amended (or otherwise re-signed) since is refused
   * (`changed`): the operator's edit started from an action that no longer stands, and saving it
   * would silently undo the other amendment. When absent, the amendment applies to the request as
   * it stands at this read.
   */
  seenDigest?: string;
}

/** Characters a reason may have, as a decision's note. */
export const MAX_AMENDMENT_REASON = 2000;

const STEP_ORIGIN = /^plan_step:([^:]+)$/;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why a plan step's action may not take the amended target (pure): a check of the step's outcome
 * (its expectation, which a verify step observes) that acts on the old target would then observe
 * something the step no longer touches, and confirm or refute the wrong thing. Null when none does.
 */
export function checkOnOldTarget(step: Pick<StepRecord, 'key' | 'expectation'>, oldTarget: string, newTarget: string, targetOf: (capability: string, params: unknown) => string): string | null {
  if (oldTarget === newTarget || !step.expectation) return null;
  const { check } = step.expectation;
  if (targetOf(check.capability, check.params ?? {}) !== oldTarget) return null;
  return `step ${step.key} expects its outcome to be observed by ${check.capability} on ${oldTarget}; on ${newTarget} that check would observe something the step no longer touches. Deny the request and replan instead`;
}

export async function amendApproval(ctx: ServiceContext, approvalId: string, input: AmendmentInput, operator: string): Promise<ApprovalAnswer> {
  const bad = checkOperator(operator);
  if (bad) return bad;
  if (!isJsonObject(input.params)) return refused('invalid_params', 'the amended parameters must be a JSON object', [{ code: 'invalid_params', path: 'params', message: 'must be a JSON object' }]);
  const reason = input.reason ?? '';
  const reasonProblem = typeof reason === 'string' ? textProblem(reason, MAX_AMENDMENT_REASON) : { code: 'invalid_reason' as const, message: 'must be text' };
  if (reasonProblem) return refused('invalid_reason', `the reason ${reasonProblem.message}`, [{ code: reasonProblem.code, path: 'reason', message: reasonProblem.message }]);

  const found = await pendingApproval(ctx, approvalId);
  if (!isRecord(found)) return found;
  const approval = found;
  if (input.seenDigest !== undefined && input.seenDigest !== approval.digest) {
    return refused('changed', `approval request ${approval.id} was amended after you looked at it; look at the action again before amending it`);
  }
  // The request as it stands must verify before anything is built on it.
  const broken = integrityRefusal(ctx, approval);
  if (broken) return refuseBroken(ctx, approval, broken, operator);

  const { registry } = ctx;
  const definition = registry.get(approval.capability);
  if (!definition) return refused('unknown_capability', `no capability named "${approval.capability}" is registered in this daemon`);
  const issues = registry.checkParams(definition.name, input.params);
  if (issues.length > 0) {
    return refused(
      'invalid_params',
      `the amended parameters do not fit ${definition.name}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues.map((i) => ({ ...i, path: i.path && i.path !== 'params' ? `params.${i.path.replace(/^params\.?/, '')}` : 'params' })),
    );
  }
  const params = input.params;
  const target = registry.targetOf(definition.name, params);
  if (input.target !== undefined && input.target !== target) {
    return refused('target_mismatch', `the target is "${input.target}" but the parameters of ${definition.name} act on "${target}"`, [
      { code: 'target_mismatch', path: 'target', message: `the parameters act on "${target}"` },
    ]);
  }
  if (target === approval.target && canonicalJson(params) === canonicalJson(approval.params)) {
    return refused('unchanged', `the amended action is the action already awaiting approval (${definition.name} on ${target})`);
  }

  const mind = await ctx.store.minds.get(approval.mindId);
  if (!mind || mind.status !== 'active') return refused('mind_disabled', 'the mind is no longer active');
  // Policy as a fresh request for the amended action would meet it, asking approval: a deny or a
  // lock refuses; otherwise the approvers its rule (or commitment) asks for. Grants are not
  // consulted: the operator is deciding this action here, not a scope given beforehand.
  const now = ctx.clock.now();
  const inputs = await loadPolicyInputs(ctx.store, approval.mindId, now, { grants: false });
  const verdict = decidePolicy({ definition, target, params, ...inputs, requireApproval: true, now });
  if (verdict.decision === 'deny') {
    return refused(verdict.source === 'locked' ? 'locked' : 'policy_denied', `policy refuses the amended action (${definition.name} on ${target}): ${verdict.reason}`);
  }

  const stepId = STEP_ORIGIN.exec(approval.origin)?.[1];
  let step: StepRecord | undefined;
  if (stepId) {
    step = await ctx.store.steps.get(stepId);
    if (!step || step.status !== 'awaiting_approval' || step.approvalId !== approval.id) {
      return refused('step_moved', `the plan step that raised approval request ${approval.id} no longer waits for it`);
    }
    const wrongCheck = checkOnOldTarget(step, approval.target, target, (c, p) => registry.targetOf(c, p));
    if (wrongCheck) return refused('check_on_old_target', wrongCheck);
  }

  const amendment: ApprovalAmendment = {
    operator: operator.trim(),
    at: now.toISOString(),
    reason,
    from: { target: approval.target, params: approval.params },
    to: { target, params },
    approvals_cleared: approval.decisions.filter((d) => d.decision === 'approve').map((d) => d.operator),
  };
  const amendments = [...approval.amendments, amendment];
  const approversRequired = Math.max(1, verdict.approvers);
  const amended: ApprovalRecord = { ...approval, target, params, amendments, approversRequired, decisions: [] };
  const digest = approvalDigest(ctx.approvalKey, amended);

  const outcome = await ctx.store
    .transaction(async (tx) => {
      // Set only while the request still carries the digest read here (which is the one the
      // operator saw, when they named it): an amendment committed meanwhile wins, this one is refused.
      const moved = await tx.approvals.amend(approval.id, { target, params, amendments, approversRequired, digest, fromDigest: approval.digest });
      if (!moved) return 'conflict' as const;
      if (step && !(await tx.steps.amendAction(step.id, approval.id, { target, params }))) throw new StepMoved();
      const event = approvalEvent(
        'approval_amended',
        { ...approval, target },
        {
          operator: amendment.operator,
          reason,
          from: amendment.from,
          to: amendment.to,
          approvers_required: approversRequired,
          approvals_cleared: amendment.approvals_cleared,
          policy: verdict.reason,
        },
      );
      await tx.events.append(step ? { ...event, planId: step.planId, stepId: step.id, data: { ...event.data, key: step.key } } : event);
      return 'amended' as const;
    })
    .catch((error: unknown) => {
      if (error instanceof StepMoved) return 'step_moved' as const;
      throw error;
    });
  if (outcome === 'conflict') return refused('conflict', 'the request was decided, amended or changed meanwhile; look at it again');
  if (outcome === 'step_moved') return refused('step_moved', `the plan step that raised approval request ${approval.id} no longer waits for it`);
  return { status: 'amended', approvalId: approval.id, approversRequired, amendedBy: amendment.operator };
}

/** Rolls the amendment back when the step moved on between reading it and rewriting it. */
class StepMoved extends Error {}
