// Previewing a plan before submitting it: the validation it would get (its assumptions checked
// against the mind's beliefs as they are now), the enforced budget against the estimate, and for
// every step the policy decision it would meet now and the operator attention it would cost.
// Read-only: nothing is stored, no approval is asked, no grant is spent, no event is written.

import type { Principal } from '../access/permissions.ts';
import { loadPolicyInputs } from '../capabilities/policy-inputs.ts';
import { decidePolicy } from '../capabilities/policy/decide.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { InputError } from '../core/errors.ts';
import { RESOURCE_KEYS, type Resources, type ValidationIssue } from '../core/plan.ts';
import type { MindStatus } from '../core/vocabulary.ts';
import { heldBeliefs } from '../mind/beliefs.ts';
import { mayAdvance } from '../mind/minds.ts';
import { assessProposal } from '../planning/assess.ts';
import { assumedBeliefIds } from '../planning/assumptions.ts';
import { previewSteps, type Attention, type PreviewPolicy, type StepPreview } from '../planning/preview.ts';
import { budgetLimits } from '../planning/resources.ts';
import type { Store } from '../store/index.ts';
import { resolveMind } from './minds.ts';

export interface PlanPreview {
  mind: { id: string; name: string; status: MindStatus };
  valid: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /** What the steps would use, computed (never the draft's claim). */
  estimate: Resources;
  /** The caps the executor would enforce, the default of 20 invocations included. */
  budget: Partial<Resources>;
  within_budget: boolean;
  attention: Attention;
  steps: StepPreview[];
  /** Whether a submission would start now: valid, the mind active, and no step refused or unobservable. */
  would_start: boolean;
}

export async function previewPlanDraft(store: Store, registry: CapabilityRegistry, principal: Principal, mindRef: string, input: unknown): Promise<PlanPreview> {
  const mind = await resolveMind(store, principal, mindRef);
  const beliefs = await heldBeliefs(store, mind.id, assumedBeliefIds(input));
  const assessment = assessProposal(input, registry, { beliefs });
  if (!assessment.draft || !assessment.estimate) throw new InputError(assessment.errors);
  const draft = assessment.draft;
  const now = store.clock.now();
  const inputs = await loadPolicyInputs(store, mind.id, now, { grants: true });
  const policy: PreviewPolicy = {
    decide(capability, target, params, requireApproval) {
      const definition = registry.get(capability)!;
      const verdict = decidePolicy({ definition, target, params, ...inputs, requireApproval, now });
      return {
        decision: verdict.decision,
        source: verdict.source,
        reason: verdict.reason,
        approvers: verdict.approvers,
        grant: verdict.grant ? { id: verdict.grant.id, operations_left: verdict.grant.operations_left } : null,
      };
    },
  };
  const { steps, attention } = previewSteps(draft, registry, policy);
  const budget = budgetLimits(draft.budget);
  const estimate = assessment.estimate;
  const withinBudget = RESOURCE_KEYS.every((key) => budget[key] === undefined || estimate[key] <= budget[key]!);
  return {
    mind: { id: mind.id, name: mind.name, status: mind.status },
    valid: assessment.valid,
    errors: assessment.errors,
    warnings: assessment.warnings,
    estimate,
    budget,
    within_budget: withinBudget,
    attention,
    steps,
    would_start: assessment.valid && mayAdvance(mind) && attention.blocked_steps.length === 0,
  };
}
