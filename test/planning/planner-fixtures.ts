// Requests for the planner: realistic intentions on the built-in registry, and policy views
// built the way the planning shell builds them (rules, commitments, live grants).

import type { PolicyInputs } from '../../src/capabilities/policy-inputs.ts';
import type { PolicyRule, ScopedGrant, CommitmentRequirement } from '../../src/capabilities/policy/decide.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { addSeconds } from '../../src/core/clock.ts';
import { policyViewOf } from '../../src/drafting/policy-view.ts';
import type { PlanRequest, PlanningIntention, PolicyView, PriorRevision } from '../../src/planning/planner-types.ts';

export const NOW = new Date('2026-03-01T09:00:00.000Z');
export const registry = builtinRegistry();

export function policy(inputs: Partial<PolicyInputs> = {}, now = NOW): PolicyView {
  return policyViewOf(registry, { rules: [], commitments: [], grants: [], ...inputs }, now);
}

export function rule(capability: string, decision: PolicyRule['decision'], target_pattern = '*'): PolicyRule {
  return { capability, target_pattern, decision, approvers: 1 };
}

export function logGrant(unit: string, now = NOW): ScopedGrant {
  return {
    id: 'grant-1',
    capability: 'logs.query',
    target_pattern: unit,
    param_limits: { lines: { max: 200 } },
    expires_at: addSeconds(now, 1800),
    operations_left: 20,
  };
}

export function commitment(capability: string, target_pattern = '*'): CommitmentRequirement {
  return { id: 'commitment-1', capability, target_pattern, reason: 'change freeze' };
}

export const restartAtlas: PlanningIntention = {
  objective: 'restart atlas-worker.service',
  means: { capability: 'service.restart', target: 'atlas-worker.service', params: { unit: 'atlas-worker.service' } },
  requireApproval: false,
};

export const investigateNginx: PlanningIntention = {
  objective: 'investigate nginx.service',
  means: null,
  requireApproval: false,
};

/** Revision 1 of the restart: the restart was requested, then the unit was never seen active. */
export const failedRestart: PriorRevision = {
  revision: 1,
  strategy: 'direct',
  status: 'replanning',
  statusReason: 'expectation failed',
  steps: [
    {
      key: 'P1',
      title: 'Run service.restart on atlas-worker.service',
      kind: 'capability',
      capability: 'service.restart',
      target: 'atlas-worker.service',
      status: 'completed',
      error: '',
      statusReason: 'restart requested (health not yet verified)',
    },
    {
      key: 'V1',
      title: 'Verify: atlas-worker.service is active',
      kind: 'verify',
      capability: 'service.status',
      target: 'atlas-worker.service',
      status: 'failed',
      error: 'expectation failed: atlas-worker.service was not active within 60 s',
      statusReason: '',
      observation: { active_state: 'failed', sub_state: 'failed' },
    },
  ],
};

export function request(intention: PlanningIntention, over: Partial<PlanRequest> = {}): PlanRequest {
  return { intention, policy: policy(), failedStrategies: [], history: [], modelConfigured: false, ...over };
}
