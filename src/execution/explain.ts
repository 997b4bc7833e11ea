// What an invocation from a step says about itself: the evidence it cites (intention, plan,
// step) and the explanation an approver reads (what, why, the expected outcome, side effects
// and the alternatives the plan considered).

import type { CapabilityDefinition } from '../capabilities/definition.ts';
import type { Explanation } from '../capabilities/invocation.ts';
import { abortConditionText } from '../core/abort-conditions.ts';
import type { JsonObject } from '../core/plan.ts';
import type { StepScene } from './apply.ts';

export function evidenceOf(scene: StepScene): JsonObject {
  return { intention_id: scene.plan.intentionId, plan_id: scene.plan.id, step_id: scene.step.id };
}

export function explanationOf(scene: StepScene, definition: CapabilityDefinition): Explanation {
  const { step, plan, intention } = scene;
  const target = step.target || definition.target(step.params);
  const serving = intention ? ` serving the intention "${intention.objective}"` : '';
  const expected = step.expectation
    ? `${step.expectation.statement}, within ${step.expectation.within_seconds} s (confidence ${step.expectation.confidence}); a later observation checks it`
    : plan.completionCriteria || `${step.title} is done`;
  const sideEffects = definition.readOnly
    ? 'none: read-only'
    : definition.idempotent
      ? 'changes the system; repeating it has the same effect as running it once'
      : 'changes the system; it is not safe to repeat, so it runs at most once';
  return {
    what: `${step.title}: ${definition.name} on ${target}`,
    why: `step ${step.key} of the plan "${plan.objective}" (revision ${plan.revision}, ${plan.strategy || 'no strategy'})${serving}`,
    expected_outcome: expected,
    side_effects: sideEffects,
    alternatives: plan.alternatives.filter((a) => !a.selected).map((a) => `${a.strategy}: ${a.why}`),
    risk: plan.risk || (definition.readOnly ? 'none beyond reading' : `${definition.name} changes ${target}`),
    mitigation: mitigationOf(step),
    fallback: fallbackOf(plan, definition),
  };
}

function mitigationOf(step: StepScene['step']): string {
  const guards: string[] = [];
  if (step.precondition) guards.push(`runs only while "${step.precondition.statement}" holds when the step starts`);
  if (step.expectation) guards.push(`a later read-only observation checks "${step.expectation.statement}"`);
  return guards.length > 0 ? guards.join('; ') : 'none stated by the plan';
}

function fallbackOf(plan: StepScene['plan'], definition: CapabilityDefinition): string {
  const parts: string[] = [];
  if (!definition.readOnly) parts.push('if the result is refuted, the plan is reconsidered and replanned (at most three revisions); this action is never repeated blindly');
  if (plan.abortConditions.length > 0) parts.push(`the plan stops when: ${plan.abortConditions.map(abortConditionText).join('; ')}`);
  return parts.length > 0 ? parts.join('. ') : 'a failure fails the step and the plan is reconsidered';
}
