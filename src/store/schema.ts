// The tables as Kysely sees them. Column types describe what crosses the driver boundary, which
// differs between the stores (PostgreSQL hands back Date, parsed JSON and arrays; SQLite hands
// back text and integers), so every repository goes through the codec (codec.ts) on both sides.

import type { StoredEventType } from './call-rows.ts';
import type { ColumnType, Generated } from 'kysely';
import type {
  AccessRole,
  ApprovalStatus,
  CapabilityRequestStatus,
  CommitmentStatus,
  DeliveryStatus,
  ExecutionStatus,
  GrantStatus,
  IntentionReason,
  IntentionStatus,
  LlmCallOutcome,
  MindStatus,
  PlanOrigin,
  PlanStatus,
  PolicyDecision,
  PredictionStatus,
  StepKind,
  StepStatus,
  WantOrigin,
  WantStatus,
} from '../core/vocabulary.ts';

/**
 * Timestamps are always written by the repositories from the injected clock, as ISO-8601 text;
 * the insert type is required on purpose, so no code can fall back on a database default.
 */
export type Time = ColumnType<Date | string, string, string>;
export type NullableTime = ColumnType<Date | string | null, string | null | undefined, string | null>;
/** JSON is always written as a string (see codec.ts); it reads back parsed (PG) or as text (SQLite). */
export type Json = ColumnType<unknown, string, string>;
export type JsonWithDefault = ColumnType<unknown, string | undefined, string>;
export type NullableJson = ColumnType<unknown, string | null | undefined, string | null>;
/** boolean on PostgreSQL, 0/1 on SQLite. */
export type Bool = ColumnType<boolean | number, boolean | number | undefined, boolean | number>;
/** text[] on PostgreSQL, a JSON array in text on SQLite. */
export type TextArray = ColumnType<string[] | string, string[] | string | undefined, string[] | string>;
export type WithDefault<T> = ColumnType<T, T | undefined, T>;
export type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface MindsTable {
  id: string;
  name: string;
  status: WithDefault<MindStatus>;
  sandbox: Bool;
  host: Nullable<string>;
  created_at: Time;
  updated_at: Time;
}

export interface PolicyRulesTable {
  id: string;
  mind_id: string;
  capability: string;
  target_pattern: string;
  decision: PolicyDecision;
  approvers: WithDefault<number>;
  created_at: Time;
}

export interface IntentionsTable {
  id: string;
  mind_id: string;
  parent_id: Nullable<string>;
  objective: string;
  means: NullableJson;
  belief_id: Nullable<string>;
  origin: string;
  authored_by: WithDefault<string>;
  status: WithDefault<IntentionStatus>;
  reason: WithDefault<IntentionReason>;
  require_approval: Bool;
  created_at: Time;
  updated_at: Time;
  closed_at: NullableTime;
}

export interface CommitmentsTable {
  id: string;
  mind_id: string;
  kind: WithDefault<'require_approval'>;
  capability: string;
  target_pattern: string;
  reason: WithDefault<string>;
  status: WithDefault<CommitmentStatus>;
  created_at: Time;
  released_at: NullableTime;
}

export interface BeliefsTable {
  id: string;
  mind_id: string;
  statement: string;
  confidence: number;
  evidence: JsonWithDefault;
  /** Added by 0002: bumped on every revision, so a revision applies only to the version it read. */
  version: WithDefault<number>;
  created_at: Time;
  updated_at: Time;
}

export interface PredictionsTable {
  id: string;
  mind_id: string;
  intention_id: Nullable<string>;
  plan_id: Nullable<string>;
  step_id: Nullable<string>;
  belief_id: Nullable<string>;
  execution_id: Nullable<string>;
  event_id: Nullable<string>;
  statement: string;
  verification: JsonWithDefault;
  confidence: number;
  window_opens_at: Time;
  window_closes_at: Time;
  status: WithDefault<PredictionStatus>;
  outcome: NullableJson;
  resolved_at: NullableTime;
  created_at: Time;
}

export interface PlansTable {
  id: string;
  mind_id: string;
  intention_id: string;
  revision: WithDefault<number>;
  supersedes: Nullable<string>;
  superseded_by: Nullable<string>;
  objective: string;
  origin: PlanOrigin;
  authored_by: WithDefault<string>;
  strategy: WithDefault<string>;
  status: WithDefault<PlanStatus>;
  assumptions: JsonWithDefault;
  completion_criteria: WithDefault<string>;
  abort_conditions: JsonWithDefault;
  alternatives: JsonWithDefault;
  risk: WithDefault<string>;
  estimate: JsonWithDefault;
  actual: JsonWithDefault;
  budget: JsonWithDefault;
  validation: JsonWithDefault;
  require_approval: Bool;
  max_replans: WithDefault<number>;
  llm_call: Nullable<string>;
  status_reason: WithDefault<string>;
  closed_at: NullableTime;
  /** Set while an operator has the plan paused (migration 0010); the status is left as it was. */
  paused_at: NullableTime;
  paused_by: WithDefault<string>;
  pause_reason: WithDefault<string>;
  created_at: Time;
  updated_at: Time;
}

export interface PlanStepsTable {
  id: string;
  plan_id: string;
  mind_id: string;
  key: string;
  position: number;
  title: string;
  kind: StepKind;
  depends_on: TextArray;
  capability: WithDefault<string>;
  target: WithDefault<string>;
  params: JsonWithDefault;
  require_approval: Bool;
  expectation: NullableJson;
  precondition: NullableJson;
  spec: JsonWithDefault;
  status: WithDefault<StepStatus>;
  attempts: WithDefault<number>;
  max_attempts: WithDefault<number>;
  lease_until: NullableTime;
  next_run_at: NullableTime;
  approval_id: Nullable<string>;
  request_id: Nullable<string>;
  execution_id: Nullable<string>;
  prediction_id: Nullable<string>;
  intention_id: Nullable<string>;
  result: NullableJson;
  observation: NullableJson;
  error: WithDefault<string>;
  status_reason: WithDefault<string>;
  /** The executor holding (or that last held) the step's claim (migration 0006). */
  claimed_by: WithDefault<string>;
  /**
   * The host the step's mind is bound to, null for none: `minds.host`, copied when the step is
   * written (a mind's host never changes), so that the due index can lead with it (migration 0019).
   */
  host: Nullable<string>;
  started_at: NullableTime;
  finished_at: NullableTime;
  created_at: Time;
  updated_at: Time;
}

export interface ToolExecutionsTable {
  id: string;
  mind_id: string;
  capability: string;
  target: WithDefault<string>;
  params: JsonWithDefault;
  origin: WithDefault<string>;
  correlation_id: WithDefault<string>;
  evidence: JsonWithDefault;
  approval_id: Nullable<string>;
  grant_id: Nullable<string>;
  status: WithDefault<ExecutionStatus>;
  result: NullableJson;
  error: WithDefault<string>;
  retry_safe: Bool;
  started_at: Time;
  finished_at: NullableTime;
  created_at: Time;
}

export interface ApprovalRequestsTable {
  id: string;
  mind_id: string;
  capability: string;
  target: WithDefault<string>;
  params: JsonWithDefault;
  origin: WithDefault<string>;
  correlation_id: WithDefault<string>;
  evidence: JsonWithDefault;
  explanation: JsonWithDefault;
  digest: string;
  status: WithDefault<ApprovalStatus>;
  approvers_required: WithDefault<number>;
  decisions: JsonWithDefault;
  authored_by: WithDefault<string>;
  /** Who named the author of a request raised without one (migration 0007); empty otherwise. */
  author_named_by: WithDefault<string>;
  /** Operators' changes to the action while it was pending, oldest first (migration 0011). */
  amendments: JsonWithDefault;
  batch_key: WithDefault<string>;
  execution_id: Nullable<string>;
  /** The executor that claimed the approved one-off action to perform it (migration 0018); empty otherwise. */
  claimed_by: WithDefault<string>;
  /** The execution id `claimed_by` claimed it for: the name is the claim's only while this equals `execution_id` (0018). */
  claimed_for: WithDefault<string>;
  expires_at: Time;
  decided_at: NullableTime;
  created_at: Time;
  updated_at: Time;
}

export interface CapabilityRequestsTable {
  id: string;
  mind_id: string;
  intention_id: Nullable<string>;
  origin: WithDefault<string>;
  capability: string;
  target_pattern: string;
  param_limits: JsonWithDefault;
  duration_seconds: number;
  max_operations: number;
  reason: string;
  risk: WithDefault<string>;
  mitigation: WithDefault<string>;
  fallback: WithDefault<string>;
  alternatives: JsonWithDefault;
  batch_key: WithDefault<string>;
  status: WithDefault<CapabilityRequestStatus>;
  decided_by: WithDefault<string>;
  decided_at: NullableTime;
  grant_id: Nullable<string>;
  created_at: Time;
  updated_at: Time;
}

export interface GrantsTable {
  id: string;
  mind_id: string;
  request_id: Nullable<string>;
  capability: string;
  target_pattern: string;
  param_limits: JsonWithDefault;
  expires_at: Time;
  operations_left: number;
  status: WithDefault<GrantStatus>;
  granted_by: WithDefault<string>;
  revoked_by: WithDefault<string>;
  revoked_at: NullableTime;
  created_at: Time;
}

export interface EventsTable {
  /** bigserial on PostgreSQL (the pg driver returns int8 as a string), integer on SQLite. */
  seq: Generated<number | string>;
  id: string;
  /** An event's type, or a call row's (call-rows.ts): one row holding a call's three events. */
  type: StoredEventType;
  mind_id: Nullable<string>;
  intention_id: Nullable<string>;
  plan_id: Nullable<string>;
  step_id: Nullable<string>;
  data: JsonWithDefault;
  created_at: Time;
}

export interface ProceduralMemoriesTable {
  id: string;
  mind_id: string;
  intention_id: Nullable<string>;
  plan_id: Nullable<string>;
  objective: string;
  strategy: WithDefault<string>;
  summary: WithDefault<string>;
  steps: JsonWithDefault;
  confidence: number;
  verified: Bool;
  revision: WithDefault<number>;
  created_at: Time;
}

/** One call to the model role (migration 0002); a plan it produced points here through plans.llm_call. */
export interface LlmCallsTable {
  id: string;
  mind_id: string;
  intention_id: Nullable<string>;
  role: WithDefault<string>;
  model: string;
  base_url: WithDefault<string>;
  outcome: LlmCallOutcome;
  status_code: Nullable<number>;
  finish_reason: WithDefault<string>;
  prompt_tokens: WithDefault<number>;
  completion_tokens: WithDefault<number>;
  latency_ms: WithDefault<number>;
  error: WithDefault<string>;
  request: JsonWithDefault;
  response: Nullable<string>;
  created_at: Time;
}

export interface AccessTokensTable {
  id: string;
  operator: string;
  role: AccessRole;
  mind_id: string | null;
  token_hash: string;
  label: WithDefault<string>;
  created_at: Time;
  expires_at: Time | null;
  revoked_at: Time | null;
}

/** What a mind's intentions are formed for (migration 0008, docs/mind.md). */
export interface WantsTable {
  id: string;
  mind_id: string;
  statement: string;
  origin: WantOrigin;
  status: WithDefault<WantStatus>;
  reason: WithDefault<string>;
  intention_id: Nullable<string>;
  plan_id: Nullable<string>;
  created_at: Time;
  updated_at: Time;
}

/** A consumer's place in the event log, held by one daemon at a time (migration 0009). */
export interface EventCursorsTable {
  consumer: string;
  seq: WithDefault<number | string>;
  holder: WithDefault<string>;
  lease_until: NullableTime;
  updated_at: Time;
}

/** Outgoing webhook deliveries (migration 0009, docs/notifications.md). */
export interface WebhookDeliveriesTable {
  id: string;
  target: string;
  event_id: string;
  event_seq: number | string;
  topic: string;
  mind_id: Nullable<string>;
  body: string;
  status: WithDefault<DeliveryStatus>;
  attempts: WithDefault<number>;
  next_attempt_at: Time;
  lease_until: NullableTime;
  sent_by: WithDefault<string>;
  response_status: Nullable<number>;
  last_error: WithDefault<string>;
  created_at: Time;
  updated_at: Time;
  delivered_at: NullableTime;
}

export interface Database {
  minds: MindsTable;
  policy_rules: PolicyRulesTable;
  intentions: IntentionsTable;
  commitments: CommitmentsTable;
  beliefs: BeliefsTable;
  predictions: PredictionsTable;
  plans: PlansTable;
  plan_steps: PlanStepsTable;
  tool_executions: ToolExecutionsTable;
  approval_requests: ApprovalRequestsTable;
  capability_requests: CapabilityRequestsTable;
  grants: GrantsTable;
  events: EventsTable;
  procedural_memories: ProceduralMemoriesTable;
  llm_calls: LlmCallsTable;
  access_tokens: AccessTokensTable;
  wants: WantsTable;
  event_cursors: EventCursorsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type TableName = keyof Database;
export const TABLE_NAMES: readonly TableName[] = [
  'minds',
  'policy_rules',
  'intentions',
  'commitments',
  'beliefs',
  'predictions',
  'plans',
  'plan_steps',
  'tool_executions',
  'approval_requests',
  'capability_requests',
  'grants',
  'events',
  'procedural_memories',
  'llm_calls',
  'access_tokens',
  'wants',
  'event_cursors',
  'webhook_deliveries',
];
