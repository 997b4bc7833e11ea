// Reads what a policy decision depends on for one mind: its rules, active commitments and
// live grants, in the shapes decidePolicy takes.

import type { Store } from '../store/index.ts';
import type { CommitmentRequirement, PolicyRule, ScopedGrant } from './policy/decide.ts';
import type { ParamLimits } from './policy/param-limits.ts';

export interface PolicyInputs {
  rules: PolicyRule[];
  commitments: CommitmentRequirement[];
  grants: ScopedGrant[];
}

export async function loadPolicyInputs(store: Store, mindId: string, now: Date, options: { grants: boolean }): Promise<PolicyInputs> {
  const [rules, commitments, grants] = await Promise.all([
    store.policyRules.listByMind(mindId),
    store.commitments.listActive(mindId),
    options.grants ? store.grants.listLive(mindId, now) : Promise.resolve([]),
  ]);
  return {
    rules: rules.map((r) => ({ id: r.id, capability: r.capability, target_pattern: r.targetPattern, decision: r.decision, approvers: r.approvers })),
    commitments: commitments.map((c) => ({ id: c.id, capability: c.capability, target_pattern: c.targetPattern, reason: c.reason })),
    grants: grants.map((g) => ({
      id: g.id,
      capability: g.capability,
      target_pattern: g.targetPattern,
      // Limits were checked by checkParamLimits when the grant was made.
      param_limits: g.paramLimits as unknown as ParamLimits,
      expires_at: g.expiresAt,
      operations_left: g.operationsLeft,
    })),
  };
}
