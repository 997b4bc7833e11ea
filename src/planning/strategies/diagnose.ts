// `diagnose`: the objective asks to investigate a service-like subject (see subject.ts), so the
// plan observes it read-only (state, memory, disk, journal, as policy permits) and summarises.

import { diagnosisConfidence, diagnosisOf } from './diagnosis.ts';
import { assumptionsFor, type DeterministicStrategy, type StrategyAttempt, type StrategyContext } from './strategy.ts';
import { investigationSubject } from './subject.ts';

export const diagnose: DeterministicStrategy = {
  name: 'diagnose',
  attempt(ctx: StrategyContext): StrategyAttempt {
    const { intention, policy } = ctx.request;
    const subject = investigationSubject(intention.objective);
    if (!subject) return { applicable: false, why: 'the objective does not ask to investigate a service-like subject' };
    const diagnosis = diagnosisOf(subject.unit, policy);
    if (diagnosis.steps.length === 0) {
      return { applicable: false, why: `policy allows no observation of ${subject.unit}` };
    }
    const logs = diagnosis.observations.includes('L1');
    return {
      applicable: true,
      draft: {
        objective: intention.objective,
        strategy: 'diagnose',
        assumptions: assumptionsFor(ctx, [{ statement: `${subject.unit} is a unit on the host`, min_confidence: 0.5 }]),
        completion_criteria: `S1 has summarised what was observed of ${subject.unit} (${diagnosis.observations.join(', ')})`,
        // A failed read is a finding S1 reports; only when nothing at all could be observed is
        // there nothing to summarise. A refused journal request leaves L1 cancelled, which counts.
        abort_conditions: [{ when: 'every_observation_failed', steps: diagnosis.observations, statement: `every observation of ${subject.unit} fails (${diagnosis.observations.join(', ')})` }],
        risk: logs ? 'read-only; the journal may contain personal identifiers, which are masked by default' : 'read-only',
        require_approval: intention.requireApproval,
        steps: diagnosis.steps,
      },
      expectedConfidence: diagnosisConfidence(diagnosis),
      why: `the objective asks to investigate ${subject.unit} (${subject.how === 'named' ? 'named in full' : 'a bare name, as a service'})`,
      notes: diagnosis.notes,
    };
  },
};
