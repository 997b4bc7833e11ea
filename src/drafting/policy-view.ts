// The planner's view of a mind's policy: the same decision the capability service would make
// for a call right now (rules, defaults, commitments, live grants), read once and answered
// without recording anything. A check of what policy says is never an invocation.

import { loadPolicyInputs, type PolicyInputs } from '../capabilities/policy-inputs.ts';
import { decidePolicy } from '../capabilities/policy/decide.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { JsonObject } from '../core/plan.ts';
import type { PolicyAnswer, PolicyView } from '../planning/planner-types.ts';
import type { Store } from '../store/index.ts';

/** A policy view over already loaded inputs, as of `now` (pure). */
export function policyViewOf(registry: CapabilityRegistry, inputs: PolicyInputs, now: Date): PolicyView {
  return {
    decide(capability: string, target: string, params: JsonObject): PolicyAnswer {
      const definition = registry.get(capability);
      if (!definition) return { decision: 'deny', source: 'unknown', reason: `${capability} is not a registered capability` };
      const verdict = decidePolicy({ definition, target, params, ...inputs, requireApproval: false, now });
      return { decision: verdict.decision, source: verdict.source, reason: verdict.reason };
    },
  };
}

/** Reads the mind's rules, commitments and live grants and returns the view as of the store's clock. */
export async function loadPolicyView(store: Store, registry: CapabilityRegistry, mindId: string): Promise<PolicyView> {
  const now = store.clock.now();
  return policyViewOf(registry, await loadPolicyInputs(store, mindId, now, { grants: true }), now);
}
