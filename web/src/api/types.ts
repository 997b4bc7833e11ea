// The records the HTTP API returns (docs/api.md): the store's records as JSON, camelCase keys,
// ISO-8601 dates. Written out here rather than imported from src/ (whose record types pull in the
// store's Node-only modules); fields the console does not read are left loose.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// The closed vocabularies come from the engine itself (a module without imports), so the
// console's status lists cannot drift from what the store accepts.
import type { PlanStatus, StepStatus } from '../../../src/core/vocabulary.ts';
export { CLOSED_PLAN_STATUSES, PLAN_STATUSES, STEP_STATUSES, type PlanStatus, type StepStatus } from '../../../src/core/vocabulary.ts';

export const RESOURCE_KEYS = ['invocations', 'approvals', 'wall_seconds', 'network_ops', 'money', 'tokens'] as const;
export type ResourceKey = (typeof RESOURCE_KEYS)[number];
export type Resources = Partial<Record<ResourceKey, number>>;

/** Roles allowed to decide approvals, capability requests and releases. */
export const DECIDING_ROLES: readonly string[] = ['operator', 'admin'];

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Whoami {
  operator: string;
  role: string;
  mind_id: string | null;
}

export interface MindRecord {
  id: string;
  name: string;
  status: string;
  sandbox?: boolean;
  host?: string | null;
  createdAt: string;
}

export interface PlanSummary {
  id: string;
  mindId: string;
  mindName?: string;
  intentionId: string;
  objective: string;
  status: PlanStatus;
  revision: number;
  origin: string;
  strategy: string;
  createdAt: string;
  updatedAt: string;
  /** A completed plan that left a note for the operator: shown as escalated, not completed (absent from older servers). */
  escalated?: boolean;
}

export interface Issue {
  code: string;
  message: string;
  path: string;
}

export interface Assumption {
  statement: string;
  belief_id?: string;
  min_confidence?: number;
}

export interface Alternative {
  strategy: string;
  estimate?: Resources;
  expected_confidence?: number;
  score?: number;
  selected?: boolean;
  why?: string;
}

export interface AbortCondition {
  when: 'step_failed' | 'every_observation_failed' | 'expectation_refuted' | 'display_only';
  step?: string;
  steps?: string[];
  statement: string;
}

export interface PlanRecord extends PlanSummary {
  supersedes: string | null;
  supersededBy: string | null;
  assumptions?: (Assumption | string)[];
  completionCriteria?: string;
  /** `display_only` conditions are words for people; the others the executor evaluates. Old records may hold plain strings. */
  abortConditions?: (AbortCondition | string)[];
  alternatives?: Alternative[];
  risk?: string;
  estimate?: Resources;
  actual?: Resources;
  budget?: Resources;
  validation?: { valid?: boolean; errors?: Issue[]; warnings?: Issue[]; estimate?: Resources };
  requireApproval?: boolean;
  maxReplans?: number;
  statusReason?: string;
  closedAt?: string | null;
  /** Set while an operator holds the plan: no new step runs until it is resumed. Not a status. */
  pause?: PlanPause | null;
}

export interface PlanPause {
  at: string;
  by: string;
  reason: string;
}

export interface Check {
  capability: string;
  params: JsonObject;
  field: string;
  comparison: string;
  value?: Json;
}

export interface Expectation {
  statement: string;
  confidence: number;
  within_seconds: number;
  check: Check;
}

export interface Precondition extends Check {
  statement?: string;
  fulfils_intention?: boolean;
}

export interface ApprovalDecision {
  operator: string;
  decision: 'approve' | 'deny';
  at: string;
  note?: string;
}

export interface ApprovalAmendment {
  operator: string;
  at: string;
  reason: string;
  from: { target: string; params: JsonObject };
  to: { target: string; params: JsonObject };
  /** Operators whose approvals of the earlier action were set aside. */
  approvals_cleared: string[];
}

export interface ApprovalRecord {
  id: string;
  mindId: string;
  capability: string;
  target: string;
  params: JsonObject;
  origin: string;
  correlationId: string;
  evidence: JsonObject;
  explanation: JsonObject;
  digest: string;
  status: string;
  approversRequired: number;
  decisions: ApprovalDecision[];
  authoredBy: string;
  /** Who named the author of a request raised without one; empty otherwise. */
  authorNamedBy?: string;
  /** Operators' changes to the action before approval, oldest first; the first one's `from` is the action as raised. */
  amendments?: ApprovalAmendment[];
  batchKey: string;
  executionId: string | null;
  expiresAt: string;
  decidedAt: string | null;
  createdAt: string;
}

export interface CapabilityRequestRecord {
  id: string;
  mindId: string;
  intentionId: string | null;
  origin: string;
  capability: string;
  targetPattern: string;
  paramLimits: JsonObject;
  durationSeconds: number;
  maxOperations: number;
  reason: string;
  risk: string;
  mitigation: string;
  fallback: string;
  alternatives: string[];
  batchKey: string;
  status: string;
  decidedBy: string;
  decidedAt: string | null;
  grantId: string | null;
  createdAt: string;
}

export interface ExecutionRecord {
  id: string;
  capability: string;
  target: string;
  params: JsonObject;
  status: string;
  result: JsonObject | null;
  error: string;
  approvalId: string | null;
  grantId: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface PredictionRecord {
  id: string;
  statement: string;
  confidence: number;
  status: string;
  outcome: JsonObject | null;
  windowOpensAt: string;
  windowClosesAt: string;
  resolvedAt: string | null;
}

export interface IntentionRecord {
  id: string;
  mindId: string;
  parentId: string | null;
  objective: string;
  status: string;
  reason: string;
  createdAt: string;
}

/** GET /intentions/{id}: the intention with a summary of every plan that served it. */
export interface IntentionDetail {
  intention: IntentionRecord;
  plans: PlanSummary[];
}

export interface StepRecord {
  id: string;
  planId: string;
  key: string;
  position: number;
  title: string;
  kind: string;
  dependsOn: string[];
  capability: string;
  target: string;
  params: JsonObject;
  requireApproval: boolean;
  expectation: Expectation | null;
  precondition: Precondition | null;
  spec: JsonObject;
  status: StepStatus;
  attempts: number;
  maxAttempts: number;
  approvalId: string | null;
  requestId: string | null;
  executionId: string | null;
  predictionId: string | null;
  intentionId: string | null;
  result: Json;
  observation: Json;
  error: string;
  statusReason: string;
  startedAt: string | null;
  finishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface StepView extends StepRecord {
  execution?: ExecutionRecord | null;
  approval?: ApprovalRecord | null;
  request?: CapabilityRequestRecord | null;
  prediction?: PredictionRecord | null;
  subordinate?: IntentionRecord | null;
}

export interface RevisionLink {
  id: string;
  revision: number;
  status: string;
  supersedes: string | null;
  supersededBy: string | null;
  createdAt: string;
}

export interface PlanDetail {
  plan: PlanRecord;
  steps: StepView[];
  usage?: Json;
  revisions?: RevisionLink[];
}

export interface Batch<T> {
  batch_key: string;
  items: T[];
}

export interface Grouped<T> {
  groups: Batch<T>[];
  history: T[];
}

export interface EventRecord {
  seq?: number;
  id: string;
  type: string;
  mindId: string | null;
  intentionId: string | null;
  planId: string | null;
  stepId: string | null;
  data?: JsonObject;
  payload?: JsonObject;
  createdAt: string;
}
