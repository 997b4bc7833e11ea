// Checking a plan draft without a store: the same assessment a submitted plan meets (shape,
// capabilities and parameters, dependencies, the size estimate), for `praxis validate`. Kept
// apart from the other plan operations so checking a file loads nothing that opens a store.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { assessProposal, type Assessment } from '../planning/assess.ts';

export type { Assessment };

export function checkPlanDraft(registry: CapabilityRegistry, draft: unknown): Assessment {
  return assessProposal(draft, registry);
}
