// Whether a draft's steps can be written down as they were proposed. An invalid draft is kept as a
// `draft` with its errors so that its author reads back what they wrote; but each step becomes a
// row of plan_steps, whose kind is one of the step kinds (a closed vocabulary the store checks),
// whose key is unique within its plan, and whose max_attempts is a whole number of the size an
// integer column holds on both stores. A step that breaks one of these cannot be kept as
// written: storing it failed with a constraint error (a 500, or an exception out of a replan),
// and keeping it under another kind, key or number would show its author something they did not
// write. Such a draft is refused with its errors, like input that is not a plan, and nothing of
// it is stored (docs/validation.md, "Refused, not kept").

import type { PlanDraft, ValidationIssue } from '../core/plan.ts';
import { StepKinds } from '../core/vocabulary.ts';
import { show } from './findings.ts';

/** PostgreSQL's `integer` is 32 bits; SQLite would take more, and one rule serves both stores. */
const STORED_INTEGERS = { min: -2_147_483_648, max: 2_147_483_647 };

/** The fields of the draft's steps that no plan_steps row can hold as written, one issue each (pure). */
export function unstorableFields(draft: PlanDraft): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const firstUse = new Map<string, number>();
  draft.steps.forEach((step, index) => {
    const path = `steps[${index}]`;
    if (!StepKinds.has(step.kind)) {
      issues.push({ code: 'unknown_kind', path: `${path}.kind`, message: `${show(step.kind)} is not a step kind, and a step is stored only with one of ${StepKinds.values.join(', ')}` });
    }
    const earlier = firstUse.get(step.key);
    if (earlier === undefined) firstUse.set(step.key, index);
    else issues.push({ code: 'duplicate_key', path: `${path}.key`, message: `key ${show(step.key)} is already used by steps[${earlier}], and a plan stores each key once` });
    const attempts = step.max_attempts;
    if (!Number.isInteger(attempts) || attempts < STORED_INTEGERS.min || attempts > STORED_INTEGERS.max) {
      issues.push({ code: 'invalid_max_attempts', path: `${path}.max_attempts`, message: `max_attempts ${show(attempts)} is not a whole number a step can store` });
    }
  });
  return issues;
}
