// The shapes that cross the capability service's door: what a caller asks and what it gets back.

import type { JsonObject, ValidationIssue } from '../core/plan.ts';
import type { PolicyDecision } from '../core/vocabulary.ts';
import type { PolicyVerdict } from './policy/decide.ts';
import type { ErrorCode } from '../core/error-codes.ts';

/** What an approver reads before deciding. */
export interface Explanation {
  what: string;
  why: string;
  expected_outcome: string;
  side_effects: string;
  alternatives: string[];
  /** What could go wrong; plan steps carry it, one-off calls may not. */
  risk?: string;
  /** What limits the damage: the observation that checks the result, the precondition that gates it. */
  mitigation?: string;
  /** What happens if it does not work. */
  fallback?: string;
}

export interface InvokeRequest {
  mindId: string;
  capability: string;
  /** Untrusted until checked against the capability's schema. */
  params: unknown;
  /** Who asked: `plan_step:<step id>` for a plan step, `operator:<name>` for a one-off call. */
  origin: string;
  /** The intention the call serves, when there is one. */
  correlationId?: string;
  /** Ids that justify the call (intention, plan, step). */
  evidence?: JsonObject;
  explanation?: Explanation;
  /** Ask an operator even where policy would allow. */
  requireApproval?: boolean;
  /** False for checks: they never raise an approval request; "would ask" answers not observable. */
  allowPrompt?: boolean;
  /** The operator who authored this action, if any: they can never approve it themselves. */
  authoredBy?: string;
  /** Groups approval requests in the approval centre; defaults to the correlation id. */
  batchKey?: string;
}

export interface Executed {
  status: 'executed';
  executionId: string;
  /** The `tool_executed` event that records the act (written with the call's records). */
  eventId: string;
  observation: JsonObject;
  summary: string;
  lowTrust: boolean;
  verdict: PolicyVerdict;
}
export interface Pending {
  status: 'pending';
  approvalId: string;
  verdict: PolicyVerdict;
}
export interface Denied {
  status: 'denied';
  /** `policy_denied`, `locked`, `not_observable`, `mind_disabled`, `unknown_mind`. */
  code: ErrorCode;
  reason: string;
  executionId?: string;
  verdict?: PolicyVerdict;
}
export interface Failed {
  status: 'failed';
  code: ErrorCode;
  error: string;
  /** True when calling again cannot repeat a side effect. */
  retrySafe: boolean;
  executionId?: string;
  issues?: ValidationIssue[];
}
export type InvokeResult = Executed | Pending | Denied | Failed;

/** What `preview` reports: the decision an invocation would meet, with nothing recorded. */
export interface Preview {
  capability: string;
  target: string;
  decision: PolicyDecision | 'invalid';
  /** `nothing`, `approval`, `two_approvals`, or `refused` (denied or invalid). */
  needs: 'nothing' | 'approval' | 'two_approvals' | 'refused';
  verdict?: PolicyVerdict;
  issues: ValidationIssue[];
}
