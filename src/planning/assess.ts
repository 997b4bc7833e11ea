// Everything a plan submission goes through before it is stored: parse the untrusted input,
// validate the draft, and fill in what Praxis derives itself (targets from parameters).

import type { PlanDraft, Resources, ValidationIssue } from '../core/plan.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { parseProposal } from './proposal.ts';
import { validate, withDerivedTargets } from './validate.ts';

export interface Assessment {
  /** Null only when the input is not a plan at all; such input is refused, not stored. */
  draft: PlanDraft | null;
  valid: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /** The estimate computed from the steps; null when there is no draft. */
  estimate: Resources | null;
}

export function assessProposal(input: unknown, registry: CapabilityRegistry): Assessment {
  const parsed = parseProposal(input);
  if (!parsed.ok) return { draft: null, valid: false, errors: parsed.errors, warnings: [], estimate: null };
  const draft = withDerivedTargets(parsed.draft, registry);
  const result = validate(draft, registry);
  // A field the parser already refused would otherwise be reported again by validation.
  const reported = (path: string) =>
    parsed.errors.some((e) => path === e.path || path.startsWith(`${e.path}.`) || path.startsWith(`${e.path}[`));
  const errors = [...parsed.errors, ...result.errors.filter((e) => !reported(e.path))];
  return {
    draft,
    valid: errors.length === 0,
    errors,
    warnings: [...parsed.warnings, ...result.warnings],
    estimate: result.estimate,
  };
}
