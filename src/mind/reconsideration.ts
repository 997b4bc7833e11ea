// Reconsideration: after a plan fails, one rule decides whether to replan (a new revision) or
// to abandon the intention, and says why. The decision is recorded as a `reconsideration`
// event, which is also where later planning learns which strategies already failed.
//
// The rule, in order:
// 1. An intention gets at most `maxReplans` (3) replans: revision r has used r − 1. At the limit
//    it is abandoned (`replan_limit`).
// 2. The failed plan's strategy joins the failed ones, except when the "failure" is a new
//    commitment: that only adds an approval requirement, and the same strategy may serve again.
// 3. If no strategy is left once failed ones are excluded, the intention is abandoned
//    (`no_possible_plan`). Otherwise it is replanned.

import { MAX_REPLANS, type JsonObject } from '../core/plan.ts';
import type { IntentionReason } from '../core/vocabulary.ts';
import type { EventRecord, Repositories, Store } from '../store/index.ts';

export const FAILURE_KINDS = ['capability_denied', 'expectation_failed', 'step_failed', 'approval_denied', 'approval_expired', 'request_denied', 'invalid_plan', 'commitment_added'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface ReconsiderationInput {
  failure: FailureKind;
  /** The plan that failed. */
  plan: { revision: number; strategy: string; maxReplans?: number };
  /** Strategies that failed in earlier revisions of the same intention. */
  failedStrategies: readonly string[];
  /**
   * The strategies that would apply to the intention given a set of failed ones (the planner's
   * answer, bound to the intention; pure).
   */
  strategiesLeft: (failed: readonly string[]) => readonly string[];
}

interface Common {
  failure: FailureKind;
  /** The failed strategies after this failure. */
  failedStrategies: string[];
  replansUsed: number;
  maxReplans: number;
  /** In words, for the operator. */
  explanation: string;
}

export type Reconsideration =
  | (Common & { decision: 'replan'; nextRevision: number; strategiesLeft: string[] })
  | (Common & { decision: 'abandon'; reason: Extract<IntentionReason, 'replan_limit' | 'no_possible_plan'> });

/** The reconsideration rule (pure). */
export function reconsider(input: ReconsiderationInput): Reconsideration {
  const maxReplans = input.plan.maxReplans ?? MAX_REPLANS;
  const replansUsed = Math.max(0, input.plan.revision - 1);
  const reusable = input.failure === 'commitment_added' || input.plan.strategy === '';
  const failedStrategies = [...new Set(reusable ? input.failedStrategies : [...input.failedStrategies, input.plan.strategy])];
  const common = { failure: input.failure, failedStrategies, replansUsed, maxReplans };
  const what = input.plan.strategy ? `the ${input.plan.strategy} plan (revision ${input.plan.revision})` : `revision ${input.plan.revision}`;

  if (replansUsed >= maxReplans) {
    return {
      ...common,
      decision: 'abandon',
      reason: 'replan_limit',
      explanation: `${what} failed (${input.failure}) and the intention has used all ${maxReplans} replans`,
    };
  }
  const left = input.strategiesLeft(failedStrategies).filter((s) => !failedStrategies.includes(s));
  if (left.length === 0) {
    return {
      ...common,
      decision: 'abandon',
      reason: 'no_possible_plan',
      explanation: `${what} failed (${input.failure}) and no strategy is left that has not failed (${failedStrategies.join(', ') || 'none'})`,
    };
  }
  const explanation =
    input.failure === 'commitment_added'
      ? `a new commitment adds an approval requirement to ${what}; replanning under it (the strategy may be reused)`
      : `${what} failed (${input.failure}); replanning with ${left.join(', ')} still possible`;
  return { ...common, decision: 'replan', nextRevision: input.plan.revision + 1, strategiesLeft: [...left], explanation };
}

export interface ReconsiderationSubject {
  mindId: string;
  intentionId: string;
  planId: string;
  strategy: string;
}

/**
 * Appends the decision as a `reconsideration` event; in the transaction that moves the plan
 * (replan.ts), since the event is the only record of which strategies failed.
 */
export async function recordReconsideration(store: Pick<Repositories, 'events'>, subject: ReconsiderationSubject, decision: Reconsideration): Promise<EventRecord> {
  const data: JsonObject = {
    decision: decision.decision,
    failure: decision.failure,
    strategy: subject.strategy,
    failed_strategies: decision.failedStrategies,
    replans_used: decision.replansUsed,
    max_replans: decision.maxReplans,
    explanation: decision.explanation,
  };
  if (decision.decision === 'replan') {
    data.next_revision = decision.nextRevision;
    data.strategies_left = decision.strategiesLeft;
  } else {
    data.reason = decision.reason;
  }
  return store.events.append({ type: 'reconsideration', mindId: subject.mindId, intentionId: subject.intentionId, planId: subject.planId, data });
}

/** Every strategy an intention's recorded reconsiderations counted as failed. */
export async function failedStrategiesOf(store: Store, intentionId: string): Promise<string[]> {
  const failed = new Set<string>();
  let afterSeq: number | undefined;
  for (;;) {
    const page = await store.events.list({ intentionId, limit: 500, ...(afterSeq !== undefined ? { afterSeq } : {}) });
    for (const event of page) {
      if (event.type !== 'reconsideration') continue;
      const list = event.data.failed_strategies;
      if (Array.isArray(list)) for (const s of list) if (typeof s === 'string' && s) failed.add(s);
    }
    if (page.length < 500) break;
    afterSeq = page[page.length - 1]!.seq;
  }
  return [...failed];
}
