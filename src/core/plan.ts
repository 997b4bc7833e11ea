// The plan model shared by proposals, operator plan files, the planner, the store and the API.
// Field names follow the reference schema (snake_case) so a plan file, an API body and a
// stored row read the same way. See docs/plan-format.md.

import type { AbortConditionDraft } from './abort-conditions.ts';
import type { ErrorCode } from './error-codes.ts';
import type { Comparison, InternalAction, StepKind } from './vocabulary.ts';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A read-only observation compared with an expected value. */
export interface Check {
  capability: string;
  params: JsonObject;
  /** Dotted path into the capability's observation, e.g. `active_state` or `filesystems.0.use_percent`. */
  field: string;
  comparison: Comparison;
  /** Omitted only for `exists`. */
  value?: JsonValue;
}

/** What a writing step expects to follow; becomes a prediction when the step executes. */
export interface Expectation {
  statement: string;
  /** 0..1: how sure the plan is that the effect will be observed. */
  confidence: number;
  /** The prediction window: the effect must be observed within this many seconds. */
  within_seconds: number;
  check: Check;
}

/**
 * A read-only check that must hold before the step acts. When it does not hold the action is
 * skipped (the world already changed); with `fulfils_intention` the intention is fulfilled
 * without acting.
 */
export interface Precondition extends Check {
  statement?: string;
  fulfils_intention?: boolean;
}

/** The structured capability request of a `request_capability` step. */
export interface CapabilityRequestSpec {
  capability: string;
  target_pattern: string;
  param_limits?: JsonObject;
  duration_seconds: number;
  max_operations: number;
  reason: string;
  risk: string;
  mitigation: string;
  fallback: string;
  alternatives?: string[];
}

export interface VerifySpec {
  /** Key of the step whose expectation this step resolves. */
  verifies: string;
  /** Optional overrides of the expectation's check; by default the expectation's own check is used. */
  field?: string;
  comparison?: Comparison;
  value?: JsonValue;
  interval_seconds?: number;
}

export interface MonitorSpec {
  field: string;
  comparison: Comparison;
  value?: JsonValue;
  /** The check must hold continuously for this long. */
  stable_seconds: number;
  /** ...and must have done so within this many seconds of the step starting, else the step fails. */
  deadline_seconds: number;
  interval_seconds?: number;
}

export interface WaitSpec {
  seconds: number;
}

export interface InternalSpec {
  action: InternalAction;
  /** For `notify_operator`: the note's text. */
  message?: string;
}

export interface RequestStepSpec {
  request: CapabilityRequestSpec;
}

/**
 * Kind-specific detail: one of the shapes above. It arrives from untrusted JSON, so it is kept
 * as a JSON object and validation checks every field the step's kind needs.
 */
export type StepSpec = JsonObject;

export interface StepDraft {
  key: string;
  title: string;
  kind: StepKind;
  depends_on: string[];
  capability: string;
  target: string;
  params: JsonObject;
  expectation: Expectation | null;
  precondition: Precondition | null;
  max_attempts: number;
  require_approval: boolean;
  spec: StepSpec;
}

export interface Assumption {
  statement: string;
  /** The belief this assumption relies on, when it is a stored belief. */
  belief_id?: string;
  min_confidence: number;
}

/** Resource dimensions shared by estimates, budgets and actual use. */
export interface Resources {
  invocations: number;
  approvals: number;
  wall_seconds: number;
  network_ops: number;
  money: number;
  tokens: number;
}
export const RESOURCE_KEYS: readonly (keyof Resources)[] = ['invocations', 'approvals', 'wall_seconds', 'network_ops', 'money', 'tokens'];
/** A budget caps any subset of the dimensions; invocations default to 20. */
export type Budget = Partial<Resources>;
export const DEFAULT_MAX_INVOCATIONS = 20;

export interface Alternative {
  strategy: string;
  estimate: Partial<Resources>;
  expected_confidence: number;
  score: number;
  selected: boolean;
  why: string;
}

export interface PlanDraft {
  objective: string;
  strategy: string;
  assumptions: Assumption[];
  completion_criteria: string;
  /** Words (shown only) or conditions the executor evaluates: see abort-conditions.ts. */
  abort_conditions: AbortConditionDraft[];
  risk: string;
  estimate: Partial<Resources>;
  budget: Budget;
  alternatives: Alternative[];
  /** Only ever adds a requirement: a proposal's `require_approval: false` is ignored. */
  require_approval?: boolean;
  steps: StepDraft[];
}

export interface ValidationIssue {
  /** Stable, documented code (see docs/validation.md and docs/error-codes.md). */
  code: ErrorCode;
  message: string;
  /** JSON path of the offending field, e.g. `steps[2].depends_on[0]`. */
  path: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /** The estimate validation computed from the steps (never the draft's own claim). */
  estimate: Resources;
}

export const MAX_STEPS = 30;
export const MAX_KEY_LENGTH = 32;
export const MAX_REPLANS = 3;
