// The planner: a pure function from a request (intention, policy view, failed strategies,
// earlier revisions) to a complete, validated draft with its alternatives, or to "ask the
// model", or to "no possible plan". It reads nothing and writes nothing; the I/O around it is
// src/drafting/plan-intention.ts. See docs/planner.md.
//
// - Deterministic strategies are tried in preference order (direct, diagnose,
//   diagnose_then_escalate); one that failed in an earlier revision of the intention is skipped.
// - Every applicable one becomes a candidate: a complete draft that passed validate(), with its
//   estimate and score. The first candidate in preference order is chosen; all are recorded as
//   alternatives with why they were or were not chosen.
// - The model is asked only when no deterministic strategy applies, a model serves the plan role
//   and the model strategy has not failed before.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { DEFAULT_MAX_INVOCATIONS, type Alternative, type PlanDraft, type Resources, type ValidationResult } from '../core/plan.ts';
import { assessProposal } from './assess.ts';
import type { Considered, ModelPlanOutcome, PlanRequest, PlannerOutcome, StrategyName } from './planner-types.ts';
import { planEstimate, scoreOf } from './scoring.ts';
import { DETERMINISTIC_STRATEGIES } from './strategies/index.ts';
import { MODEL_CONFIDENCE, interpretModelAnswer, withPraxisFields } from './strategies/model.ts';
import { validate, withDerivedTargets } from './validate.ts';
import { repeatedWrites } from './repeated-writes.ts';

export const FAILED_BEFORE = 'failed in an earlier revision of this intention; a failed strategy is never used again';

interface Candidate {
  strategy: StrategyName;
  draft: PlanDraft;
  estimate: Resources;
  expectedConfidence: number;
  score: number;
  why: string;
  notes: string[];
}

function estimateOnly(estimate: Resources): Partial<Resources> {
  return { ...estimate };
}

export class Planner {
  readonly #registry: CapabilityRegistry;

  constructor(registry: CapabilityRegistry) {
    this.#registry = registry;
  }

  /** Plans an intention (pure). */
  plan(request: PlanRequest): PlannerOutcome {
    const { candidates, considered } = this.#candidates(request);
    if (candidates.length === 0) {
      const model = this.#modelConsideration(request);
      considered.push(model);
      if (model.applicable) return { kind: 'ask_model', considered };
      return { kind: 'none', considered, reason: 'no possible plan: no strategy applies to this intention' };
    }
    considered.push({ strategy: 'model', applicable: false, why: 'a deterministic strategy applies; the model is asked only when none does' });

    const chosen = candidates[0]!;
    const alternatives: Alternative[] = candidates.map((c) => ({
      strategy: c.strategy,
      estimate: estimateOnly(c.estimate),
      expected_confidence: c.expectedConfidence,
      score: c.score,
      selected: c === chosen,
      why:
        c === chosen
          ? `chosen: ${c.why}; the first applicable strategy in preference order`
          : `not chosen: ${c.why}, but ${chosen.strategy} comes first in preference order (score ${chosen.score} against ${c.score})`,
    }));
    const draft: PlanDraft = { ...chosen.draft, alternatives, estimate: estimateOnly(chosen.estimate) };
    const validation = validate(draft, this.#registry);
    return { kind: 'plan', strategy: chosen.strategy, draft, validation, alternatives, considered, notes: chosen.notes };
  }

  /**
   * The strategies that would apply to the request as it stands, in preference order: every
   * applicable deterministic one, or else `model` where it would be asked. The reconsideration
   * rule uses this to know whether anything is left to try.
   */
  applicableStrategies(request: PlanRequest): StrategyName[] {
    const { candidates } = this.#candidates(request);
    if (candidates.length > 0) return candidates.map((c) => c.strategy);
    return this.#modelConsideration(request).applicable ? ['model'] : [];
  }

  /**
   * Turns the model's reply text into a plan: read it, put Praxis's own fields in place, parse and
   * validate it like any proposal, and score it. An invalid proposal is returned with its errors
   * (to be stored as a draft that never runs); text that is no proposal is malformed or a refusal.
   */
  fromModelAnswer(request: PlanRequest, content: string, tokens = 0): ModelPlanOutcome {
    const answer = interpretModelAnswer(content);
    if (answer.kind !== 'proposal') return answer;
    const assessment = assessProposal(withPraxisFields(answer.value, request), this.#registry);
    if (!assessment.draft || !assessment.estimate) {
      return { kind: 'malformed', message: assessment.refusal ?? 'the answer is not a plan', errors: assessment.errors };
    }
    const estimate = planEstimate(assessment.draft, this.#registry, request.policy);
    const score = scoreOf(MODEL_CONFIDENCE, estimate);
    const alternatives: Alternative[] = [
      {
        strategy: 'model',
        estimate: { ...estimate, tokens },
        expected_confidence: MODEL_CONFIDENCE,
        score,
        selected: true,
        why: 'chosen: no deterministic strategy applies; proposed by the model and validated like any proposal',
      },
    ];
    const draft: PlanDraft = { ...assessment.draft, alternatives, estimate: { ...estimate, tokens } };
    const validation: ValidationResult = {
      valid: assessment.valid,
      errors: assessment.errors,
      warnings: assessment.warnings,
      estimate: assessment.estimate,
    };
    return { kind: 'proposal', valid: assessment.valid, draft, validation, alternatives };
  }

  #candidates(request: PlanRequest): { candidates: Candidate[]; considered: Considered[] } {
    const candidates: Candidate[] = [];
    const considered: Considered[] = [];
    for (const strategy of DETERMINISTIC_STRATEGIES) {
      if (request.failedStrategies.includes(strategy.name)) {
        considered.push({ strategy: strategy.name, applicable: false, why: FAILED_BEFORE });
        continue;
      }
      const attempt = strategy.attempt({ request, registry: this.#registry });
      if (!attempt.applicable) {
        considered.push({ strategy: strategy.name, applicable: false, why: attempt.why });
        continue;
      }
      const draft = withDerivedTargets({ ...attempt.draft, budget: { invocations: DEFAULT_MAX_INVOCATIONS, ...request.budget }, estimate: {}, alternatives: [] }, this.#registry);
      const validation = validate(draft, this.#registry);
      if (!validation.valid) {
        // A strategy's draft failing validation is a bug in the strategy (or a budget too tight
        // for it); it is reported, never stored or run.
        const codes = [...new Set(validation.errors.map((e) => e.code))].join(', ');
        considered.push({ strategy: strategy.name, applicable: false, why: `its draft failed validation (${codes})` });
        continue;
      }
      // The planner's own plans are held to the rule proposals are (revisions.ts): a strategy
      // whose plan would repeat a write that failed or was refuted does not apply, so the
      // reconsideration moves on to the next one instead of storing a draft nothing runs.
      const repeats = repeatedWrites(draft, 'replan', request.spentWrites ?? [], this.#registry);
      if (repeats.length > 0) {
        considered.push({ strategy: strategy.name, applicable: false, why: `its plan would repeat a write that did not work (${repeats[0]!.message})` });
        continue;
      }
      const estimate = planEstimate(draft, this.#registry, request.policy);
      candidates.push({
        strategy: strategy.name,
        draft,
        estimate,
        expectedConfidence: attempt.expectedConfidence,
        score: scoreOf(attempt.expectedConfidence, estimate),
        why: attempt.why,
        notes: attempt.notes,
      });
      considered.push({ strategy: strategy.name, applicable: true, why: attempt.why });
    }
    return { candidates, considered };
  }

  #modelConsideration(request: PlanRequest): Considered {
    if (request.failedStrategies.includes('model')) return { strategy: 'model', applicable: false, why: FAILED_BEFORE };
    if (!request.modelConfigured) return { strategy: 'model', applicable: false, why: 'no model is configured for the plan role' };
    return { strategy: 'model', applicable: true, why: 'no deterministic strategy applies and a model serves the plan role' };
  }
}
