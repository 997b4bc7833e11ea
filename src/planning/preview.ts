// What a plan would meet if it ran now, step by step (pure, over a policy answer the caller
// reads): the policy decision each action or check would get, the approvals and grants it would
// need, and what it would use. It predicts; it never asks, records or spends anything. See
// docs/validation.md, "Previewing a plan".

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { JsonObject, PlanDraft, Resources } from '../core/plan.ts';
import type { PolicyDecision } from '../core/vocabulary.ts';
import { isObj } from './findings.ts';
import { estimateSteps, zeroResources } from './resources.ts';

/** The policy decision a call would meet now, as the capability service would make it. */
export interface PreviewVerdict {
  decision: PolicyDecision;
  /** What produced it: a rule, a default, a commitment, a grant, the caller's requirement, a lock. */
  source: string;
  reason: string;
  /** Distinct operators an approval needs when the decision is `ask`. */
  approvers: number;
  /** The live grant that would allow it, if one does. */
  grant: { id: string; operations_left: number } | null;
}

export interface PreviewPolicy {
  decide(capability: string, target: string, params: JsonObject, requireApproval: boolean): PreviewVerdict;
}

/**
 * - `nothing`: it would go ahead (by policy, or inside a live grant);
 * - `approval` / `two_approvals`: an operator (two for four eyes) must approve the exact action;
 * - `grant`: a capability request an operator must grant;
 * - `not_observable`: a check that policy would not simply allow (a check never prompts);
 * - `refused`: denied, locked, or not a valid call.
 */
export type Need = 'nothing' | 'approval' | 'two_approvals' | 'grant' | 'not_observable' | 'refused';

export interface CheckPreview {
  role: 'precondition' | 'verify' | 'monitor';
  capability: string;
  target: string;
  decision: PolicyDecision | 'invalid';
  reason: string;
  observable: boolean;
}

export interface StepPreview {
  key: string;
  kind: string;
  title: string;
  capability: string;
  target: string;
  /** For the step's action; `none` for steps that invoke nothing themselves. */
  decision: PolicyDecision | 'invalid' | 'none';
  source: string;
  reason: string;
  needs: Need;
  /** Operator decisions the step would wait for now: approvers of an approval, or one for a request. */
  approvals: number;
  /** The live grant its action would spend. */
  grant: { id: string; operations_left: number } | null;
  /** The read-only checks it would make (its precondition, or the observation of a verify or monitor step). */
  checks: CheckPreview[];
  /** What the step would use, by the estimate's rules. */
  uses: Resources;
}

export interface Attention {
  /** Approval requests the plan would raise, and the operator decisions they need in all. */
  approval_requests: number;
  operator_decisions: number;
  /** Capability requests it would raise. */
  capability_requests: number;
  /** Grant operations it would spend. */
  grant_operations: number;
  /** Steps that would be refused or could not observe: the plan would stop there. */
  blocked_steps: string[];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function params(value: unknown): JsonObject {
  return isObj(value) ? (value as JsonObject) : {};
}

/** The step of the plan whose key is `key`. */
function stepByKey(draft: PlanDraft, key: unknown) {
  return draft.steps.find((s) => isObj(s) && s.key === key);
}

export function previewSteps(draft: PlanDraft, registry: CapabilityRegistry, policy: PreviewPolicy): { steps: StepPreview[]; attention: Attention } {
  const uses = estimateSteps(draft, registry);
  const attention: Attention = { approval_requests: 0, operator_decisions: 0, capability_requests: 0, grant_operations: 0, blocked_steps: [] };

  /** A call's decision, or why it is not a call at all. */
  const call = (capability: string, input: unknown, requireApproval: boolean): { target: string; verdict: PreviewVerdict | null; reason: string } => {
    const definition = registry.get(capability);
    if (!definition) return { target: '', verdict: null, reason: capability ? `${capability} is not a registered capability` : 'no capability named' };
    const issues = registry.checkParams(definition.name, input ?? {});
    if (issues.length > 0) return { target: '', verdict: null, reason: issues.map((i) => `${i.path}: ${i.message}`).join('; ') };
    const target = registry.targetOf(definition.name, input ?? {});
    return { target, verdict: policy.decide(definition.name, target, params(input), requireApproval), reason: '' };
  };
  const check = (role: CheckPreview['role'], capability: string, input: unknown): CheckPreview => {
    const { target, verdict, reason } = call(capability, input, false);
    if (!verdict) return { role, capability, target, decision: 'invalid', reason, observable: false };
    return { role, capability, target, decision: verdict.decision, reason: verdict.reason, observable: verdict.decision === 'allow' };
  };

  const steps = draft.steps.map((step, index): StepPreview => {
    const base: StepPreview = {
      key: text(step.key),
      kind: text(step.kind),
      title: text(step.title),
      capability: text(step.capability),
      target: text(step.target),
      decision: 'none',
      source: '',
      reason: '',
      needs: 'nothing',
      approvals: 0,
      grant: null,
      checks: [],
      uses: uses[index] ?? zeroResources(),
    };
    const spec = isObj(step.spec) ? step.spec : {};
    switch (step.kind) {
      case 'capability': {
        const definition = registry.get(base.capability);
        const writes = !definition || !definition.readOnly;
        const requireApproval = step.require_approval === true || (draft.require_approval === true && writes);
        const { target, verdict, reason } = call(base.capability, step.params, requireApproval);
        if (isObj(step.precondition)) base.checks.push(check('precondition', text(step.precondition.capability), step.precondition.params));
        if (!verdict) return { ...base, decision: 'invalid', reason, needs: 'refused' };
        const needs: Need = verdict.decision === 'deny' ? 'refused' : verdict.decision === 'allow' ? 'nothing' : verdict.approvers > 1 ? 'two_approvals' : 'approval';
        return {
          ...base,
          target,
          decision: verdict.decision,
          source: verdict.source,
          reason: verdict.reason,
          needs,
          approvals: verdict.decision === 'ask' ? verdict.approvers : 0,
          grant: verdict.decision === 'allow' ? verdict.grant : null,
        };
      }
      case 'verify': {
        const verified = stepByKey(draft, spec.verifies);
        const expectedCheck = verified && isObj(verified.expectation) ? (verified.expectation as unknown as { check?: unknown }).check : undefined;
        const expected: Record<string, unknown> = isObj(expectedCheck) ? expectedCheck : {};
        const own = base.capability !== '';
        const observed = check('verify', own ? base.capability : text(expected.capability), own ? step.params : expected.params);
        return { ...base, capability: observed.capability, target: observed.target, checks: [observed], needs: observed.observable ? 'nothing' : 'not_observable' };
      }
      case 'monitor': {
        const observed = check('monitor', base.capability, step.params);
        return { ...base, target: observed.target, checks: [observed], needs: observed.observable ? 'nothing' : 'not_observable' };
      }
      case 'request_capability': {
        const request = isObj(spec.request) ? spec.request : {};
        return {
          ...base,
          capability: text(request.capability),
          target: text(request.target_pattern),
          reason: 'raises a capability request for an operator to grant',
          needs: 'grant',
          approvals: 1,
        };
      }
      default:
        return base;
    }
  });

  for (const step of steps) {
    if (step.needs === 'approval' || step.needs === 'two_approvals') {
      attention.approval_requests += 1;
      attention.operator_decisions += step.approvals;
    }
    if (step.needs === 'grant') {
      attention.capability_requests += 1;
      attention.operator_decisions += 1;
    }
    if (step.grant) attention.grant_operations += 1;
    const unobservable = step.checks.some((c) => c.role === 'precondition' && !c.observable);
    if (step.needs === 'refused' || step.needs === 'not_observable' || unobservable) attention.blocked_steps.push(step.key);
  }
  return { steps, attention };
}
