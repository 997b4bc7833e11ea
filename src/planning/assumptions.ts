// Assumptions: the beliefs a plan relies on, each with the least confidence it needs. Their shape
// is checked with the rest of a draft (`assumptionShapeAt`, pure, no beliefs needed); whether the
// mind actually holds each named belief firmly enough is checked against the mind's beliefs as
// they are when the plan is submitted or previewed (`checkAssumptions`, pure over the beliefs the
// caller read). An assumption that names no belief is the plan's own stated premise: it is
// recorded and shown, and nothing can check it. See docs/validation.md, "Assumptions".

import type { ValidationIssue } from '../core/plan.ts';
import type { Findings } from './findings.ts';
import { isObj, show } from './findings.ts';

/** A belief as the assumption check needs it. */
export interface HeldBelief {
  id: string;
  statement: string;
  confidence: number;
}

function assumptionsOf(draft: unknown): unknown[] {
  return isObj(draft) && Array.isArray(draft.assumptions) ? draft.assumptions : [];
}

/** The belief ids the draft's assumptions name, without repeats: what the caller must read. */
export function assumedBeliefIds(draft: unknown): string[] {
  const ids = new Set<string>();
  for (const a of assumptionsOf(draft)) if (isObj(a) && typeof a.belief_id === 'string' && a.belief_id !== '') ids.add(a.belief_id);
  return [...ids];
}

/** Shape rules: a minimum confidence is a number from 0 to 1. */
export function assumptionShapeAt(findings: Findings, draft: unknown): void {
  assumptionsOf(draft).forEach((a, i) => {
    if (!isObj(a)) return;
    const min = a.min_confidence;
    if (min !== undefined && (typeof min !== 'number' || !Number.isFinite(min) || min < 0 || min > 1)) {
      findings.error('invalid_min_confidence', `assumptions[${i}].min_confidence`, `a minimum confidence is a number from 0 to 1, got ${show(min)}`);
    }
  });
}

/**
 * The assumptions that do not hold against `beliefs` (the mind's beliefs by id): one naming a
 * belief the mind does not hold, or one whose belief is held less firmly than its minimum.
 */
export function checkAssumptions(draft: unknown, beliefs: ReadonlyMap<string, HeldBelief>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  assumptionsOf(draft).forEach((a, i) => {
    if (!isObj(a) || typeof a.belief_id !== 'string' || a.belief_id === '') return;
    const belief = beliefs.get(a.belief_id);
    if (!belief) {
      issues.push({
        code: 'assumption_belief_missing',
        path: `assumptions[${i}].belief_id`,
        message: `the plan assumes belief ${show(a.belief_id)}, which the mind does not hold`,
      });
      return;
    }
    const min = a.min_confidence;
    if (typeof min === 'number' && Number.isFinite(min) && min >= 0 && min <= 1 && belief.confidence < min) {
      issues.push({
        code: 'assumption_below_confidence',
        path: `assumptions[${i}].min_confidence`,
        message: `the plan needs "${belief.statement}" held with confidence ${min} or more; the mind holds it with ${belief.confidence}`,
      });
    }
  });
  return issues;
}
