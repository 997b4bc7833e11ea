// A write that did not work is not proposed again. When a write failed in an earlier revision of
// an intention, or its expectation was refuted (the prediction error that weakens the supporting
// belief and makes the plan reconsidered), the next revision is meant to do something else:
// diagnose, ask, tell the operator. The planner's own strategies never repeat one (a failed
// strategy is not used again, and diagnose_then_escalate only reads); nothing stopped a model's
// plan, or an agent's, from proposing the same restart of the same unit again, and it validated.
// Here a proposal not authored by an operator whose writing step repeats such a write (the same
// capability on the same target) gets an error naming the step and the revision, so it is stored
// only as a draft and never runs. An operator may decide to retry: their plans are not held to it.
// Pure: the caller reads the intention's history (src/drafting/revisions.ts).

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { PlanDraft, ValidationIssue } from '../core/plan.ts';
import type { StepDigest } from '../core/step-digest.ts';
import type { PlanOrigin } from '../core/vocabulary.ts';
import { show } from './findings.ts';

/** A step of an earlier revision as this rule reads it: the shared digest (src/core/step-digest.ts), with its prediction's outcome. */
export interface PastStep extends Omit<StepDigest, 'title' | 'observation'> {
  /** The status of the prediction its expectation became, if it had one (`refuted`, `confirmed`, …). */
  prediction: string | null;
}

export interface PastRevision {
  revision: number;
  steps: readonly PastStep[];
}

/** A write that failed or was refuted, where and why. */
export interface SpentWrite {
  revision: number;
  step: string;
  capability: string;
  target: string;
  outcome: 'failed' | 'refuted';
  why: string;
}

function isWrite(registry: CapabilityRegistry, kind: string, capability: string): boolean {
  const definition = kind === 'capability' ? registry.get(capability) : undefined;
  return definition !== undefined && !definition.readOnly;
}

/** The writes of earlier revisions that failed or whose expectation was refuted, oldest first (pure). */
export function spentWrites(history: readonly PastRevision[], registry: CapabilityRegistry): SpentWrite[] {
  return history.flatMap((past) =>
    past.steps.flatMap((step): SpentWrite[] => {
      if (!isWrite(registry, step.kind, step.capability)) return [];
      const where = { revision: past.revision, step: step.key, capability: step.capability, target: step.target };
      if (step.status === 'failed') return [{ ...where, outcome: 'failed', why: step.error || step.statusReason }];
      if (step.prediction === 'refuted') return [{ ...where, outcome: 'refuted', why: 'its expectation was refuted' }];
      return [];
    }),
  );
}

/**
 * One error for each writing step of `draft` that repeats a spent write: same capability, same
 * target (the target its parameters imply when it states none). None for an operator's plan (pure).
 */
export function repeatedWrites(draft: PlanDraft, origin: PlanOrigin, spent: readonly SpentWrite[], registry: CapabilityRegistry): ValidationIssue[] {
  if (origin === 'operator' || spent.length === 0) return [];
  const issues: ValidationIssue[] = [];
  draft.steps.forEach((step, index) => {
    if (!isWrite(registry, step.kind, step.capability)) return;
    const target = step.target || registry.targetOf(step.capability, step.params ?? {});
    const earlier = [...spent].reverse().find((s) => s.capability === step.capability && s.target === target);
    if (!earlier) return;
    const what = earlier.outcome === 'refuted' ? 'its expectation was refuted' : `it failed${earlier.why ? ` (${earlier.why})` : ''}`;
    issues.push({
      code: 'repeated_failed_write',
      path: `steps[${index}].capability`,
      message: `step ${show(step.key)} repeats ${step.capability} on ${show(target)}, which ${earlier.step} of revision ${earlier.revision} did, and ${what}: a write that did not work is not proposed again; do something else, or leave a retry to an operator`,
    });
  });
  return issues;
}
