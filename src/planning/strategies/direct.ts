// `direct`: the intention names its means (a capability with parameters), so the plan is that
// one action. A writing action carries the expectation its capability declares in
// WRITE_EFFECTS and is followed by a verify step that observes it; the plan only completes when
// the effect has been seen, never because the call returned.

import type { AbortConditionDraft } from '../../core/abort-conditions.ts';
import type { Expectation, StepDraft } from '../../core/plan.ts';
import { assumptionsFor, stepDraft, type DeterministicStrategy, type StrategyAttempt, type StrategyContext } from './strategy.ts';
import { writeEffectOf } from './write-effects.ts';

/** Confidence of a plan that only reads; of a write verified by observation it is the expectation's own. */
export const READ_CONFIDENCE = 0.9;
/** Confidence of a write whose effect nothing can observe. */
export const UNVERIFIED_WRITE_CONFIDENCE = 0.5;

export const direct: DeterministicStrategy = {
  name: 'direct',
  attempt({ request, registry }: StrategyContext): StrategyAttempt {
    const { intention, policy } = request;
    const means = intention.means;
    if (!means) return { applicable: false, why: 'the intention names no capability as its means' };
    const definition = registry.get(means.capability);
    if (!definition) return { applicable: false, why: `${means.capability} is not a registered capability` };
    if (definition.locked) return { applicable: false, why: `${means.capability} is locked` };
    const issues = registry.checkParams(definition.name, means.params);
    if (issues.length > 0) {
      return { applicable: false, why: `the means' parameters are refused: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}` };
    }
    const target = registry.targetOf(definition.name, means.params);
    if (means.target && means.target !== target) {
      return { applicable: false, why: `the means names target ${means.target} but its parameters act on ${target}` };
    }
    const answer = policy.decide(definition.name, target, means.params);
    if (answer.decision === 'deny') return { applicable: false, why: `policy denies ${definition.name} on ${target} (${answer.reason})` };

    const notes: string[] = [];
    const writes = !definition.readOnly;
    const effect = writes ? writeEffectOf(definition.name) : undefined;
    const expectation: Expectation | null = effect ? effect.expectation(means.params, target) : null;
    const steps: StepDraft[] = [
      stepDraft({
        key: 'P1',
        title: `${writes ? 'Run' : 'Read'} ${definition.name} on ${target}`,
        kind: 'capability',
        capability: definition.name,
        target,
        params: means.params,
        expectation,
        // A write that is not idempotent must never be repeated blindly; a read may retry once.
        max_attempts: writes ? 1 : 2,
        require_approval: intention.requireApproval,
      }),
    ];
    if (expectation) {
      const check = expectation.check;
      steps.push(
        stepDraft({
          key: 'V1',
          title: `Verify: ${expectation.statement}`,
          kind: 'verify',
          depends_on: ['P1'],
          capability: check.capability,
          params: check.params,
          spec: { verifies: 'P1' },
        }),
      );
      const observable = policy.decide(check.capability, registry.targetOf(check.capability, check.params), check.params);
      if (observable.decision !== 'allow') {
        notes.push(`${check.capability} would not simply be allowed (${observable.reason}): a check never asks, so the outcome may stay unverified`);
      }
    } else if (writes) {
      notes.push(`${definition.name} declares no observable effect, so its outcome will not be verified`);
    }
    if (answer.decision === 'ask') notes.push(`${definition.name} on ${target} will ask an operator (${answer.reason})`);

    const did = `${definition.name} on ${target}`;
    const draft = {
      objective: intention.objective,
      strategy: 'direct',
      assumptions: assumptionsFor({ request, registry }, [{ statement: `${did} achieves "${intention.objective}"`, min_confidence: 0.5 }]),
      completion_criteria: expectation
        ? `V1 observes that ${expectation.statement} within ${expectation.within_seconds} s of P1`
        : writes
          ? `P1 (${did}) reports success; nothing observes the effect`
          : `P1 returns an observation of ${target}`,
      abort_conditions: [
        { when: 'step_failed', step: 'P1', statement: `${did} fails or policy or an operator refuses it` } as AbortConditionDraft,
        ...(expectation
          ? [{ when: 'expectation_refuted', step: 'V1', statement: `V1 does not observe "${expectation.statement}" within ${expectation.within_seconds} s` } as AbortConditionDraft]
          : []),
      ],
      risk: effect ? effect.risk(target) : writes ? `${did} changes the system and its outcome is not verified` : `none: ${definition.name} only reads`,
      require_approval: intention.requireApproval,
      steps,
    };
    const expectedConfidence = expectation ? expectation.confidence : writes ? UNVERIFIED_WRITE_CONFIDENCE : READ_CONFIDENCE;
    return { applicable: true, draft, expectedConfidence, why: `the intention names ${did} as its means`, notes };
  },
};
