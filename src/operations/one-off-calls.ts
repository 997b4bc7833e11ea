// One capability call on an operator's word, outside any plan: previewed (the decision it would
// meet, recording nothing) or made through policy (it runs, waits for approval, or is refused).
// The caller is always its author, so under four eyes someone else approves it.

import type { Principal } from '../access/permissions.ts';
import type { InvokeRequest, InvokeResult, Preview } from '../capabilities/invocation.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { Store } from '../store/index.ts';
import { resolveMind } from './minds.ts';

export interface OneOffCall {
  capability: string;
  params: unknown;
  /** Ask an operator even where policy allows. */
  require_approval?: boolean | undefined;
  /** The reason, shown to an approver. */
  why?: string | undefined;
}

function requestOf(mindId: string, principal: Principal, call: OneOffCall): InvokeRequest {
  return {
    mindId,
    capability: call.capability,
    params: call.params,
    origin: `operator:${principal.operator}`,
    authoredBy: principal.operator,
    requireApproval: call.require_approval ?? false,
    explanation: {
      what: `${call.capability} with ${JSON.stringify(call.params)}`,
      why: call.why ?? `one-off call by ${principal.operator}`,
      expected_outcome: '',
      side_effects: '',
      alternatives: [],
    },
  };
}

/** The decision the call would meet now and what it would need; records nothing. */
export async function previewOneOffCall(store: Store, capabilities: CapabilityService, principal: Principal, mindRef: string, call: OneOffCall): Promise<Preview> {
  const mind = await resolveMind(store, principal, mindRef);
  return capabilities.preview(requestOf(mind.id, principal, call));
}

/** Makes the call through policy. A refusal is a result (`denied`, `failed`), not an error: it is recorded like any call. */
export async function invokeOnce(store: Store, capabilities: CapabilityService, principal: Principal, mindRef: string, call: OneOffCall): Promise<InvokeResult> {
  const mind = await resolveMind(store, principal, mindRef);
  return capabilities.invoke(requestOf(mind.id, principal, call));
}
