// Everything a plan submission goes through before it is stored: parse the untrusted input,
// validate the draft, and fill in what Praxis derives itself (targets from parameters).

import { inputProblems } from '../core/input-limits.ts';
import { MAX_STEPS, type PlanDraft, type Resources, type ValidationIssue } from '../core/plan.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { checkAssumptions, type HeldBelief } from './assumptions.ts';
import { bounded } from './findings.ts';
import { parseProposal } from './proposal.ts';
import { unstorableFields } from './storable.ts';
import { validate, withDerivedTargets } from './validate.ts';

export interface Assessment {
  /**
   * Null when the input is not a plan at all, breaks the input rule, has too many steps or has a
   * step no plan_steps row can hold as written (storable.ts): refused, not stored.
   */
  draft: PlanDraft | null;
  valid: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /** The estimate computed from the steps; null when there is no draft. */
  estimate: Resources | null;
  /** With no draft, when it is not simply that the input is no plan: why nothing of it may be stored, in words. */
  refusal?: string;
}

/** Input refused before it is read as a plan: nothing of it may be stored, not even as a draft. */
function refused(errors: ValidationIssue[], refusal?: string): Assessment {
  return { draft: null, valid: false, errors, warnings: [], estimate: null, ...(refusal ? { refusal } : {}) };
}

/**
 * The boundary checks that come before parsing: the input rule (src/core/input-limits.ts: no
 * control characters, bounded strings, arrays, nesting), and the step limit, since a draft of
 * thousands of steps is not worth keeping even as a draft (and would not fit one insert).
 */
function boundaryErrors(input: unknown): ValidationIssue[] {
  const problems = inputProblems(input);
  if (problems.length > 0) return problems;
  const steps = typeof input === 'object' && input !== null ? (input as { steps?: unknown }).steps : undefined;
  if (Array.isArray(steps) && steps.length > MAX_STEPS) {
    return [{ code: 'too_many_steps', path: 'steps', message: `the plan has ${steps.length} steps; at most ${MAX_STEPS} are allowed` }];
  }
  return [];
}

export interface AssessmentContext {
  /**
   * The mind's beliefs that the draft's assumptions name (see assumedBeliefIds), read when the
   * plan is submitted: each assumption must name a belief held at least as firmly as it says.
   * Without it the assumptions are checked for shape only.
   */
  beliefs?: ReadonlyMap<string, HeldBelief>;
  /**
   * The strategy Praxis names the plan by, whatever the proposal says: `model` for a model's or an
   * agent's proposal. The reconsideration rule marks a failed plan's strategy as failed, so a
   * proposal naming none was never marked, and one naming `direct` blocked the planner's own.
   */
  strategy?: string;
}

export function assessProposal(input: unknown, registry: CapabilityRegistry, context: AssessmentContext = {}): Assessment {
  const boundary = boundaryErrors(input);
  if (boundary.length > 0) return refused(boundary);
  const parsed = parseProposal(input);
  if (!parsed.ok) return refused(parsed.errors);
  const named = context.strategy !== undefined ? nameStrategy(parsed.draft, context.strategy) : { draft: parsed.draft, warnings: [] };
  const draft = withDerivedTargets(named.draft, registry);
  const result = validate(draft, registry);
  // Findings on the draft are told at the input's paths (an entry the parser dropped shifts the
  // ones after it); a field the parser already refused would otherwise be reported again.
  const atInput = (issues: readonly ValidationIssue[]) => issues.map((e) => ({ ...e, path: parsed.inputPath(e.path) }));
  const reported = (path: string) => parsed.errors.some((e) => path === e.path || path.startsWith(`${e.path}.`) || path.startsWith(`${e.path}[`));
  const held = context.beliefs ? atInput(checkAssumptions(draft, context.beliefs)).filter((e) => !reported(e.path)) : [];
  const found = [...parsed.errors, ...atInput(result.errors).filter((e) => !reported(e.path)), ...held];
  // Steps keep their places in parsing (a malformed one stays an empty step), so a step's path in
  // the draft is its path in the input. Each such field was reported above already, under its own
  // code or as a type error; an issue is added only where nothing was said at or above that path.
  const unstorable = unstorableFields(draft);
  if (unstorable.length > 0) {
    const said = (path: string) => found.some((e) => path === e.path || path.startsWith(`${e.path}.`));
    const paths = unstorable.map((u) => u.path);
    const named = paths.length > 3 ? `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more` : paths.join(', ');
    return refused(bounded([...found, ...unstorable.filter((u) => !said(u.path))]), `not stored, not even as a draft: a step's kind, key or max_attempts cannot be stored as written (${named})`);
  }
  const errors = bounded(found);
  return {
    draft,
    valid: errors.length === 0,
    errors,
    warnings: bounded([...parsed.warnings, ...named.warnings, ...atInput(result.warnings)], 'warnings'),
    estimate: result.estimate,
  };
}

/** The draft under the strategy Praxis names it by; a different one the proposal stated is reported as ignored (pure). */
function nameStrategy(draft: PlanDraft, strategy: string): { draft: PlanDraft; warnings: ValidationIssue[] } {
  const stated = draft.strategy;
  const warnings: ValidationIssue[] =
    stated !== '' && stated !== strategy
      ? [{ code: 'ignored_provenance_claim', path: 'strategy', message: `strategy "${stated}" was ignored: a proposal from a model or an agent is the ${strategy} strategy's, as Praxis names it` }]
      : [];
  return { draft: { ...draft, strategy }, warnings };
}
