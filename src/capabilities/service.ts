// The capability service: the only door through which Praxis acts. The executor, the CLI, the
// API and the MCP server all come through here; nothing else calls an implementation.

import type { Clock } from '../core/clock.ts';
import { addSeconds } from '../core/clock.ts';
import type { JsonObject } from '../core/plan.ts';
import { newId } from '../core/ids.ts';
import type { NewEvent, Store } from '../store/index.ts';
import { amendApproval, type AmendmentInput } from './amendments.ts';
import { decideApproval, denyApproval, expireApprovals, nameApprovalAuthor, performApprovedAction, unverifiableApprovals, withdrawApproval, type ApprovalAnswer } from './approvals.ts';
import { decideRequest, expireGrants, requestCapability, revokeGrant, withdrawRequest, type CapabilityRequestInput, type GrantScope, type RequestAnswer } from './capability-requests.ts';
import type { CapabilityImplementations } from './implementation.ts';
import type { Denied, Executed, Failed, InvokeRequest, InvokeResult, Pending, Preview } from './invocation.ts';
import { act, allow, performAllowed, type Acted, type Allowed } from './perform.ts';
import { loadPolicyInputs, type PolicyMemo } from './policy-inputs.ts';
import { callEvent, mergeRecords, noRecords, writeRecords, type CallRecords } from './call-records.ts';
import { decidePolicy, type PolicyVerdict } from './policy/decide.ts';
import { approvalDigest, type ApprovalKey } from './policy/action-digest.ts';
import type { CapabilityRegistry } from './registry.ts';
import type { CapabilityDefinition } from './definition.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export interface CapabilityServiceOptions {
  /** How long an approval request stays open. Default one hour. */
  approvalTtlSeconds?: number;
  /** Open capability requests a mind may have at once. Default five. */
  maxOpenRequests?: number;
  /**
   * The daemon secret approval digests are keyed with (loadApprovalKey, src/access/daemon-secret.ts).
   * Every process acting on one database must hold the same one. Without it, requests get the
   * unkeyed digest of the action alone, which binds an approval to its action but proves nothing
   * against someone who can write the database; a keyed service refuses those.
   */
  approvalKey?: ApprovalKey | null;
}

export interface ServiceContext {
  store: Store;
  registry: CapabilityRegistry;
  implementations: CapabilityImplementations;
  clock: Clock;
  approvalTtlSeconds: number;
  maxOpenRequests: number;
  approvalKey: ApprovalKey | null;
}

/** A call that will not act now: refused, or waiting for an approval. Its records are still to be written. */
export interface Settled {
  status: 'settled';
  result: Denied | Failed | Pending;
  records: CallRecords;
}

/** A call whose parameters passed the schema, with its derived target. */
interface CheckedCall {
  definition: CapabilityDefinition;
  params: JsonObject;
  target: string;
}

export class CapabilityService {
  readonly #ctx: ServiceContext;

  constructor(store: Store, registry: CapabilityRegistry, implementations: CapabilityImplementations, options: CapabilityServiceOptions = {}) {
    this.#ctx = {
      store,
      registry,
      implementations,
      clock: store.clock,
      approvalTtlSeconds: options.approvalTtlSeconds ?? 3600,
      maxOpenRequests: options.maxOpenRequests ?? 5,
      approvalKey: options.approvalKey ?? null,
    };
  }

  get context(): ServiceContext {
    return this.#ctx;
  }

  /** Validates, decides and then executes, raises an approval request, or refuses; records it all. */
  async invoke(request: InvokeRequest): Promise<InvokeResult> {
    const authorisation = await this.authorise(request);
    if (authorisation.status === 'allowed') return performAllowed(this.#ctx.store, this.#ctx.implementations, authorisation);
    await this.#ctx.store.transaction((tx) => writeRecords(tx, authorisation.records));
    return authorisation.result;
  }

  /**
   * Validates and decides, without acting and without writing the decision down: the answer
   * carries its records for the caller to commit (see call-records.ts). An allowed call is acted
   * on with `act`; anything else is settled already (refused, or an approval request to raise).
   * The one write made here is spending a grant, which must happen before anyone acts on it.
   */
  async authorise(request: InvokeRequest, options: { memo?: PolicyMemo } = {}): Promise<Allowed | Settled> {
    const { store } = this.#ctx;
    const checked = this.#check(request);
    if (!checked.ok) {
      const refusal = this.#refusal(request, { capability: request.capability, target: '', params: {} }, checked.code, checked.message);
      return {
        status: 'settled',
        result: { status: 'failed', code: checked.code, error: checked.message, retrySafe: false, executionId: refusal.executionId, issues: checked.issues },
        records: refusal.records,
      };
    }
    const call = checked.call;
    const refusal = await this.#mindRefusal(request, options.memo);
    if (refusal) return this.#refuse(request, call, refusal, []);

    // A grant may be spent by a concurrent call between deciding and consuming it: decide again,
    // and after three lost races decide without grants (so the loop always ends).
    const decisions: NewEvent[] = [];
    for (let round = 0; ; round += 1) {
      const verdict = await this.#decide(request, call, { ignoreGrants: round >= 3, ...(options.memo ? { memo: options.memo } : {}) });
      decisions.push(
        callEvent('policy_decision', request, {
          capability: call.definition.name,
          target: call.target,
          decision: verdict.decision,
          source: verdict.source,
          reason: verdict.reason,
        }),
      );
      if (verdict.decision !== 'allow') return this.#unallowed(request, call, verdict, decisions);
      if (verdict.grant) {
        options.memo?.forget(request.mindId);
        if (!(await store.grants.consume(verdict.grant.id, this.#ctx.clock.now()))) continue;
      }
      decisions.push(callEvent('tool_authorised', request, { capability: call.definition.name, target: call.target, source: verdict.source, grant_id: verdict.grant?.id ?? null }));
      // Written out, not `{ ...call, verdict, grantId }`: a copy that gains properties is Node 20's slow path (perform.ts, executionOf).
      return allow(request, { definition: call.definition, target: call.target, params: call.params, verdict, grantId: verdict.grant?.id ?? null }, decisions);
    }
  }

  /**
   * Invokes a call that is never written ahead (a read or an idempotent action) and hands its
   * records back instead of writing them, for the caller to commit with its own move.
   */
  async invokeDeferred(request: InvokeRequest, options: { memo?: PolicyMemo } = {}): Promise<{ result: InvokeResult; records: CallRecords }> {
    const authorisation = await this.authorise(request, options);
    if (authorisation.status === 'settled') return { result: authorisation.result, records: authorisation.records };
    if (authorisation.writeAhead) throw new Error(`${request.capability} is written ahead of its act; its records cannot wait for the caller`);
    const acted = await this.act(authorisation);
    return { result: acted.result, records: mergeRecords(authorisation.records, acted.records) };
  }

  /** Acts on an allowed call; a written-ahead one only after its records were committed. */
  act(allowed: Allowed): Promise<Acted> {
    return act(this.#ctx.implementations, allowed);
  }

  /** The decision an invocation would meet, and what it would need. Records nothing. */
  async preview(request: InvokeRequest): Promise<Preview> {
    const checked = this.#check(request);
    if (!checked.ok) {
      return { capability: request.capability, target: '', decision: 'invalid', needs: 'refused', issues: checked.issues };
    }
    const verdict = await this.#decide(request, checked.call);
    const needs = verdict.decision === 'deny' ? 'refused' : verdict.decision === 'allow' ? 'nothing' : request.allowPrompt === false ? 'refused' : verdict.approvers > 1 ? 'two_approvals' : 'approval';
    return { capability: checked.call.definition.name, target: checked.call.target, decision: verdict.decision, needs, verdict, issues: [] };
  }

  /** `seenDigest`: the digest the approver was shown; a request amended since is refused (`changed`). */
  approve(approvalId: string, operator: string, note?: string, seenDigest?: string): Promise<ApprovalAnswer> {
    return decideApproval(this.#ctx, approvalId, operator, note, seenDigest);
  }

  /**
   * Performs an approved one-off action (not a plan step's) in this process: what an executor
   * serving the mind's host does when woken by the approval. Undefined when it is not approved,
   * or another executor took it up first. `claimant`: the executor's name, recorded on the claim.
   */
  performApproved(approvalId: string, claimant = ''): Promise<Executed | Failed | Denied | undefined> {
    return performApprovedAction(this.#ctx, approvalId, claimant);
  }

  /**
   * Amends the action of a pending request (amendments.ts): validated, decided by policy again,
   * re-signed and recorded beside the original; `operator` becomes an author and cannot approve it.
   */
  amend(approvalId: string, input: AmendmentInput, operator: string): Promise<ApprovalAnswer> {
    return amendApproval(this.#ctx, approvalId, input, operator);
  }

  /** Names the author of a pending request that records none; that operator may not approve it then. */
  nameAuthor(approvalId: string, author: string, operator: string, note?: string): Promise<ApprovalAnswer> {
    return nameApprovalAuthor(this.#ctx, approvalId, author, operator, note);
  }

  deny(approvalId: string, operator: string, note?: string): Promise<ApprovalAnswer> {
    return denyApproval(this.#ctx, approvalId, operator, note);
  }

  withdraw(approvalId: string, mindId: string): Promise<ApprovalAnswer> {
    return withdrawApproval(this.#ctx, approvalId, mindId);
  }

  /** Open requests this service cannot verify for their digest's key (see unverifiableApprovals). */
  unverifiableApprovals(): Promise<{ otherKey: number; unkeyed: number; keyIds: string[] }> {
    return unverifiableApprovals(this.#ctx);
  }

  expireApprovals(): Promise<number> {
    return expireApprovals(this.#ctx);
  }

  /** Moves active grants past their expiry to `expired` (see expireGrants). */
  expireGrants(): Promise<number> {
    return expireGrants(this.#ctx);
  }

  requestCapability(input: CapabilityRequestInput): Promise<RequestAnswer> {
    return requestCapability(this.#ctx, input);
  }

  grant(requestId: string, operator: string, scope: GrantScope = {}): Promise<RequestAnswer> {
    return decideRequest(this.#ctx, requestId, operator, { grant: scope });
  }

  denyRequest(requestId: string, operator: string, note?: string): Promise<RequestAnswer> {
    return decideRequest(this.#ctx, requestId, operator, { deny: note ?? '' });
  }

  withdrawRequest(requestId: string, mindId: string): Promise<RequestAnswer> {
    return withdrawRequest(this.#ctx, requestId, mindId);
  }

  revokeGrant(grantId: string, operator: string): Promise<RequestAnswer> {
    return revokeGrant(this.#ctx, grantId, operator);
  }

  #check(request: InvokeRequest): { ok: true; call: CheckedCall } | { ok: false; code: ErrorCode; message: string; issues: Preview['issues'] } {
    const { registry } = this.#ctx;
    const definition = registry.get(request.capability);
    if (!definition) {
      const message = `no capability named "${request.capability}"`;
      return { ok: false, code: 'unknown_capability', message, issues: [{ code: 'unknown_capability', path: 'capability', message }] };
    }
    const issues = registry.checkParams(definition.name, request.params);
    if (issues.length > 0) {
      return { ok: false, code: 'invalid_params', message: issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues };
    }
    const params = request.params as JsonObject;
    return { ok: true, call: { definition, params, target: registry.targetOf(definition.name, params) } };
  }

  async #mindRefusal(request: InvokeRequest, memo?: PolicyMemo): Promise<Denied | null> {
    const mind = memo ? await memo.mind(request.mindId, () => this.#ctx.store.minds.get(request.mindId)) : await this.#ctx.store.minds.get(request.mindId);
    if (!mind) return { status: 'denied', code: 'unknown_mind', reason: `no mind with id ${request.mindId}` };
    if (mind.status !== 'active') return { status: 'denied', code: 'mind_disabled', reason: `mind ${mind.name} is disabled` };
    return null;
  }

  async #decide(request: InvokeRequest, call: CheckedCall, options: { ignoreGrants?: boolean; memo?: PolicyMemo } = {}): Promise<PolicyVerdict> {
    const now = this.#ctx.clock.now();
    const grants = !options.ignoreGrants;
    const load = () => loadPolicyInputs(this.#ctx.store, request.mindId, now, { grants });
    const inputs = options.memo && grants ? await options.memo.inputs(request.mindId, load) : await load();
    return decidePolicy({
      definition: call.definition,
      target: call.target,
      params: call.params,
      ...inputs,
      requireApproval: request.requireApproval ?? false,
      now,
    });
  }

  /** A deny is refused; an ask raises an approval request, except for a check, which never prompts. */
  #unallowed(request: InvokeRequest, call: CheckedCall, verdict: PolicyVerdict, decisions: NewEvent[]): Settled {
    if (verdict.decision === 'deny') {
      return this.#refuse(request, call, { status: 'denied', code: verdict.source === 'locked' ? 'locked' : 'policy_denied', reason: verdict.reason, verdict }, decisions);
    }
    if (request.allowPrompt === false) {
      return this.#refuse(
        request,
        call,
        { status: 'denied', code: 'not_observable', reason: `not observable: policy would ask an operator (${verdict.reason}), and a check never prompts`, verdict },
        decisions,
      );
    }
    return this.#raiseApproval(request, call, verdict, decisions);
  }

  #refuse(request: InvokeRequest, call: CheckedCall, denial: Denied, decisions: NewEvent[]): Settled {
    const action = { capability: call.definition.name, target: call.target, params: call.params };
    const refusal = this.#refusal(request, action, denial.code, denial.reason);
    return { status: 'settled', result: { ...denial, executionId: refusal.executionId }, records: mergeRecords({ ...noRecords(), events: decisions }, refusal.records) };
  }

  /** A refused call still leaves an execution record, so every call can be traced by origin. */
  #refusal(request: InvokeRequest, action: { capability: string; target: string; params: JsonObject }, code: ErrorCode, reason: string): { executionId: string; records: CallRecords } {
    const executionId = newId();
    const records = noRecords();
    records.executions.push({
      id: executionId,
      mindId: request.mindId,
      ...action,
      origin: request.origin,
      correlationId: request.correlationId ?? '',
      evidence: request.evidence ?? {},
      status: 'failed',
      error: `${code}: ${reason}`,
      retrySafe: false,
    });
    records.events.push(callEvent('tool_failed', request, { capability: action.capability, target: action.target, code, error: reason, execution_id: executionId }));
    return { executionId, records };
  }

  #raiseApproval(request: InvokeRequest, call: CheckedCall, verdict: PolicyVerdict, decisions: NewEvent[]): Settled {
    const { clock, approvalTtlSeconds } = this.#ctx;
    const raised = {
      id: newId(),
      mindId: request.mindId,
      capability: call.definition.name,
      target: call.target,
      params: call.params,
      origin: request.origin,
      correlationId: request.correlationId ?? '',
      evidence: request.evidence ?? {},
      explanation: (request.explanation ?? defaultExplanation(call)) as unknown as JsonObject,
      approversRequired: Math.max(1, verdict.approvers),
      authoredBy: request.authoredBy ?? '',
      batchKey: request.batchKey ?? request.correlationId ?? '',
      expiresAt: addSeconds(clock.now(), approvalTtlSeconds),
    };
    const approval = { ...raised, digest: approvalDigest(this.#ctx.approvalKey, { ...raised, authorNamedBy: '' }) };
    const data = { approval_id: approval.id, capability: call.definition.name, target: call.target, reason: verdict.reason };
    const records = { ...noRecords(), approvals: [approval] };
    records.events.push(...decisions, callEvent('tool_requested', request, data), callEvent('approval_requested', request, { ...data, approvers_required: approval.approversRequired }));
    return { status: 'settled', result: { status: 'pending', approvalId: approval.id, verdict }, records };
  }
}

function defaultExplanation(call: CheckedCall) {
  return {
    what: `${call.definition.name} on ${call.target}`,
    why: '',
    expected_outcome: '',
    side_effects: call.definition.readOnly ? 'none: read-only' : 'changes the system',
    alternatives: [],
  };
}
