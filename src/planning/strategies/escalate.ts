// `diagnose_then_escalate`: a direct action on a unit failed in an earlier revision (the direct
// strategy's, or the same write in an agent's or a model's plan). Trying it
// again is exactly what must not happen; instead the plan diagnoses the unit read-only and
// leaves the operator a note saying what was tried and what was seen. Completing it informs the
// operator; it does not fulfil the intention.

import { checkUnitName } from '../../capabilities/unit-name.ts';
import type { PriorRevision } from '../planner-types.ts';
import { diagnosisConfidence, diagnosisOf } from './diagnosis.ts';
import { assumptionsFor, stepDraft, type DeterministicStrategy, type StrategyAttempt, type StrategyContext } from './strategy.ts';

const MAX_NOTE = 2_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "What was seen" in the latest failed direct revision, in one line per failed step. */
/**
 * An observation as words for a note a person reads: `active_state "failed", sub_state "failed"`;
 * record ids (`prediction_id`) are left out, nested values stay compact JSON.
 */
function observationText(observation: unknown): string {
  if (observation === null || typeof observation !== 'object' || Array.isArray(observation)) return JSON.stringify(observation);
  const parts = Object.entries(observation as Record<string, unknown>)
    .filter(([key]) => !/(^|_)id$/.test(key))
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

export function whatWasSeen(revision: PriorRevision | undefined): string {
  if (!revision) return 'no record of the earlier attempt was found';
  const troubled = revision.steps.filter((s) => ['failed', 'blocked', 'cancelled'].includes(s.status));
  const lines = troubled.map((s) => {
    const why = s.error || s.statusReason;
    const observed = s.observation !== undefined && s.observation !== null ? `; observed ${clip(observationText(s.observation), 200)}` : '';
    return `${s.key} (${s.title}) ${s.status}${why ? `: ${why}` : ''}${observed}`;
  });
  if (lines.length > 0) return lines.join('; ');
  return revision.statusReason ? `the plan ${revision.status}: ${revision.statusReason}` : `the plan ${revision.status}`;
}

export const diagnoseThenEscalate: DeterministicStrategy = {
  name: 'diagnose_then_escalate',
  attempt(ctx: StrategyContext): StrategyAttempt {
    const { request, registry } = ctx;
    const { intention, policy } = request;
    const means = intention.means;
    const definition = means ? registry.get(means.capability) : undefined;
    const unitParam = means?.params.unit;
    const unit = !means ? null : typeof unitParam === 'string' && checkUnitName(unitParam) === null ? unitParam : checkUnitName(means.target) === null ? means.target : null;
    // The intention's own action failed: the direct strategy's plan, or any earlier revision's
    // write of it (an agent's or a model's plan) that failed or was refuted.
    const spent = [...(request.spentWrites ?? [])].reverse().find((w) => w.capability === means?.capability && w.target === unit);
    if (!request.failedStrategies.includes('direct') && !spent) return { applicable: false, why: 'no direct action has failed for this intention' };
    if (!means || !definition || definition.readOnly) {
      return { applicable: false, why: 'the failed direct action was not a write on a service' };
    }
    if (!unit) return { applicable: false, why: `${means.capability} did not act on a unit, so there is no service to diagnose` };

    const earlier = [...request.history].reverse().find((r) => r.strategy === 'direct' || r.revision === spent?.revision);
    const tried = `${definition.name} on ${unit}${earlier ? ` (revision ${earlier.revision})` : ''}`;
    const seen = whatWasSeen(earlier);
    const diagnosis = diagnosisOf(unit, policy);
    const message = clip(
      `Tried ${tried}; it did not bring about "${intention.objective}". Seen: ${seen}. ` +
        `${definition.name} is not being repeated. ` +
        (diagnosis.steps.length > 0
          ? `The findings of a read-only diagnosis of ${unit} (${diagnosis.observations.join(', ')}) are summarised in S1.`
          : `Policy allows no observation of ${unit}, so no diagnosis is attached.`),
      MAX_NOTE,
    );
    const steps = [
      ...diagnosis.steps,
      stepDraft({
        key: 'N1',
        title: `Tell the operator what was tried on ${unit} and what was seen`,
        kind: 'internal',
        depends_on: diagnosis.steps.length > 0 ? ['S1'] : [],
        spec: { action: 'notify_operator', message },
      }),
    ];
    return {
      applicable: true,
      draft: {
        objective: intention.objective,
        strategy: 'diagnose_then_escalate',
        assumptions: assumptionsFor(ctx, [{ statement: `an operator reads the note and can act on ${unit}`, min_confidence: 0.5 }]),
        completion_criteria: `N1 has left the operator a note with what was tried, what was seen${diagnosis.steps.length > 0 ? ' and the findings' : ''}; this informs the operator and does not fulfil the intention`,
        abort_conditions: [{ when: 'step_failed', step: 'N1', statement: 'the note to the operator (N1) cannot be left' }],
        risk: `read-only: ${definition.name} is not repeated`,
        require_approval: intention.requireApproval,
        steps,
      },
      expectedConfidence: diagnosisConfidence(diagnosis),
      why: `${tried} failed; diagnose ${unit} and tell the operator instead of repeating it`,
      notes: diagnosis.notes,
    };
  },
};
