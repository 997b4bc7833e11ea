// Reads what a policy decision depends on for one mind: its rules, active commitments and
// live grants, in the shapes decidePolicy takes.

import type { CommitmentRecord, GrantRecord, PolicyRuleRecord, Store } from '../store/index.ts';
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
  return policyInputsOf(rules, commitments, grants);
}

/** Rules, active commitments and live grants, as read from the store, in the shapes decidePolicy takes. */
export function policyInputsOf(rules: readonly PolicyRuleRecord[], commitments: readonly CommitmentRecord[], grants: readonly GrantRecord[]): PolicyInputs {
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

/**
 * What one executor pass has already read about a mind: the mind itself and its policy inputs.
 * A pass decides about many steps of few minds; reading rules, commitments and grants once per
 * mind instead of once per step keeps the pass's reads proportional to its minds. A memo lives
 * for one pass only, so a policy change is seen by the next pass; spending a grant forgets the
 * mind's inputs at once, since their grant counts changed.
 */
export class PolicyMemo {
  readonly #minds = new Map<string, Promise<unknown>>();
  readonly #inputs = new Map<string, Promise<PolicyInputs>>();

  mind<T>(mindId: string, load: () => Promise<T>): Promise<T> {
    return memoised(this.#minds, mindId, load) as Promise<T>;
  }

  inputs(mindId: string, load: () => Promise<PolicyInputs>): Promise<PolicyInputs> {
    return memoised(this.#inputs, mindId, load);
  }

  forget(mindId: string): void {
    this.#inputs.delete(mindId);
  }
}

function memoised<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (!value) {
    value = load();
    // A failed read is not remembered: the next caller reads again.
    value.catch(() => cache.delete(key));
    cache.set(key, value);
  }
  return value;
}
