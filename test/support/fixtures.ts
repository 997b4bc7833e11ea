// Plans and minds to store in tests: a small draft that exercises every value shape the codec
// handles (nested JSON, text arrays, booleans, nullable JSON, unicode and quotes).

import { newId } from '../../src/core/ids.ts';
import type { PlanDraft, ValidationResult } from '../../src/core/plan.ts';
import type { PlanWithSteps } from '../../src/store/repositories/plans.ts';
import type { Store } from '../../src/store/store.ts';
import type { MindRecord } from '../../src/store/repositories/minds.ts';
import type { IntentionRecord } from '../../src/store/repositories/intentions.ts';

export function sampleDraft(): PlanDraft {
  const status = { capability: 'service.status', params: { unit: 'nginx.service' } };
  return {
    objective: 'nginx serves pages again',
    strategy: 'direct_action',
    assumptions: [{ statement: 'nginx is installed', belief_id: '0190f1c2-0000-7000-8000-000000000001', min_confidence: 0.6 }],
    completion_criteria: 'nginx.service is active',
    abort_conditions: ['an operator says stop', { when: 'step_failed', step: 'restart', statement: 'the restart is refused' }, { when: 'expectation_refuted', step: 'verify' }],
    risk: 'a short outage while restarting',
    estimate: { invocations: 2 },
    budget: { invocations: 10, wall_seconds: 600 },
    alternatives: [
      {
        strategy: 'direct_action',
        estimate: { invocations: 3 },
        expected_confidence: 0.8,
        score: 0.72,
        selected: true,
        why: 'cheapest, verified by observation',
      },
    ],
    steps: [
      {
        key: 'check',
        title: 'Check nginx',
        kind: 'capability',
        depends_on: [],
        capability: 'service.status',
        target: 'nginx.service',
        params: { unit: 'nginx.service' },
        expectation: null,
        precondition: null,
        max_attempts: 2,
        require_approval: false,
        spec: {},
      },
      {
        key: 'restart',
        title: 'Restart nginx',
        kind: 'capability',
        depends_on: ['check'],
        capability: 'service.restart',
        target: 'nginx.service',
        params: { unit: 'nginx.service', options: { list: [1, 2.5, 'x', null, true], empty: {} } },
        expectation: {
          statement: 'nginx is active',
          confidence: 0.9,
          within_seconds: 30,
          check: { ...status, field: 'active_state', comparison: 'equals', value: 'active' },
        },
        precondition: {
          ...status,
          field: 'active_state',
          comparison: 'not_equals',
          value: 'active',
          fulfils_intention: true,
        },
        max_attempts: 1,
        require_approval: true,
        spec: {},
      },
      {
        key: 'verify',
        title: 'Verify nginx',
        kind: 'verify',
        depends_on: ['restart'],
        capability: '',
        target: '',
        params: {},
        expectation: null,
        precondition: null,
        max_attempts: 3,
        require_approval: false,
        spec: { verifies: 'restart', interval_seconds: 5 },
      },
      {
        key: 'tell',
        title: 'Tell the operator',
        kind: 'internal',
        depends_on: ['check', 'verify'],
        capability: '',
        target: '',
        params: {},
        expectation: null,
        precondition: null,
        max_attempts: 1,
        require_approval: false,
        spec: { action: 'notify_operator', message: 'it\'s "done" ✓ — ünïcode' },
      },
    ],
  };
}

export function passingValidation(): ValidationResult {
  return {
    valid: true,
    errors: [],
    warnings: [{ code: 'estimate_understated', message: 'the draft claims less than the steps need', path: 'estimate' }],
    estimate: { invocations: 3, approvals: 1, wall_seconds: 40, network_ops: 0, money: 0, tokens: 0 },
  };
}

export interface Seeded {
  mind: MindRecord;
  intention: IntentionRecord;
  plan: PlanWithSteps;
}

/** A mind (uniquely named, so suites can share a database), an intention and a validated plan. */
export async function seedPlan(store: Store, draft: PlanDraft = sampleDraft()): Promise<Seeded> {
  const mind = await store.minds.create({ name: `mind-${newId()}` });
  const intention = await store.intentions.create({ mindId: mind.id, objective: draft.objective, origin: 'operator' });
  const plan = await store.plans.create({
    mindId: mind.id,
    intentionId: intention.id,
    origin: 'operator',
    draft,
    validation: passingValidation(),
    status: 'validated',
  });
  return { mind, intention, plan };
}

/** A plan with one step, already moved to `ready`; returns the step id. */
export async function seedReadyStep(store: Store): Promise<{ stepId: string; planId: string }> {
  const draft = sampleDraft();
  draft.steps = draft.steps.slice(0, 1);
  const { plan } = await seedPlan(store, draft);
  const step = plan.steps[0];
  if (!step) throw new Error('seeded plan has no step');
  const ready = await store.steps.move('promote', step.id, 'pending');
  if (!ready) throw new Error('could not make the seeded step ready');
  return { stepId: step.id, planId: plan.id };
}
