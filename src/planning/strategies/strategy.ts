// What a deterministic strategy is: given the request and the registry, either a complete draft
// with how confident it is that the draft reaches its objective, or why it does not apply.

import type { CapabilityRegistry } from '../../capabilities/registry.ts';
import type { Assumption, PlanDraft, StepDraft } from '../../core/plan.ts';
import type { PlanRequest, StrategyName } from '../planner-types.ts';

export interface StrategyContext {
  request: PlanRequest;
  registry: CapabilityRegistry;
}

export type StrategyAttempt =
  | {
      applicable: true;
      /** Without budget, estimate and alternatives: the planner adds those. */
      draft: Omit<PlanDraft, 'budget' | 'estimate' | 'alternatives'>;
      expectedConfidence: number;
      why: string;
      notes: string[];
    }
  | { applicable: false; why: string };

export interface DeterministicStrategy {
  name: Exclude<StrategyName, 'model'>;
  attempt(ctx: StrategyContext): StrategyAttempt;
}

/** The supporting belief as an assumption, then the strategy's own. */
export function assumptionsFor(ctx: StrategyContext, own: Assumption[]): Assumption[] {
  const belief = ctx.request.intention.belief;
  const fromBelief: Assumption[] = belief ? [{ statement: belief.statement, belief_id: belief.id, min_confidence: 0.5 }] : [];
  return [...fromBelief, ...own];
}

/** A step with every field present, in the order of the plan format. */
export function stepDraft(partial: Partial<StepDraft> & Pick<StepDraft, 'key' | 'title' | 'kind'>): StepDraft {
  return {
    key: partial.key,
    title: partial.title,
    kind: partial.kind,
    depends_on: partial.depends_on ?? [],
    capability: partial.capability ?? '',
    target: partial.target ?? '',
    params: partial.params ?? {},
    expectation: partial.expectation ?? null,
    precondition: partial.precondition ?? null,
    max_attempts: partial.max_attempts ?? 1,
    require_approval: partial.require_approval ?? false,
    spec: partial.spec ?? {},
  };
}
