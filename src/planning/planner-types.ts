// What the planner takes and gives. Everything it needs arrives as values (the intention, a
// view of policy as it stands, the strategies that already failed, earlier revisions), so the
// planner is a pure function: the same request always gives the same plan.

import type { Alternative, Budget, JsonObject, PlanDraft, ValidationIssue, ValidationResult } from '../core/plan.ts';
import type { PolicyDecision } from '../core/vocabulary.ts';
import type { StepDigest } from '../core/step-digest.ts';
import type { SpentWrite } from './repeated-writes.ts';

/** Strategies in preference order: deterministic ones first, the model last. */
export const STRATEGY_ORDER = ['direct', 'diagnose', 'diagnose_then_escalate', 'model'] as const;
export type StrategyName = (typeof STRATEGY_ORDER)[number];

/** The concrete action an intention names. */
export interface Means {
  capability: string;
  target: string;
  params: JsonObject;
}

export interface PlanningIntention {
  objective: string;
  means: Means | null;
  requireApproval: boolean;
  /** The supporting belief, which the plan then relies on as an assumption. */
  belief?: { id: string; statement: string } | null;
}

/** What policy would answer for one call right now: rules, commitments and live grants together. */
export interface PolicyAnswer {
  decision: PolicyDecision;
  /** What produced it: `rule`, `default`, `grant`, `commitment`, `request`, `locked`, `unknown`. */
  source: string;
  reason: string;
}

/** A read-only view of a mind's policy at planning time. Deciding never records anything. */
export interface PolicyView {
  decide(capability: string, target: string, params: JsonObject): PolicyAnswer;
}

/** A step of an earlier revision, as the planner reads it: the shared digest (src/core/step-digest.ts). */
export type PriorStep = StepDigest;

/** An earlier revision of the same intention. */
export interface PriorRevision {
  revision: number;
  strategy: string;
  status: string;
  statusReason: string;
  steps: PriorStep[];
}

export interface PlanRequest {
  intention: PlanningIntention;
  policy: PolicyView;
  /** Strategies that failed in earlier revisions of this intention: never used again. */
  failedStrategies: readonly string[];
  /** Earlier revisions, oldest first (what was tried and what was seen). */
  history: readonly PriorRevision[];
  /** True when a model is configured for the plan role. */
  modelConfigured: boolean;
  /**
   * Writes of earlier revisions that failed or whose expectation was refuted: a strategy whose
   * plan would make one again does not apply (repeated-writes.ts).
   */
  spentWrites?: readonly SpentWrite[];
  /** Caps for the plan; invocations default to 20. */
  budget?: Budget;
}

/** Why a strategy was or was not a candidate. */
export interface Considered {
  strategy: StrategyName;
  applicable: boolean;
  why: string;
}

export type PlannerOutcome =
  | {
      kind: 'plan';
      strategy: StrategyName;
      /** Complete, with its alternatives and estimate; it passed validation. */
      draft: PlanDraft;
      validation: ValidationResult;
      alternatives: Alternative[];
      considered: Considered[];
      notes: string[];
    }
  /** No deterministic strategy applies and a model is configured: ask it (see Planner.fromModelAnswer). */
  | { kind: 'ask_model'; considered: Considered[] }
  /** No strategy applies: "no possible plan". */
  | { kind: 'none'; considered: Considered[]; reason: string };

export type ModelPlanOutcome =
  | {
      /** `valid` false: stored only as a draft with its errors, never run. */
      kind: 'proposal';
      valid: boolean;
      draft: PlanDraft;
      validation: ValidationResult;
      alternatives: Alternative[];
    }
  | { kind: 'refused' | 'malformed'; message: string; errors?: ValidationIssue[] };
