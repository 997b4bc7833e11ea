// Capability requests and scoped grants. A mind asks for temporary, bounded access (one
// capability, a target pattern, parameter limits, a duration and an operation cap) with its
// reasons stated; an operator grants (possibly narrower) or denies. Operator attention is a
// resource, so a mind has a cap on open requests.

import { addSeconds } from '../core/clock.ts';
import { isOperatorName } from '../core/operator.ts';
import type { JsonObject, ValidationIssue } from '../core/plan.ts';
import type { EventType } from '../core/vocabulary.ts';
import type { CapabilityRegistry } from './registry.ts';
import { checkTargetPattern, patternWithin } from './policy/target-pattern.ts';
import { moveWithEvent } from './call-records.ts';
import type { CapabilityRequestRecord, NewEvent } from '../store/index.ts';
import type { ServiceContext } from './service.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export const MAX_GRANT_SECONDS = 7 * 24 * 3600;
export const MAX_GRANT_OPERATIONS = 1000;

export interface CapabilityRequestInput {
  mindId: string;
  intentionId?: string | null;
  origin: string;
  capability: string;
  targetPattern: string;
  paramLimits?: JsonObject;
  durationSeconds: number;
  maxOperations: number;
  reason: string;
  risk: string;
  mitigation: string;
  fallback: string;
  alternatives?: string[];
  /** Groups requests in the approval centre; defaults to the intention. */
  batchKey?: string;
}

/** What an operator grants; each field defaults to what was requested. */
export interface GrantScope {
  targetPattern?: string;
  paramLimits?: JsonObject;
  durationSeconds?: number;
  maxOperations?: number;
}

export type RequestAnswer =
  | { status: 'raised'; requestId: string; batchKey: string }
  | { status: 'capped'; open: number; cap: number }
  | { status: 'invalid'; issues: ValidationIssue[] }
  | { status: 'granted'; requestId: string; grantId: string; expiresAt: Date; operations: number }
  | { status: 'denied' | 'withdrawn'; requestId: string }
  | { status: 'revoked'; grantId: string }
  | { status: 'refused'; code: ErrorCode; message: string };

function issue(path: string, message: string, code: ErrorCode = 'invalid_request'): ValidationIssue {
  return { code, path, message };
}

function checkScope(registry: CapabilityRegistry, scope: Required<GrantScope>, capability: string): ValidationIssue[] {
  const definition = registry.get(capability);
  const issues: ValidationIssue[] = [];
  if (!definition) issues.push(issue('capability', `no capability named "${capability}"`, 'unknown_capability'));
  else if (definition.locked) issues.push(issue('capability', `${capability} is locked and cannot be granted`, 'locked_capability'));
  const pattern = checkTargetPattern(scope.targetPattern);
  if (pattern) issues.push(issue('target_pattern', pattern));
  if (definition) issues.push(...registry.checkParamLimits(capability, scope.paramLimits, 'param_limits'));
  if (!Number.isInteger(scope.durationSeconds) || scope.durationSeconds < 1 || scope.durationSeconds > MAX_GRANT_SECONDS)
    issues.push(issue('duration_seconds', `duration must be a whole number of seconds from 1 to ${MAX_GRANT_SECONDS}`));
  if (!Number.isInteger(scope.maxOperations) || scope.maxOperations < 1 || scope.maxOperations > MAX_GRANT_OPERATIONS)
    issues.push(issue('max_operations', `the operation cap must be a whole number from 1 to ${MAX_GRANT_OPERATIONS}`));
  return issues;
}

export async function requestCapability(ctx: ServiceContext, input: CapabilityRequestInput): Promise<RequestAnswer> {
  const issues = checkScope(
    ctx.registry,
    { targetPattern: input.targetPattern, paramLimits: input.paramLimits ?? {}, durationSeconds: input.durationSeconds, maxOperations: input.maxOperations },
    input.capability,
  );
  for (const field of ['reason', 'risk', 'mitigation', 'fallback'] as const) {
    if (typeof input[field] !== 'string' || input[field].trim() === '') issues.push(issue(field, `a capability request states its ${field}`));
  }
  if (input.alternatives !== undefined && (!Array.isArray(input.alternatives) || input.alternatives.some((a) => typeof a !== 'string')))
    issues.push(issue('alternatives', 'alternatives are a list of strings'));
  if (issues.length > 0) return { status: 'invalid', issues };

  const mind = await ctx.store.minds.get(input.mindId);
  if (!mind) return { status: 'refused', code: 'unknown_mind', message: `no mind with id ${input.mindId}` };
  const batchKey = input.batchKey ?? input.intentionId ?? '';
  // The request and the event that tells of it commit together, as every move below does: a
  // request no event names would never be told to an operator, nor wake the step waiting on it.
  const created = await moveWithEvent(
    ctx.store,
    (tx) =>
      tx.capabilityRequests.createWithinCap(
        {
          mindId: input.mindId,
          intentionId: input.intentionId ?? null,
          origin: input.origin,
          capability: input.capability,
          targetPattern: input.targetPattern,
          paramLimits: input.paramLimits ?? {},
          durationSeconds: input.durationSeconds,
          maxOperations: input.maxOperations,
          reason: input.reason,
          risk: input.risk,
          mitigation: input.mitigation,
          fallback: input.fallback,
          alternatives: input.alternatives ?? [],
          batchKey,
        },
        ctx.maxOpenRequests,
      ),
    (raised) =>
      event('capability_requested', input.mindId, input.intentionId ?? null, {
        request_id: raised.id,
        capability: raised.capability,
        target_pattern: raised.targetPattern,
        duration_seconds: raised.durationSeconds,
        max_operations: raised.maxOperations,
        batch_key: batchKey,
        origin: input.origin,
      }),
  );
  if (!created) {
    return { status: 'capped', open: await ctx.store.capabilityRequests.countOpen(input.mindId), cap: ctx.maxOpenRequests };
  }
  return { status: 'raised', requestId: created.id, batchKey };
}

/** Grants (within an optionally narrowed scope) or denies an open request. */
export async function decideRequest(ctx: ServiceContext, requestId: string, operator: string, decision: { grant: GrantScope } | { deny: string }): Promise<RequestAnswer> {
  if (!isOperatorName(operator)) return { status: 'refused', code: 'invalid_operator', message: 'a decision needs the name of the operator making it' };
  const request = await ctx.store.capabilityRequests.get(requestId);
  if (!request) return { status: 'refused', code: 'not_found', message: `no capability request ${requestId}` };
  if (request.status !== 'open') return { status: 'refused', code: 'not_open', message: `capability request ${requestId} is ${request.status}, not open` };
  const now = ctx.clock.now();

  if ('deny' in decision) {
    const denied = await moveWithEvent(
      ctx.store,
      (tx) => tx.capabilityRequests.transition(request.id, 'open', 'denied', { decidedBy: operator, decidedAt: now }),
      event('capability_request_denied', request.mindId, request.intentionId, { request_id: request.id, operator, note: decision.deny }),
    );
    if (!denied) return { status: 'refused', code: 'conflict', message: 'the request was decided or withdrawn meanwhile' };
    return { status: 'denied', requestId: request.id };
  }

  const scope: Required<GrantScope> = {
    targetPattern: decision.grant.targetPattern ?? request.targetPattern,
    paramLimits: decision.grant.paramLimits ?? request.paramLimits,
    durationSeconds: decision.grant.durationSeconds ?? request.durationSeconds,
    maxOperations: decision.grant.maxOperations ?? request.maxOperations,
  };
  const issues = [...checkScope(ctx.registry, scope, request.capability), ...checkNarrowing(request, scope)];
  if (issues.length > 0) return { status: 'invalid', issues };

  // Grant and request move together: of two operators granting at once, the one whose request
  // update loses rolls its grant back.
  try {
    return await ctx.store.transaction(async (tx) => {
      const grant = await tx.grants.create({
        mindId: request.mindId,
        requestId: request.id,
        capability: request.capability,
        targetPattern: scope.targetPattern,
        paramLimits: scope.paramLimits,
        expiresAt: addSeconds(now, scope.durationSeconds),
        operations: scope.maxOperations,
        grantedBy: operator,
      });
      const granted = await tx.capabilityRequests.transition(request.id, 'open', 'granted', { decidedBy: operator, decidedAt: now, grantId: grant.id });
      if (!granted) throw new LostDecision();
      await tx.events.append({
        type: 'grant_created',
        mindId: request.mindId,
        intentionId: request.intentionId,
        data: {
          request_id: request.id,
          grant_id: grant.id,
          capability: grant.capability,
          target_pattern: grant.targetPattern,
          expires_at: grant.expiresAt.toISOString(),
          operations: grant.operationsLeft,
          operator,
        },
      });
      return { status: 'granted', requestId: request.id, grantId: grant.id, expiresAt: grant.expiresAt, operations: grant.operationsLeft } as const;
    });
  } catch (error) {
    if (error instanceof LostDecision) return { status: 'refused', code: 'conflict', message: 'the request was decided or withdrawn meanwhile' };
    throw error;
  }
}

class LostDecision extends Error {}

/**
 * A grant may narrow what the mind asked for, never widen it: an operator who wants to give more
 * than was asked should see a request for it, with its reason and risk, first.
 */
function checkNarrowing(request: CapabilityRequestRecord, scope: Required<GrantScope>): ValidationIssue[] {
  const wider = 'wider_than_requested';
  const issues: ValidationIssue[] = [];
  if (!patternWithin(scope.targetPattern, request.targetPattern))
    issues.push(issue('target_pattern', `"${scope.targetPattern}" may match targets outside the requested "${request.targetPattern}"`, wider));
  if (scope.durationSeconds > request.durationSeconds) issues.push(issue('duration_seconds', `${scope.durationSeconds} s is longer than the ${request.durationSeconds} s requested`, wider));
  if (scope.maxOperations > request.maxOperations) issues.push(issue('max_operations', `${scope.maxOperations} operations are more than the ${request.maxOperations} requested`, wider));
  return issues;
}

export async function withdrawRequest(ctx: ServiceContext, requestId: string, mindId: string): Promise<RequestAnswer> {
  const request = await ctx.store.capabilityRequests.get(requestId);
  if (!request) return { status: 'refused', code: 'not_found', message: `no capability request ${requestId}` };
  if (request.mindId !== mindId) return { status: 'refused', code: 'not_owner', message: 'only the mind that raised a request may withdraw it' };
  const withdrawn = await moveWithEvent(
    ctx.store,
    (tx) => tx.capabilityRequests.transition(request.id, 'open', 'withdrawn', { decidedAt: ctx.clock.now() }),
    event('capability_request_withdrawn', request.mindId, request.intentionId, { request_id: request.id }),
  );
  if (!withdrawn) return { status: 'refused', code: 'not_open', message: `capability request ${requestId} is no longer open` };
  return { status: 'withdrawn', requestId: request.id };
}

/**
 * Moves every active grant past its expiry to `expired`; returns how many moved. A grant past its
 * expiry is never honoured either way (consume and listLive check the time); this makes its
 * status say so, for lists by status and for an operator reading it. No event: the vocabulary
 * has none for it, and the grant's own expiry time tells when it ended.
 */
export async function expireGrants(ctx: ServiceContext): Promise<number> {
  return (await ctx.store.grants.expireDue(ctx.clock.now())).length;
}

export async function revokeGrant(ctx: ServiceContext, grantId: string, operator: string): Promise<RequestAnswer> {
  if (!isOperatorName(operator)) return { status: 'refused', code: 'invalid_operator', message: 'a revocation needs the name of the operator making it' };
  const revoked = await moveWithEvent(
    ctx.store,
    (tx) => tx.grants.revoke(grantId, operator),
    (moved) => event('grant_revoked', moved.mindId, null, { grant_id: moved.id, operator }),
  );
  if (!revoked) {
    const grant = await ctx.store.grants.get(grantId);
    if (!grant) return { status: 'refused', code: 'not_found', message: `no grant ${grantId}` };
    const expired = grant.status === 'active' && grant.expiresAt.getTime() <= ctx.clock.now().getTime();
    return { status: 'refused', code: 'not_active', message: `grant ${grantId} is ${expired ? `expired (at ${grant.expiresAt.toISOString()})` : grant.status}` };
  }
  return { status: 'revoked', grantId: revoked.id };
}

function event(type: EventType, mindId: string, intentionId: string | null, data: JsonObject): NewEvent {
  return { type, mindId, intentionId, data };
}
