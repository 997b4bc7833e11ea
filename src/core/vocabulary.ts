// Closed vocabularies. Every value that crosses a boundary (a proposal, the API, the store)
// is checked against one of these lists; nothing outside them is ever stored or run.

function closedSet<const T extends readonly string[]>(values: T) {
  const members = new Set<string>(values);
  return {
    values,
    has(value: unknown): value is T[number] {
      return typeof value === 'string' && members.has(value);
    },
  };
}

export const PLAN_STATUSES = ['draft', 'validated', 'waiting', 'executing', 'blocked', 'awaiting_approval', 'replanning', 'completed', 'failed', 'abandoned', 'superseded'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];
export const PlanStatuses = closedSet(PLAN_STATUSES);

/** Plan statuses from which nothing will ever move again. */
export const CLOSED_PLAN_STATUSES: readonly PlanStatus[] = ['completed', 'failed', 'abandoned', 'superseded'];

/**
 * Plan statuses of a started plan the executor runs steps of. `executing` has a step ready or
 * executing; `waiting` only steps waiting for their time (waits, monitors, verify re-checks);
 * `awaiting_approval` has nothing to run but steps waiting for an operator's approval or grant.
 * The three differ only in what the plan is waiting for: everything that treats a plan as open
 * and running accepts all three. See docs/executor.md, "Plan statuses".
 */
export const RUNNING_PLAN_STATUSES = ['executing', 'waiting', 'awaiting_approval'] as const;
export type RunningPlanStatus = (typeof RUNNING_PLAN_STATUSES)[number];
export const RunningPlanStatuses = closedSet(RUNNING_PLAN_STATUSES);

export const PLAN_ORIGINS = ['template', 'model', 'operator', 'dream', 'replan'] as const;
export type PlanOrigin = (typeof PLAN_ORIGINS)[number];
export const PlanOrigins = closedSet(PLAN_ORIGINS);

export const STEP_KINDS = ['capability', 'request_capability', 'verify', 'wait', 'monitor', 'internal'] as const;
export type StepKind = (typeof STEP_KINDS)[number];
export const StepKinds = closedSet(STEP_KINDS);

export const STEP_STATUSES = ['pending', 'ready', 'executing', 'awaiting_approval', 'awaiting_grant', 'waiting', 'completed', 'failed', 'skipped', 'blocked', 'cancelled'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export const StepStatuses = closedSet(STEP_STATUSES);

/** Step statuses the executor must look at again: the partial "due" index covers exactly these. */
export const DUE_STEP_STATUSES = ['ready', 'executing', 'awaiting_approval', 'awaiting_grant', 'waiting'] as const;

/**
 * Internal actions are deterministic code, never a capability. `summarise_findings` folds its
 * dependencies' results into one observation; `notify_operator` leaves a note for the operator
 * (the escalation strategy uses it instead of repeating a failed action).
 */
export const INTERNAL_ACTIONS = ['summarise_findings', 'notify_operator'] as const;
export type InternalAction = (typeof INTERNAL_ACTIONS)[number];
export const InternalActions = closedSet(INTERNAL_ACTIONS);

/** How a check compares an observed field with the expected value. */
export const COMPARISONS = ['equals', 'not_equals', 'in', 'not_in', 'contains', 'not_contains', 'greater_than', 'at_least', 'less_than', 'at_most', 'exists'] as const;
export type Comparison = (typeof COMPARISONS)[number];
export const Comparisons = closedSet(COMPARISONS);

export const MIND_STATUSES = ['active', 'disabled'] as const;
export type MindStatus = (typeof MIND_STATUSES)[number];

export const INTENTION_STATUSES = ['active', 'blocked', 'suspended', 'fulfilled', 'abandoned'] as const;
export type IntentionStatus = (typeof INTENTION_STATUSES)[number];

export const INTENTION_REASONS = [
  '',
  'awaiting_approval',
  'awaiting_grant',
  'awaiting_subordinate',
  'outcome_unverified',
  'budget_exhausted',
  'no_possible_plan',
  'replan_limit',
  'capability_denied',
  'expectation_failed',
  'cancelled',
  'precondition_met',
  'completed',
  'quiesced',
] as const;
export type IntentionReason = (typeof INTENTION_REASONS)[number];

/**
 * A want is what an intention is formed for. `open`: recorded (a dream left it), nothing has
 * come of it yet; `suppressed`: an intention formed for it could not be planned, so it is not
 * raised again. Wants come from a dream or stand behind an intention. See docs/mind.md.
 */
export const WANT_STATUSES = ['open', 'suppressed'] as const;
export type WantStatus = (typeof WANT_STATUSES)[number];
export const WANT_ORIGINS = ['dream', 'intention'] as const;
export type WantOrigin = (typeof WANT_ORIGINS)[number];

/**
 * An outgoing webhook delivery (docs/notifications.md). `pending`: due at its next attempt;
 * `sending`: claimed by one daemon, under a lease; `delivered`: the target answered 2xx;
 * `failed`: given up (a refusal that retrying cannot change, or the attempts ran out).
 */
export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const PREDICTION_STATUSES = ['open', 'confirmed', 'refuted', 'expired'] as const;
export type PredictionStatus = (typeof PREDICTION_STATUSES)[number];

/**
 * How a call to the model role ended. `answered` means the model replied with text that reads
 * as a JSON object (a proposal, which validation may still refuse); every other value is a
 * planning failure: no answer in time, no server, an HTTP error, text that is not a JSON
 * object, or a refusal to plan.
 */
export const LLM_CALL_OUTCOMES = ['answered', 'timeout', 'unreachable', 'http_error', 'malformed', 'refused'] as const;
export type LlmCallOutcome = (typeof LLM_CALL_OUTCOMES)[number];

export const EXECUTION_STATUSES = ['started', 'succeeded', 'failed'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'executed', 'failed', 'withdrawn'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const CAPABILITY_REQUEST_STATUSES = ['open', 'granted', 'denied', 'withdrawn', 'expired'] as const;
export type CapabilityRequestStatus = (typeof CAPABILITY_REQUEST_STATUSES)[number];

export const GRANT_STATUSES = ['active', 'revoked', 'expired', 'exhausted'] as const;
export type GrantStatus = (typeof GRANT_STATUSES)[number];

export const COMMITMENT_STATUSES = ['active', 'released'] as const;
export type CommitmentStatus = (typeof COMMITMENT_STATUSES)[number];

/**
 * Who a bearer token speaks for. Viewers read; agents read and propose for their own mind;
 * operators also decide approvals, capability requests and releases; admins also change policy
 * and manage tokens. An agent can never decide anything.
 */
export const ACCESS_ROLES = ['viewer', 'agent', 'operator', 'admin'] as const;
export type AccessRole = (typeof ACCESS_ROLES)[number];
export const AccessRoles = closedSet(ACCESS_ROLES);

export const POLICY_DECISIONS = ['allow', 'ask', 'deny'] as const;
export type PolicyDecision = (typeof POLICY_DECISIONS)[number];
export const PolicyDecisions = closedSet(POLICY_DECISIONS);

/** The event log's vocabulary. Stages of an action reuse these instead of inventing new names. */
export const EVENT_TYPES = [
  'intention_formed',
  'intention_blocked',
  'intention_resumed',
  'intention_suspended',
  'intention_fulfilled',
  'intention_abandoned',
  'plan_created',
  'plan_validated',
  'plan_rejected',
  'plan_started',
  'plan_blocked',
  'plan_completed',
  'plan_failed',
  'plan_aborted',
  'plan_abandoned',
  'plan_replanned',
  'plan_waiting',
  'plan_awaiting_approval',
  'plan_paused',
  'plan_resumed',
  'plan_step_started',
  'plan_step_completed',
  'plan_step_failed',
  'plan_step_skipped',
  'plan_step_blocked',
  'plan_step_released',
  'policy_decision',
  'tool_authorised',
  'tool_requested',
  'tool_executed',
  'tool_failed',
  'approval_requested',
  'approval_approved',
  'approval_denied',
  'approval_expired',
  'approval_withdrawn',
  'approval_author_named',
  'approval_amended',
  'approval_tampered',
  'capability_requested',
  'capability_request_denied',
  'capability_request_withdrawn',
  'grant_created',
  'grant_revoked',
  'prediction_made',
  'prediction_resolved',
  'prediction_error',
  'belief_updated',
  'reconsideration',
  'procedural_memory_recorded',
  'operator_note',
  'findings_observed',
  'mind_forked',
  'mind_imported',
  'mind_paused',
  'mind_resumed',
  'want_recorded',
  'want_suppressed',
  'policy_rule_set',
  'policy_rule_removed',
  'token_created',
  'token_revoked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const EventTypes = closedSet(EVENT_TYPES);

/**
 * The audit trail: changes to who may do what (policy rules, tokens), authors named after the
 * fact, actions amended by an operator before approval, and approval requests that no longer
 * verify. Each names the operator who acted.
 */
export const AUDIT_EVENT_TYPES: readonly EventType[] = ['policy_rule_set', 'policy_rule_removed', 'token_created', 'token_revoked', 'approval_author_named', 'approval_amended', 'approval_tampered'];

/**
 * Events after which the executor may find work it could not do before; appending one wakes
 * the executor loop (in process, and across processes on PostgreSQL).
 */
export const WAKE_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'intention_formed',
  'intention_resumed',
  'plan_created',
  'plan_validated',
  'plan_replanned',
  'plan_step_released',
  // A resumed plan's waits, approvals and ready steps act again.
  'plan_resumed',
  'mind_resumed',
  'approval_approved',
  'approval_denied',
  'approval_expired',
  'approval_withdrawn',
  // A request that failed its digest may have been closed under a step waiting for it.
  'approval_tampered',
  'capability_request_denied',
  'capability_request_withdrawn',
  'grant_created',
  'grant_revoked',
  'tool_executed',
  'tool_failed',
]);
