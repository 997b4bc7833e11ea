// A verify step resolves another step's prediction by observation. The check is made again and
// again (without prompting) until it holds or the window closes; a hold confirms the prediction,
// a closed window refutes it, and an observation that cannot be made at all leaves the outcome
// unknown: the prediction expires and the step fails as unverified.

import { addSeconds } from '../../core/clock.ts';
import type { Check, JsonObject } from '../../core/plan.ts';
import type { Comparison } from '../../core/vocabulary.ts';
import { judgeObservation, type Judgement } from '../../mind/predictions.ts';
import type { PredictionRecord, StepRecord } from '../../store/index.ts';
import type { StepScene } from '../apply.ts';
import type { StepIO } from '../pass.ts';
import { observe, type CheckOutcome } from '../checks.ts';
import { DEFAULT_VERIFY_INTERVAL_SECONDS, stepOrigin, type ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';
import { evidenceOf } from '../explain.ts';

/** The check a verify step makes: its own capability if it names one, spec overrides on top of the expectation's check. */
export function verifyCheck(step: StepRecord, verified: StepRecord): Check | null {
  const expected = verified.expectation?.check;
  if (!expected) return null;
  const spec = step.spec;
  const own = step.capability !== '';
  return {
    capability: own ? step.capability : expected.capability,
    params: own ? step.params : expected.params,
    field: typeof spec.field === 'string' ? spec.field : expected.field,
    comparison: typeof spec.comparison === 'string' ? (spec.comparison as Comparison) : expected.comparison,
    ...(spec.value !== undefined ? { value: spec.value } : expected.value !== undefined ? { value: expected.value } : {}),
  };
}

function intervalOf(step: StepRecord): number {
  const interval = step.spec.interval_seconds;
  return typeof interval === 'number' && interval > 0 ? interval : DEFAULT_VERIFY_INTERVAL_SECONDS;
}

/** What a judgement of the prediction means for the verify step (pure). */
export function decideVerification(step: StepRecord, prediction: PredictionRecord, judgement: Judgement, outcome: CheckOutcome, now: Date): StepDecision {
  const observed = 'observed' in judgement && judgement.observed !== undefined ? judgement.observed : null;
  switch (judgement.status) {
    case 'confirmed':
      return {
        kind: 'complete',
        reason: `confirmed: ${prediction.statement}`,
        observation: { observed, prediction_id: prediction.id },
        executionId: outcome.executionId,
        effects: [{ type: 'resolve_prediction', predictionId: prediction.id, status: 'confirmed', observed, note: judgement.note, observedAt: now }],
      };
    case 'wait': {
      const next = addSeconds(now, intervalOf(step));
      // One last look just after the window closes decides between refuted and confirmed.
      const last = addSeconds(prediction.windowClosesAt, 1);
      const until = next.getTime() < last.getTime() ? next : last;
      const seen: JsonObject = outcome.observation.kind === 'not_held' ? { observed: outcome.observation.observed ?? null } : {};
      return { kind: 'wait', until, reason: `${judgement.note}; looking again at ${until.toISOString()}`, observation: { ...seen, prediction_id: prediction.id } };
    }
    case 'refuted':
      return {
        kind: 'fail',
        reason: `the window closed and "${prediction.statement}" did not hold`,
        error: `expectation failed: ${prediction.statement} (observed ${JSON.stringify(observed)})`,
        failure: 'expectation_failed',
        // The verdict is what an expectation_refuted abort condition reads (abort.ts).
        observation: { observed, prediction_id: prediction.id, verdict: 'refuted' },
        executionId: outcome.executionId,
        effects: [{ type: 'resolve_prediction', predictionId: prediction.id, status: 'refuted', observed, note: judgement.note }],
      };
    case 'expired':
      return {
        kind: 'fail',
        reason: 'the outcome could not be observed',
        error: `unverified outcome: ${judgement.note}`,
        failure: 'step_failed',
        observation: { prediction_id: prediction.id, verdict: 'expired' },
        executionId: outcome.executionId,
        effects: [{ type: 'resolve_prediction', predictionId: prediction.id, status: 'expired', note: judgement.note }],
      };
  }
}

/** A prediction someone else already resolved settles the step the same way (pure). */
export function adoptResolved(prediction: PredictionRecord): StepDecision {
  const note = typeof prediction.outcome?.note === 'string' ? prediction.outcome.note : '';
  switch (prediction.status) {
    case 'confirmed':
      return { kind: 'complete', reason: `confirmed: ${prediction.statement}`, observation: { prediction_id: prediction.id } };
    case 'refuted':
      return {
        kind: 'fail',
        reason: 'the prediction was refuted',
        error: `expectation failed: ${prediction.statement}`,
        failure: 'expectation_failed',
        observation: { prediction_id: prediction.id, verdict: 'refuted' },
      };
    default:
      return { kind: 'fail', reason: 'the outcome could not be observed', error: `unverified outcome: ${note || 'the prediction expired'}`, failure: 'step_failed' };
  }
}

export async function runVerifyStep(ctx: ExecutorContext, scene: StepScene, io: StepIO): Promise<StepDecision> {
  const { step, plan } = scene;
  const verified = plan.steps.find((s) => s.key === step.spec.verifies);
  if (!verified) return { kind: 'fail', reason: 'nothing to verify', error: `no step ${String(step.spec.verifies)} in this plan`, failure: 'step_failed' };
  if (verified.status === 'skipped') return { kind: 'skip', reason: `${verified.key} was skipped, so nothing was done that needs verifying` };
  const prediction = verified.predictionId ? await ctx.store.predictions.get(verified.predictionId) : undefined;
  if (!prediction) {
    return { kind: 'fail', reason: 'nothing to verify', error: `${verified.key} left no prediction to resolve`, failure: 'step_failed' };
  }
  if (prediction.status !== 'open') return adoptResolved(prediction);
  const check = verifyCheck(step, verified);
  if (!check) return { kind: 'fail', reason: 'nothing to verify', error: `${verified.key} states no expectation`, failure: 'step_failed' };
  const outcome = await observe(
    ctx,
    io,
    { mindId: plan.mindId, intentionId: plan.intentionId, origin: stepOrigin(step.id), evidence: { ...evidenceOf(scene), prediction_id: prediction.id }, why: `verify: ${prediction.statement}` },
    check,
  );
  const now = ctx.clock.now();
  return decideVerification(step, prediction, judgeObservation(prediction, outcome.observation, now), outcome, now);
}
