// Predictions: what a step expected, made when the step acted and resolved by observation.
//
// - confirmed: the check held inside the window. Evidence for the supporting belief.
// - refuted: the window closed while the check kept failing. A prediction error: evidence
//   against the supporting belief, whose confidence drops by the belief rule.
// - expired: nothing could be observed (policy would not let the check run, or no observation
//   came before the window closed). Unknown is not refuted: the belief is left as it was and
//   calibration ignores the prediction.
//
// Every resolution appends `prediction_resolved`; a refutation also appends `prediction_error`.

import { addSeconds } from '../core/clock.ts';
import type { Expectation, JsonObject, JsonValue } from '../core/plan.ts';
import type { BeliefRecord, PredictionRecord, ResolvedPredictionStatus, Store } from '../store/index.ts';
import { addEvidence } from './beliefs.ts';

/** What a prediction is linked to: the step's intention, plan, step, execution and event, and the belief it tests. */
export interface PredictionLinks {
  mindId: string;
  intentionId?: string | null;
  planId?: string | null;
  stepId?: string | null;
  beliefId?: string | null;
  executionId?: string | null;
  eventId?: string | null;
}

/** The prediction an expectation becomes when its step acts at `at` (pure). */
export function predictionFromExpectation(expectation: Expectation, at: Date) {
  return {
    statement: expectation.statement,
    verification: { check: expectation.check, within_seconds: expectation.within_seconds } as unknown as JsonObject,
    confidence: expectation.confidence,
    windowOpensAt: at,
    windowClosesAt: addSeconds(at, expectation.within_seconds),
  };
}

/** Stores the prediction of a step that just acted, with `prediction_made`. */
export async function makePrediction(store: Store, links: PredictionLinks, expectation: Expectation): Promise<PredictionRecord> {
  const made = predictionFromExpectation(expectation, store.clock.now());
  return store.transaction(async (tx) => {
    const prediction = await tx.predictions.create({ ...links, ...made });
    await tx.events.append({
      type: 'prediction_made',
      mindId: prediction.mindId,
      intentionId: prediction.intentionId,
      planId: prediction.planId,
      stepId: prediction.stepId,
      data: {
        prediction_id: prediction.id,
        statement: prediction.statement,
        confidence: prediction.confidence,
        window_closes_at: prediction.windowClosesAt.toISOString(),
        belief_id: prediction.beliefId,
        execution_id: prediction.executionId,
      },
    });
    return prediction;
  });
}

/** One attempt to observe what a prediction expects. */
export type Observation =
  | { kind: 'held'; observed?: JsonValue }
  | { kind: 'not_held'; observed?: JsonValue }
  /** The check could not be made; `lasting` when trying again cannot help (policy would ask or deny). */
  | { kind: 'unobservable'; why: string; lasting: boolean };

export type Judgement =
  | { status: ResolvedPredictionStatus; note: string; observed?: JsonValue }
  /** Not settled yet: observe again before the window closes. */
  | { status: 'wait'; note: string };

/**
 * What one observation at `now` means for a prediction (pure). A hold seen only after the
 * window closed cannot say whether the effect came in time, so it settles nothing but expiry.
 */
export function judgeObservation(prediction: Pick<PredictionRecord, 'windowClosesAt'>, observation: Observation, now: Date): Judgement {
  const open = now.getTime() <= prediction.windowClosesAt.getTime();
  const observed = 'observed' in observation && observation.observed !== undefined ? { observed: observation.observed } : {};
  switch (observation.kind) {
    case 'held':
      return open ? { status: 'confirmed', note: 'the check held inside the window', ...observed } : { status: 'expired', note: 'the check held, but only after the window had closed', ...observed };
    case 'not_held':
      return open ? { status: 'wait', note: 'the check does not hold yet' } : { status: 'refuted', note: 'the window closed and the check did not hold', ...observed };
    case 'unobservable':
      if (observation.lasting) return { status: 'expired', note: `not observable: ${observation.why}` };
      return open ? { status: 'wait', note: `not observable yet: ${observation.why}` } : { status: 'expired', note: `the window closed without an observation: ${observation.why}` };
  }
}

export interface ResolutionInput {
  status: ResolvedPredictionStatus;
  observed?: JsonValue;
  note?: string;
  /**
   * When the observation that decides it was made (now if absent). A confirmation counts when
   * it was observed while the window was open: a verify step judged with the time of its
   * observation and was then refused `window_closed` by the later time of the resolution, and
   * completed as confirmed while the prediction stayed open.
   */
  observedAt?: Date;
}

export type Resolution =
  | { resolved: true; prediction: PredictionRecord; belief: BeliefRecord | null }
  | { resolved: false; reason: 'unknown_prediction' | 'already_resolved' | 'window_closed'; prediction?: PredictionRecord };

/**
 * Resolves an open prediction once, with its consequences, in one transaction: the events, and
 * for a confirmation or refutation the evidence on the supporting belief (weighted by the
 * prediction's confidence). A confirmation after the window closed is refused.
 */
export async function resolvePrediction(store: Store, predictionId: string, input: ResolutionInput): Promise<Resolution> {
  const now = store.clock.now();
  return store.transaction(async (tx): Promise<Resolution> => {
    const seen = await tx.predictions.get(predictionId);
    if (!seen) return { resolved: false, reason: 'unknown_prediction' };
    if (seen.status !== 'open') return { resolved: false, reason: 'already_resolved', prediction: seen };
    const note = input.note ?? '';
    const outcome: JsonObject = { note, observed: input.observed ?? null };
    const guard = input.status === 'confirmed' ? { closesNoEarlierThan: input.observedAt ?? now } : {};
    const prediction = await tx.predictions.resolve(seen.id, input.status, outcome, guard);
    if (!prediction) {
      const again = await tx.predictions.get(seen.id);
      const reason = again?.status === 'open' ? 'window_closed' : 'already_resolved';
      return { resolved: false, reason, ...(again ? { prediction: again } : {}) };
    }
    const where = {
      mindId: prediction.mindId,
      intentionId: prediction.intentionId,
      planId: prediction.planId,
      stepId: prediction.stepId,
    };
    await tx.events.append({
      type: 'prediction_resolved',
      ...where,
      data: { prediction_id: prediction.id, status: prediction.status, statement: prediction.statement, confidence: prediction.confidence, note },
    });
    if (prediction.status === 'refuted') {
      await tx.events.append({
        type: 'prediction_error',
        ...where,
        data: {
          prediction_id: prediction.id,
          statement: prediction.statement,
          confidence: prediction.confidence,
          expected: prediction.verification,
          observed: input.observed ?? null,
          belief_id: prediction.beliefId,
          note,
        },
      });
    }
    let belief: BeliefRecord | null = null;
    if (prediction.beliefId && prediction.status !== 'expired') {
      const confirmed = prediction.status === 'confirmed';
      belief =
        (await addEvidence(
          tx,
          prediction.beliefId,
          {
            direction: confirmed ? 'for' : 'against',
            weight: prediction.confidence,
            source: `prediction:${prediction.id}`,
            note: `${confirmed ? 'confirmed' : 'refuted'}: ${prediction.statement}`,
          },
          now,
        )) ?? null;
    }
    return { resolved: true, prediction, belief };
  });
}

/**
 * Expires open predictions whose window closed with nobody resolving them: no observation was
 * made, so the outcome is unknown, not refuted. Returns the ones it expired.
 */
export async function expireOverduePredictions(store: Store, limit = 100): Promise<PredictionRecord[]> {
  const expired: PredictionRecord[] = [];
  for (const overdue of await store.predictions.listOverdue(store.clock.now(), limit)) {
    const result = await resolvePrediction(store, overdue.id, { status: 'expired', note: 'the window closed with no observation' });
    if (result.resolved) expired.push(result.prediction);
  }
  return expired;
}
