// Scoring alternatives: score = expected confidence − 0.05 × approvals − 0.001 × wall seconds −
// 0.01 × money. An operator's attention, waiting and money all count against a plan.
//
// The approvals counted are the ones the plan is expected to need under policy as it stands:
// the ones validation counts (request steps, steps marked require_approval, writing steps of
// a plan that requires approval), plus every capability step policy would ask for, unless the
// step waits for a capability request for the same capability (it is expected to run under the
// grant, and the request already counted).

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { PlanDraft, Resources } from '../core/plan.ts';
import { reaches, type Edge } from './graph.ts';
import type { PolicyView } from './planner-types.ts';
import { estimatePlan } from './resources.ts';

export const SCORE_WEIGHTS = Object.freeze({ approvals: 0.05, wall_seconds: 0.001, money: 0.01 });

/** Six decimals: enough for the weights above, and free of binary noise (0.744, not 0.7440000000000001). */
export function tidyScore(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

export function scoreOf(expectedConfidence: number, estimate: Partial<Resources>): number {
  return tidyScore(expectedConfidence - SCORE_WEIGHTS.approvals * (estimate.approvals ?? 0) - SCORE_WEIGHTS.wall_seconds * (estimate.wall_seconds ?? 0) - SCORE_WEIGHTS.money * (estimate.money ?? 0));
}

/** The plan's estimate with the approvals policy is expected to ask for (see above). */
export function planEstimate(draft: PlanDraft, registry: CapabilityRegistry, policy: PolicyView): Resources {
  const estimate = estimatePlan(draft, registry);
  const keys = draft.steps.map((s) => s.key);
  const edges: Edge[] = draft.steps.flatMap((s) => s.depends_on.map((d) => [s.key, d] as const));
  const requests = draft.steps.filter((s) => s.kind === 'request_capability');
  for (const step of draft.steps) {
    if (step.kind !== 'capability') continue;
    const definition = registry.get(step.capability);
    if (!definition) continue;
    const counted = step.require_approval || (draft.require_approval === true && !definition.readOnly);
    if (counted) continue;
    const target = step.target || registry.targetOf(step.capability, step.params);
    if (policy.decide(step.capability, target, step.params).decision !== 'ask') continue;
    const underGrant = requests.some((r) => {
      const request = r.spec.request as { capability?: unknown } | undefined;
      return request?.capability === step.capability && reaches(keys, edges, step.key, r.key);
    });
    if (!underGrant) estimate.approvals += 1;
  }
  return estimate;
}
