// What a plan will cost, computed from its steps (a draft's own estimate is only a claim),
// and the budget it is held to. See docs/validation.md, "Estimate and budget".

import type { CapabilityDefinition } from '../capabilities/definition.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { Budget, PlanDraft, Resources } from '../core/plan.ts';
import { DEFAULT_MAX_INVOCATIONS, RESOURCE_KEYS } from '../core/plan.ts';
import { LIMITS } from './check-rules.ts';
import type { Findings } from './findings.ts';
import { isNonNegativeNumber, isObj, isPositiveInteger } from './findings.ts';
import type { Obj } from './findings.ts';

export function zeroResources(): Resources {
  return { invocations: 0, approvals: 0, wall_seconds: 0, network_ops: 0, money: 0, tokens: 0 };
}

/**
 * The resources a plan may use:
 * - invocations: every attempt of a capability step, plus one per precondition, verify and
 *   monitor check (a check that is repeated inside its window counts once);
 * - approvals: request_capability steps, steps marked require_approval, and (when the plan
 *   requires approval) every writing capability step;
 * - wall_seconds: steps in sequence: the typical wall time of each counted invocation, plus
 *   wait periods and the stable period of monitors; a verify window is a deadline, not a
 *   duration, so only its first observation counts;
 * - network_ops and money: the counted invocations' costs; tokens: zero (plans do not call models).
 * Unknown capabilities count as invocations with no cost; malformed numbers count as defaults.
 */
export function estimatePlan(draft: PlanDraft, registry: CapabilityRegistry): Resources {
  const total = zeroResources();
  for (const one of estimateSteps(draft, registry)) for (const key of RESOURCE_KEYS) total[key] += one[key];
  return total;
}

/** What each step of the draft would use, by position, by the rules of estimatePlan (which sums these). */
export function estimateSteps(draft: PlanDraft, registry: CapabilityRegistry): Resources[] {
  const input: unknown = draft;
  if (!isObj(input) || !Array.isArray(input.steps)) return [];
  const steps: unknown[] = input.steps;
  const byKey = new Map<unknown, Obj>();
  for (const step of steps) if (isObj(step) && !byKey.has(step.key)) byKey.set(step.key, step);
  const planNeedsApproval = input.require_approval === true;
  const lookup = (name: unknown) => (typeof name === 'string' ? registry.get(name) : undefined);
  const spec = (step: Obj): Obj => (isObj(step.spec) ? step.spec : {});

  return steps.map((raw) => {
    const total = zeroResources();
    if (!isObj(raw)) return total;
    const step = raw;
    const invoke = (definition: CapabilityDefinition | undefined, times: number) => {
      total.invocations += times;
      if (!definition) return;
      total.wall_seconds += definition.cost.wall_seconds * times;
      total.network_ops += definition.cost.network_ops * times;
      total.money += definition.cost.money * times;
    };
    switch (step.kind) {
      case 'capability': {
        const definition = lookup(step.capability);
        const attempts = isPositiveInteger(step.max_attempts, LIMITS.maxAttempts) ? step.max_attempts : 1;
        invoke(definition, attempts);
        if (isObj(step.precondition)) invoke(lookup(step.precondition.capability), 1);
        const writes = !definition || !definition.readOnly;
        if (step.require_approval === true || (planNeedsApproval && writes)) total.approvals += 1;
        break;
      }
      case 'verify': {
        let name = step.capability;
        if (typeof name !== 'string' || name === '') {
          const verified = byKey.get(spec(step).verifies);
          const check = verified && isObj(verified.expectation) ? verified.expectation.check : undefined;
          name = isObj(check) ? check.capability : undefined;
        }
        invoke(lookup(name), 1);
        if (step.require_approval === true) total.approvals += 1;
        break;
      }
      case 'monitor': {
        invoke(lookup(step.capability), 1);
        const stable = spec(step).stable_seconds;
        if (isPositiveInteger(stable, LIMITS.maxStableSeconds)) total.wall_seconds += stable;
        if (step.require_approval === true) total.approvals += 1;
        break;
      }
      case 'wait': {
        const seconds = spec(step).seconds;
        if (isPositiveInteger(seconds, LIMITS.maxWaitSeconds)) total.wall_seconds += seconds;
        if (step.require_approval === true) total.approvals += 1;
        break;
      }
      case 'request_capability':
        total.approvals += 1;
        break;
      default:
        if (step.require_approval === true) total.approvals += 1;
    }
    return total;
  });
}

/** The caps a budget sets; invocations are capped at the default when the budget is silent. */
export function budgetLimits(budget: Budget | undefined | null): Partial<Resources> {
  const limits: Partial<Resources> = {};
  const input: unknown = budget;
  const source = isObj(input) ? input : {};
  for (const dimension of RESOURCE_KEYS) {
    const value = source[dimension];
    if (isNonNegativeNumber(value)) limits[dimension] = value;
  }
  limits.invocations ??= DEFAULT_MAX_INVOCATIONS;
  return limits;
}

/** Budget well-formedness, the estimate against it, and the draft's own estimate against ours. */
export function budgetAt(findings: Findings, draft: Obj, estimate: Resources): void {
  const budget = draft.budget;
  if (budget !== undefined && budget !== null && !isObj(budget)) {
    findings.error('invalid_budget', 'budget', 'the budget must be an object of resource caps');
  }
  const caps: Obj = isObj(budget) ? budget : {};
  for (const key of Object.keys(caps)) {
    if (!(RESOURCE_KEYS as readonly string[]).includes(key)) {
      findings.error('invalid_budget', `budget.${key}`, `"${key}" is not a resource (use ${RESOURCE_KEYS.join(', ')})`);
    }
  }
  for (const dimension of RESOURCE_KEYS) {
    const stated = caps[dimension];
    let limit: number | undefined;
    if (stated === undefined || stated === null) {
      limit = dimension === 'invocations' ? DEFAULT_MAX_INVOCATIONS : undefined;
    } else if (isNonNegativeNumber(stated)) {
      limit = stated;
    } else {
      findings.error('invalid_budget', `budget.${dimension}`, `a budget cap must be a non-negative number, got ${String(stated)}`);
    }
    if (limit !== undefined && estimate[dimension] > limit) {
      const whose = stated === undefined || stated === null ? 'the default budget' : 'the budget';
      findings.error('budget_exceeded', `budget.${dimension}`, `the plan needs ${estimate[dimension]} ${dimension.replace('_', ' ')} but ${whose} allows ${limit}`);
    }
  }

  const claimed = draft.estimate;
  if (claimed === undefined || claimed === null) return;
  if (!isObj(claimed)) {
    findings.warn('invalid_estimate', 'estimate', 'the estimate must be an object; it was ignored');
    return;
  }
  for (const dimension of RESOURCE_KEYS) {
    const value = claimed[dimension];
    if (value === undefined || value === null) continue;
    if (!isNonNegativeNumber(value)) {
      findings.warn('invalid_estimate', `estimate.${dimension}`, 'an estimate must be a non-negative number; it was ignored');
    } else if (value < estimate[dimension]) {
      findings.warn('estimate_understated', `estimate.${dimension}`, `the draft estimates ${value} ${dimension.replace('_', ' ')}, but its steps need ${estimate[dimension]}`);
    }
  }
}
