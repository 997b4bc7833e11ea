// Calibration: how well a mind's stated confidence matches what happened. Only predictions that
// were settled by observation count (confirmed = 1, refuted = 0); open and expired ones say
// nothing about the world and are left out, though their numbers are reported.

import type { PredictionRecord, Store } from '../store/index.ts';

export const CALIBRATION_BUCKETS = 10;

export interface CalibrationBucket {
  /** Confidences in [lower, upper); the last bucket also holds 1. */
  lower: number;
  upper: number;
  count: number;
  /** Mean stated confidence in the bucket; null when empty. */
  meanConfidence: number | null;
  /** Share of the bucket's predictions that were confirmed; null when empty. */
  observedRate: number | null;
}

export interface Calibration {
  /** Predictions counted: confirmed plus refuted. */
  resolved: number;
  confirmed: number;
  refuted: number;
  /** Left out: unknown is not refuted. */
  expired: number;
  open: number;
  buckets: CalibrationBucket[];
  /** Mean of (confidence − outcome)² over resolved predictions; 0 is perfect; null with none. */
  brier: number | null;
}

function tidy(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function bucketOf(confidence: number): number {
  // Tidy the product before flooring, so binary rounding just below a bucket edge cannot move a
  // confidence such as 0.6 into the bucket beneath it.
  return Math.min(CALIBRATION_BUCKETS - 1, Math.max(0, Math.floor(tidy(confidence * CALIBRATION_BUCKETS))));
}

/** Calibration of a set of predictions (pure). */
export function calibrate(predictions: readonly Pick<PredictionRecord, 'confidence' | 'status'>[]): Calibration {
  const sums = Array.from({ length: CALIBRATION_BUCKETS }, () => ({ count: 0, confidence: 0, confirmed: 0 }));
  let confirmed = 0;
  let refuted = 0;
  let expired = 0;
  let open = 0;
  let squared = 0;
  for (const p of predictions) {
    if (p.status === 'expired') expired += 1;
    else if (p.status === 'open') open += 1;
    else {
      const outcome = p.status === 'confirmed' ? 1 : 0;
      if (outcome) confirmed += 1;
      else refuted += 1;
      squared += (p.confidence - outcome) ** 2;
      const bucket = sums[bucketOf(p.confidence)]!;
      bucket.count += 1;
      bucket.confidence += p.confidence;
      bucket.confirmed += outcome;
    }
  }
  const resolved = confirmed + refuted;
  return {
    resolved,
    confirmed,
    refuted,
    expired,
    open,
    buckets: sums.map((b, i) => ({
      lower: tidy(i / CALIBRATION_BUCKETS),
      upper: tidy((i + 1) / CALIBRATION_BUCKETS),
      count: b.count,
      meanConfidence: b.count ? tidy(b.confidence / b.count) : null,
      observedRate: b.count ? tidy(b.confirmed / b.count) : null,
    })),
    brier: resolved ? tidy(squared / resolved) : null,
  };
}

/** The calibration of one mind, from all of its predictions. */
export async function calibrationOf(store: Store, mindId: string): Promise<Calibration> {
  return calibrate(await store.predictions.listByMind(mindId));
}
