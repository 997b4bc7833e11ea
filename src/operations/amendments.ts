// An operator's amendment of a pending approval request, addressed through its mind
// (`/minds/{mind}/approvals/{id}/amend`): the request must belong to that mind, or it is
// answered exactly as one that does not exist. The capability service validates, decides and
// records (src/capabilities/amendments.ts); this module turns its refusals into typed errors.

import type { Principal } from '../access/permissions.ts';
import type { ApprovalAnswer } from '../capabilities/approvals.ts';
import type { AmendmentInput } from '../capabilities/amendments.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import { InputError } from '../core/errors.ts';
import type { ApprovalRecord, Store } from '../store/index.ts';
import { NotFound, invalid, refusalOf } from './errors.ts';
import { inReach, resolveMind } from './minds.ts';

/** Refusals about what the operator typed (answered 400); the rest are about the request as it stands. */
const INPUT_CODES = new Set(['invalid_params', 'invalid_reason', 'target_mismatch', 'invalid_operator']);

export interface Amended {
  approval: ApprovalRecord;
  outcome: Extract<ApprovalAnswer, { status: 'amended' }>;
}

export async function amendMindApproval(store: Store, capabilities: CapabilityService, principal: Principal, mindRef: string, id: string, input: AmendmentInput): Promise<Amended> {
  const mind = await resolveMind(store, principal, mindRef);
  const approval = await store.approvals.get(id);
  if (!approval || approval.mindId !== mind.id) throw new NotFound('id', `no approval request ${id} for mind ${mind.name}`);
  return amend(store, capabilities, principal, id, input);
}

/** The same, addressed by the request's id alone (the CLI): the request must be within the caller's reach. */
export async function amendApproval(store: Store, capabilities: CapabilityService, principal: Principal, id: string, input: AmendmentInput): Promise<Amended> {
  inReach(principal, await store.approvals.get(id), 'id', `no approval request ${id}`);
  return amend(store, capabilities, principal, id, input);
}

async function amend(store: Store, capabilities: CapabilityService, principal: Principal, id: string, input: AmendmentInput): Promise<Amended> {
  const answer = await capabilities.amend(id, input, principal.operator);
  if (answer.status === 'refused') {
    if (answer.code === 'not_found') throw new NotFound('id', answer.message);
    if (INPUT_CODES.has(answer.code)) {
      if (answer.issues && answer.issues.length > 0) throw new InputError(answer.issues.map((i) => ({ code: i.code, path: i.path, message: i.message })));
      throw invalid(answer.code, answer.code === 'invalid_operator' ? 'operator' : 'params', answer.message);
    }
    // A stale digest is about the digest the caller sent; every other refusal about the request.
    throw refusalOf(answer.code, answer.code === 'changed' ? 'digest' : 'id', answer.message);
  }
  if (answer.status !== 'amended') throw new Error(`amending answered ${answer.status}`);
  return { approval: (await store.approvals.get(id))!, outcome: answer };
}
