// Operator decisions: approvals, capability requests, grants and blocked steps. Each goes
// through the capability service (or the executor's release), which records the deciding
// operator's name; this module only finds the thing, checks the caller may reach it, and turns
// the service's refusals into typed errors.

import type { Principal } from '../access/permissions.ts';
import type { ApprovalAnswer } from '../capabilities/approvals.ts';
import type { RequestAnswer } from '../capabilities/capability-requests.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import { InputError } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { fourEyesRefusal } from '../core/operator.ts';
import type { ApprovalStatus, CapabilityRequestStatus, GrantStatus } from '../core/vocabulary.ts';
import { releaseStep } from '../execution/recovery.ts';
import type { ApprovalRecord, CapabilityRequestRecord, GrantRecord, StepRecord, Store } from '../store/index.ts';
import { Conflict, NotFound, invalid, refusalOf } from './errors.ts';
import { inReach, mindFilter } from './minds.ts';
import { decodeCursor, pageOf, pageSize, type Page, type PageRequest } from './pages.ts';
import { findPlan } from './plans.ts';
import type { ErrorCode } from '../core/error-codes.ts';

/** How many decided items the approval and request centres show beside the open ones. */
export const HISTORY_SIZE = 20;
/** Open items a centre lists at most; more than this many waiting is a problem of its own. */
const CENTRE_SIZE = 500;

export interface Batch<T> {
  batch_key: string;
  items: T[];
}

export interface Centre<T> {
  groups: Batch<T>[];
  history: T[];
}

/** Groups items by batch key, groups ordered by their oldest item (items are oldest first). */
export function groupByBatch<T extends { batchKey: string }>(items: readonly T[]): Batch<T>[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.batchKey);
    if (group) group.push(item);
    else groups.set(item.batchKey, [item]);
  }
  return [...groups].map(([batch_key, grouped]) => ({ batch_key, items: grouped }));
}

const DECIDED_APPROVALS: readonly ApprovalStatus[] = ['approved', 'denied', 'executed', 'failed', 'expired', 'withdrawn'];
const DECIDED_REQUESTS: readonly CapabilityRequestStatus[] = ['granted', 'denied', 'withdrawn', 'expired'];

export async function approvalCentre(
  store: Store,
  capabilities: CapabilityService,
  principal: Principal,
  input: { status?: ApprovalStatus | undefined; mind?: string | undefined },
): Promise<Centre<ApprovalRecord>> {
  // Expired requests are closed first, so the centre never offers one that can no longer be approved.
  await capabilities.expireApprovals();
  const mindId = await mindFilter(store, principal, input.mind);
  const scope = mindId !== undefined ? { mindId } : {};
  const open = await store.approvals.list({ ...scope, status: input.status ?? 'pending', limit: CENTRE_SIZE });
  const history = await store.approvals.listRecent({ ...scope, status: DECIDED_APPROVALS, limit: HISTORY_SIZE });
  return { groups: groupByBatch(open), history };
}

export async function requestCentre(store: Store, principal: Principal, input: { status?: CapabilityRequestStatus | undefined; mind?: string | undefined }): Promise<Centre<CapabilityRequestRecord>> {
  const mindId = await mindFilter(store, principal, input.mind);
  const scope = mindId !== undefined ? { mindId } : {};
  const open = await store.capabilityRequests.list({ ...scope, status: input.status ?? 'open', limit: CENTRE_SIZE });
  const history = await store.capabilityRequests.listRecent({ ...scope, status: DECIDED_REQUESTS, limit: HISTORY_SIZE });
  return { groups: groupByBatch(open), history };
}

/** Turns a service refusal about the thing at `path` into the error a surface reports. */
function refusal(answer: { code: ErrorCode; message: string }, path = 'id'): InputError {
  return refusalOf(answer.code, answer.code === 'invalid_operator' ? 'operator' : path, answer.message);
}

async function findApproval(store: Store, principal: Principal, id: string): Promise<ApprovalRecord> {
  return inReach(principal, await store.approvals.get(id), 'id', `no approval request ${id}`);
}

export interface Decided {
  approval: ApprovalRecord;
  outcome: Exclude<ApprovalAnswer, { status: 'refused' }>;
}

export async function decideApproval(
  store: Store,
  capabilities: CapabilityService,
  principal: Principal,
  id: string,
  decision: 'approve' | 'deny',
  note?: string,
  /** The digest of the request as the approver saw it (approving only): refused when it was amended since. */
  seenDigest?: string,
): Promise<Decided> {
  const found = await findApproval(store, principal, id);
  if (decision === 'approve') {
    // The four-eyes rules with names compared normalised (src/core/operator.ts), before the service decides.
    const refused = fourEyesRefusal(found, principal.operator);
    if (refused) throw new Conflict('id', refused.message, refused.code);
  }
  const answer = decision === 'approve' ? await capabilities.approve(id, principal.operator, note, seenDigest) : await capabilities.deny(id, principal.operator, note);
  // An action amended since the approver looked is a refusal of the digest they sent, as amending's is.
  if (answer.status === 'refused') throw refusal(answer, answer.code === 'changed' ? 'digest' : 'id');
  return { approval: (await store.approvals.get(id))!, outcome: answer };
}

/**
 * Names the author of a pending request raised without one (four eyes, src/core/operator.ts):
 * the principal's operator names it and may not approve it afterwards.
 */
export async function nameApprovalAuthor(
  store: Store,
  capabilities: CapabilityService,
  principal: Principal,
  id: string,
  author: string,
  note?: string,
): Promise<{ approval: ApprovalRecord; outcome: Extract<ApprovalAnswer, { status: 'author_named' }> }> {
  await findApproval(store, principal, id);
  const answer = await capabilities.nameAuthor(id, author, principal.operator, note);
  if (answer.status === 'refused') throw answer.code === 'invalid_author' ? invalid(answer.code, 'author', answer.message) : refusal(answer);
  if (answer.status !== 'author_named') throw new Error(`naming an author answered ${answer.status}`);
  return { approval: (await store.approvals.get(id))!, outcome: answer };
}

async function findRequest(store: Store, principal: Principal, id: string): Promise<CapabilityRequestRecord> {
  return inReach(principal, await store.capabilityRequests.get(id), 'id', `no capability request ${id}`);
}

export interface GrantInput {
  duration_seconds?: number | undefined;
  uses?: number | undefined;
  target_pattern?: string | undefined;
}

/** The service names scope fields after its own vocabulary; the surfaces name `uses`. */
const SCOPE_PATHS: Record<string, string> = { max_operations: 'uses', duration_seconds: 'duration_seconds', target_pattern: 'target_pattern' };

function answerError(answer: RequestAnswer): InputError | null {
  if (answer.status === 'refused') return refusal(answer);
  if (answer.status === 'invalid') {
    return new InputError(answer.issues.map((i) => ({ code: i.code, message: i.message, path: SCOPE_PATHS[i.path] ?? i.path })));
  }
  return null;
}

export async function grantRequest(
  store: Store,
  capabilities: CapabilityService,
  principal: Principal,
  id: string,
  input: GrantInput,
): Promise<{ request: CapabilityRequestRecord; grant: GrantRecord }> {
  await findRequest(store, principal, id);
  const answer = await capabilities.grant(id, principal.operator, {
    ...(input.duration_seconds !== undefined ? { durationSeconds: input.duration_seconds } : {}),
    ...(input.uses !== undefined ? { maxOperations: input.uses } : {}),
    ...(input.target_pattern !== undefined ? { targetPattern: input.target_pattern } : {}),
  });
  const error = answerError(answer);
  if (error) throw error;
  if (answer.status !== 'granted') throw new Conflict('id', `the request ended ${answer.status}`);
  return { request: (await store.capabilityRequests.get(id))!, grant: (await store.grants.get(answer.grantId))! };
}

export async function denyRequest(store: Store, capabilities: CapabilityService, principal: Principal, id: string, note?: string): Promise<{ request: CapabilityRequestRecord }> {
  await findRequest(store, principal, id);
  const error = answerError(await capabilities.denyRequest(id, principal.operator, note));
  if (error) throw error;
  return { request: (await store.capabilityRequests.get(id))! };
}

/** A mind takes back its own pending approval request; an agent reaches only its own mind's. */
export async function withdrawApproval(store: Store, capabilities: CapabilityService, principal: Principal, id: string): Promise<{ approval: ApprovalRecord }> {
  const approval = await findApproval(store, principal, id);
  const answer = await capabilities.withdraw(id, approval.mindId);
  if (answer.status === 'refused') throw refusal(answer);
  return { approval: (await store.approvals.get(id))! };
}

/** A mind takes back its own open request; an agent reaches only its own mind's. */
export async function withdrawRequest(store: Store, capabilities: CapabilityService, principal: Principal, id: string): Promise<{ request: CapabilityRequestRecord }> {
  const request = await findRequest(store, principal, id);
  const error = answerError(await capabilities.withdrawRequest(id, request.mindId));
  if (error) throw error;
  return { request: (await store.capabilityRequests.get(id))! };
}

export async function listGrants(store: Store, principal: Principal, input: PageRequest & { mind?: string | undefined; status?: GrantStatus | undefined }): Promise<Page<GrantRecord>> {
  const limit = pageSize(input);
  const beforeId = input.cursor === undefined ? undefined : decodeCursor('id', input.cursor);
  const mindId = await mindFilter(store, principal, input.mind);
  // Grants past their expiry are closed first, so a list by status never shows one as active.
  await store.grants.expireDue(store.clock.now());
  const rows = await store.grants.listPage({
    ...(mindId !== undefined ? { mindId } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(beforeId !== undefined ? { beforeId } : {}),
    limit: limit + 1,
  });
  return pageOf(rows, limit, (g) => g.id, 'id');
}

export async function revokeGrant(store: Store, capabilities: CapabilityService, principal: Principal, id: string): Promise<{ grant: GrantRecord }> {
  inReach(principal, await store.grants.get(id), 'id', `no grant ${id}`);
  const error = answerError(await capabilities.revokeGrant(id, principal.operator));
  if (error) throw error;
  return { grant: (await store.grants.get(id))! };
}

/** Releases a blocked step of a plan; the step is named by its key or its id. */
export async function releasePlanStep(store: Store, principal: Principal, planId: string, stepRef: string, note?: string): Promise<{ step: StepRecord }> {
  const plan = await findPlan(store, principal, planId);
  const step = plan.steps.find((s) => s.key === stepRef || (isId(stepRef) && s.id === stepRef));
  if (!step) throw new NotFound('step', `plan ${plan.id} has no step "${stepRef}" (steps: ${plan.steps.map((s) => s.key).join(', ')})`);
  const released = await releaseStep(store, step.id, principal.operator);
  if (!released.released) throw refusal(released, 'step');
  if (note) {
    await store.events.append({
      type: 'operator_note',
      mindId: plan.mindId,
      intentionId: plan.intentionId,
      planId: plan.id,
      stepId: step.id,
      data: { operator: principal.operator, note, on: 'release', key: step.key },
    });
  }
  return { step: released.step };
}
