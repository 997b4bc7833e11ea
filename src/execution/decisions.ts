// What the executor decides about a step, as values. Handlers, polling and recovery observe the
// world (through the capability service and the store) and then call pure functions that
// return a StepDecision; `applyDecision` (apply.ts) is the one place that turns a decision into
// a conditional update and its consequences.

import type { Expectation, JsonValue } from '../core/plan.ts';
import type { IntentionReason } from '../core/vocabulary.ts';
import type { Finding } from '../mind/findings.ts';
import type { FailureKind } from '../mind/reconsideration.ts';
import type { ResolvedPredictionStatus } from '../store/index.ts';

/** A consequence written in the same transaction as the step's move, only if the move won. */
export type Effect =
  /** The step's expectation becomes a prediction with its window. */
  | { type: 'make_prediction'; expectation: Expectation; executionId: string | null /** The event recording the execution (tool_executed), when known. */; eventId: string | null }
  | { type: 'resolve_prediction'; predictionId: string; status: ResolvedPredictionStatus; observed?: JsonValue; note: string; observedAt?: Date }
  /** The plan's intention is fulfilled (a precondition found the world already as wanted). */
  | { type: 'fulfil_intention'; reason: 'completed' | 'precondition_met' }
  /** The step's subordinate intention (its wait for an operator) is fulfilled; its parent resumes. */
  | { type: 'fulfil_subordinate' }
  /** The step's subordinate intention ends unfulfilled (denied, expired, cancelled). */
  | { type: 'abandon_subordinate'; reason: IntentionReason }
  | { type: 'operator_note'; message: string }
  /** A summary's findings re-enter the mind: an observation event and beliefs (mind/findings.ts). */
  | { type: 'record_findings'; summary: string; findings: Finding[] }
  /** Recovery put a step whose claimant stopped back to ready: said as an event, with why. */
  | { type: 'requeued'; reason: string }
  /**
   * Recovery: an approved action safe to repeat was claimed by `executionId`, which never
   * finished; the request is left approved and unclaimed, to be performed afresh under it.
   */
  | { type: 'release_approval_claim'; approvalId: string; executionId: string };

interface Common {
  /** In words, for the operator: stored as the step's status_reason. */
  reason: string;
  effects?: Effect[];
}

export type StepDecision =
  | (Common & { kind: 'complete'; result?: JsonValue; observation?: JsonValue; executionId?: string | null })
  | (Common & { kind: 'skip'; observation?: JsonValue; executionId?: string | null })
  | (Common & {
      kind: 'fail';
      error: string;
      /** How the reconsideration rule should read the failure. */
      failure: FailureKind;
      result?: JsonValue;
      observation?: JsonValue;
      executionId?: string | null;
    })
  /** Back to ready, due again at `at`: a repeatable action failed in a way worth trying again. */
  | (Common & { kind: 'retry'; at: Date; error: string; executionId?: string | null })
  | (Common & { kind: 'await_approval'; approvalId: string; objective: string })
  | (Common & { kind: 'await_grant'; requestId: string; objective: string })
  /** Not finished: look again at `until`, keeping `state` (a monitor's progress, a wait's end). */
  | (Common & { kind: 'wait'; until: Date; state?: JsonValue; observation?: JsonValue })
  | (Common & {
      kind: 'block';
      error: string;
      /** Why the intention stops: an unknown outcome blocks it, a spent budget suspends it. */
      intention: Extract<IntentionReason, 'outcome_unverified' | 'budget_exhausted'>;
      /** A spent budget blocks the whole plan, not just the step. */
      blockPlan: boolean;
      executionId?: string | null;
    })
  /** Leave the step as it is (still waiting for an operator), optionally looking again at `at`. */
  | (Common & { kind: 'keep'; at?: Date });

export type DecisionKind = StepDecision['kind'];

/** Backoff before retry number `attempt` + 1: 5 s, 10 s, 20 s, ... capped at five minutes. */
export function backoffSeconds(attempt: number): number {
  return Math.min(300, 5 * 2 ** Math.max(0, attempt - 1));
}
