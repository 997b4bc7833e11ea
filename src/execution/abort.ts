// When a plan stops: its abort conditions evaluated against its steps, and which failed steps a
// summary folds in instead of failing the plan. Pure: decided from the steps a pass (or a
// settlement) already holds, so stopping a plan costs no read of its own. The executor asks
// when a step of the plan has just finished (failed, or settled with the others); see
// docs/executor.md, "Abort conditions".

import type { AbortCondition } from '../core/abort-conditions.ts';
import type { JsonObject } from '../core/plan.ts';
import type { StepStatus } from '../core/vocabulary.ts';
import type { NewEvent, PlanRecord, StepRecord } from '../store/index.ts';

/** An abort condition that holds, and the facts that make it hold, in words. */
export interface HeldAbort {
  condition: AbortCondition;
  /** Its place in the plan's abort_conditions. */
  index: number;
  because: string;
}

const UNSUCCESSFUL: readonly StepStatus[] = ['failed', 'cancelled'];

/** A step that folds its dependencies' outcomes, failures included, into findings. */
export function foldsFailures(step: Pick<StepRecord, 'kind' | 'spec'>): boolean {
  return step.kind === 'internal' && step.spec.action === 'summarise_findings';
}

/**
 * Whether `failed`'s failure is a finding rather than the plan's failure: a summary depends on it
 * directly and has not itself failed or been cancelled.
 */
export function isFoldedFailure(failed: StepRecord, steps: readonly StepRecord[]): boolean {
  return steps.some((s) => foldsFailures(s) && s.dependsOn.includes(failed.key) && !UNSUCCESSFUL.includes(s.status));
}

/** A verify step that failed because what it observed refuted the expectation (not because nothing could be observed). */
function refuted(step: StepRecord): boolean {
  if (step.kind !== 'verify' || step.status !== 'failed') return false;
  const observation = step.observation as JsonObject | null;
  if (observation && typeof observation === 'object' && !Array.isArray(observation) && 'verdict' in observation) return observation.verdict === 'refuted';
  return step.error.startsWith('expectation failed');
}

function listed(keys: readonly string[]): string {
  return keys.length <= 1 ? (keys[0] ?? '') : `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)!}`;
}

/** The first of `conditions` that holds over `steps`, or null (pure; display_only never holds). */
export function heldAbort(conditions: readonly AbortCondition[], steps: readonly StepRecord[]): HeldAbort | null {
  const byKey = new Map(steps.map((s) => [s.key, s]));
  for (const [index, condition] of conditions.entries()) {
    switch (condition.when) {
      case 'step_failed': {
        const step = condition.step ? byKey.get(condition.step) : undefined;
        if (step?.status === 'failed') return { condition, index, because: `${step.key} failed: ${step.error || step.statusReason || 'no reason given'}` };
        break;
      }
      case 'expectation_refuted': {
        const step = condition.step ? byKey.get(condition.step) : undefined;
        if (step && refuted(step)) return { condition, index, because: `${step.key} refuted its expectation: ${step.error || step.statusReason}` };
        break;
      }
      case 'every_observation_failed': {
        const watched = (condition.steps ?? []).map((key) => byKey.get(key));
        if (watched.length === 0 || watched.some((s) => s === undefined)) break;
        const all = watched as StepRecord[];
        if (all.every((s) => UNSUCCESSFUL.includes(s.status))) {
          const why = all.map((s) => `${s.key} ${s.status}${s.error || s.statusReason ? ` (${s.error || s.statusReason})` : ''}`).join('; ');
          return { condition, index, because: `none of ${listed(all.map((s) => s.key))} succeeded: ${why}` };
        }
        break;
      }
      case 'display_only':
        break;
    }
  }
  return null;
}

/** The plan's status reason once it stops on `held`. */
export function abortReason(held: HeldAbort): string {
  return `aborted: ${held.condition.statement} (${held.because})`;
}

/** `plan_aborted`, naming the condition that held and why (pure). */
export function abortEvent(plan: Pick<PlanRecord, 'id' | 'mindId' | 'intentionId' | 'revision'>, held: HeldAbort, executor: string): NewEvent {
  const condition: JsonObject = { when: held.condition.when, statement: held.condition.statement };
  if (held.condition.step) condition.step = held.condition.step;
  if (held.condition.steps) condition.steps = held.condition.steps;
  return {
    type: 'plan_aborted',
    mindId: plan.mindId,
    intentionId: plan.intentionId,
    planId: plan.id,
    data: { condition, index: held.index, because: held.because, revision: plan.revision, executor },
  };
}

/** `steps` with the cancellations a settlement decided made (pure). */
export function withCancellations(steps: readonly StepRecord[], cancel: readonly { step: StepRecord; reason: string }[]): StepRecord[] {
  const why = new Map(cancel.map((c) => [c.step.id, c.reason]));
  return steps.map((s) => (why.has(s.id) ? { ...s, status: 'cancelled' as const, statusReason: why.get(s.id)! } : s));
}
