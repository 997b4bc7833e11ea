// Beliefs and how evidence moves them.
//
// The rule: an entry of evidence has a direction and a weight w in [0, 1] (for a resolved
// prediction, the prediction's own confidence). With the learning rate k = 0.5,
//   against: c' = c × (1 − k·w)            (a confident miss removes up to half the confidence)
//   for:     c' = c + (1 − c) × k·w        (a confident hit closes up to half the remaining gap)
// so confidence stays inside [0, 1], moves further the more confident the evidence was, and a
// weight of 0 changes nothing. Every entry is kept on the belief with the move it made.

import type { Problem } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import type { BeliefEvidence, BeliefRecord, Repositories, Store } from '../store/index.ts';

export const BELIEF_LEARNING_RATE = 0.5;
/** Revisions retried when another writer revised the same belief in between. */
const MAX_REVISION_ATTEMPTS = 5;

export type EvidenceDirection = BeliefEvidence['direction'];

/** Rounds to six decimals so stored confidences read back as written on both stores. */
function tidy(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/** The confidence after one entry of evidence (pure; see the rule above). */
export function revisedConfidence(current: number, direction: EvidenceDirection, weight: number): number {
  const c = clamp01(current);
  const step = BELIEF_LEARNING_RATE * clamp01(weight);
  return tidy(direction === 'against' ? c * (1 - step) : c + (1 - c) * step);
}

export interface BeliefInput {
  mindId: string;
  statement: string;
  confidence: number;
}

export async function formBelief(store: Store, input: BeliefInput): Promise<{ ok: true; belief: BeliefRecord } | { ok: false; problems: Problem[] }> {
  const problems: Problem[] = [];
  if (typeof input.statement !== 'string' || input.statement.trim() === '') {
    problems.push({ code: 'missing_statement', path: 'statement', message: 'a belief states something' });
  }
  if (typeof input.confidence !== 'number' || !Number.isFinite(input.confidence) || input.confidence < 0 || input.confidence > 1) {
    problems.push({ code: 'invalid_confidence', path: 'confidence', message: 'confidence is a number from 0 to 1' });
  }
  if (problems.length > 0) return { ok: false, problems };
  if (!(await store.minds.get(input.mindId))) {
    return { ok: false, problems: [{ code: 'unknown_mind', path: 'mindId', message: `no mind with id ${input.mindId}` }] };
  }
  const belief = await store.beliefs.create({ mindId: input.mindId, statement: input.statement.trim(), confidence: tidy(input.confidence) });
  return { ok: true, belief };
}

export interface EvidenceInput {
  direction: EvidenceDirection;
  weight: number;
  /** Where the evidence came from, e.g. `prediction:<id>`. */
  source: string;
  note: string;
}

/**
 * Adds one entry of evidence to a belief and moves its confidence by the rule, then appends
 * `belief_updated`. Runs on the repositories it is given, so a caller's transaction covers it.
 * The revision is conditional on the version read; if another writer got in between, it reads
 * again and retries. `at` (from the store's clock) dates the entry. Undefined when the belief
 * does not exist.
 */
export async function addEvidence(repos: Repositories, beliefId: string, input: EvidenceInput, at: Date): Promise<BeliefRecord | undefined> {
  for (let attempt = 0; attempt < MAX_REVISION_ATTEMPTS; attempt += 1) {
    const belief = await repos.beliefs.get(beliefId);
    if (!belief) return undefined;
    const after = revisedConfidence(belief.confidence, input.direction, input.weight);
    const entry: BeliefEvidence = {
      direction: input.direction,
      weight: tidy(clamp01(input.weight)),
      source: input.source,
      note: input.note,
      confidence_before: belief.confidence,
      confidence_after: after,
      at: at.toISOString(),
    };
    const revised = await repos.beliefs.revise(belief.id, belief.version, { confidence: after, evidence: [...belief.evidence, entry] });
    if (!revised) continue;
    await repos.events.append({
      type: 'belief_updated',
      mindId: belief.mindId,
      data: {
        belief_id: belief.id,
        direction: input.direction,
        weight: entry.weight,
        source: input.source,
        from: belief.confidence,
        to: after,
      },
    });
    return revised;
  }
  throw new Error(`belief ${beliefId} kept changing under ${MAX_REVISION_ATTEMPTS} revisions; giving up`);
}

/**
 * The beliefs among `ids` that `mindId` holds, by id: what a plan's assumptions are checked
 * against when it is submitted or previewed. An id that is not one, or names another mind's
 * belief, is simply not held.
 */
export async function heldBeliefs(store: Pick<Store, 'beliefs'>, mindId: string, ids: readonly string[]): Promise<Map<string, BeliefRecord>> {
  const held = new Map<string, BeliefRecord>();
  for (const id of ids.filter(isId)) {
    const belief = await store.beliefs.get(id);
    if (belief && belief.mindId === mindId) held.set(id, belief);
  }
  return held;
}
