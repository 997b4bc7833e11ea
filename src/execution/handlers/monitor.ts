// A monitor step holds a read-only check to a stable period: it completes once the check has
// held at every look for `stable_seconds`, and fails if that has not happened by its deadline.
// Its progress (when it started, since when the check has held) is kept in the step's result,
// and its next look in next_run_at, so a restarted executor carries on where it was.

import { addSeconds } from '../../core/clock.ts';
import type { Check, JsonObject, MonitorSpec } from '../../core/plan.ts';
import type { Comparison } from '../../core/vocabulary.ts';
import type { Observation } from '../../mind/predictions.ts';
import type { StepRecord } from '../../store/index.ts';
import type { StepScene } from '../apply.ts';
import type { StepIO } from '../pass.ts';
import { observe } from '../checks.ts';
import { DEFAULT_MONITOR_INTERVAL_SECONDS, stepOrigin, type ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';
import { evidenceOf } from '../explain.ts';

export interface MonitorProgress {
  started_at: string;
  /** When the current unbroken run of holds began; null when the last look did not hold. */
  held_since: string | null;
  checks: number;
}

export function monitorSpec(step: StepRecord): MonitorSpec {
  const spec = step.spec;
  return {
    field: String(spec.field),
    comparison: spec.comparison as Comparison,
    ...(spec.value !== undefined ? { value: spec.value } : {}),
    stable_seconds: Number(spec.stable_seconds),
    deadline_seconds: Number(spec.deadline_seconds),
    ...(typeof spec.interval_seconds === 'number' ? { interval_seconds: spec.interval_seconds } : {}),
  };
}

export function progressOf(step: StepRecord, now: Date): MonitorProgress {
  const stored = step.result as Partial<MonitorProgress> | null;
  if (stored && typeof stored.started_at === 'string') {
    return { started_at: stored.started_at, held_since: stored.held_since ?? null, checks: stored.checks ?? 0 };
  }
  return { started_at: now.toISOString(), held_since: null, checks: 0 };
}

/** The next move of a monitor after one look (pure). */
export function decideMonitor(spec: MonitorSpec, before: MonitorProgress, seen: Observation, now: Date): StepDecision {
  const progress: MonitorProgress = { ...before, checks: before.checks + 1 };
  const observed = seen.kind === 'unobservable' ? null : (seen.observed ?? null);
  if (seen.kind === 'unobservable' && seen.lasting) {
    return { kind: 'fail', reason: 'the check cannot be observed', error: `not observable: ${seen.why}`, failure: 'step_failed', result: progress as unknown as JsonObject };
  }
  progress.held_since = seen.kind === 'held' ? (before.held_since ?? now.toISOString()) : null;
  const heldFor = progress.held_since ? (now.getTime() - Date.parse(progress.held_since)) / 1000 : 0;
  if (progress.held_since && heldFor >= spec.stable_seconds) {
    return {
      kind: 'complete',
      reason: `held for ${Math.round(heldFor)} s without a break (${progress.checks} looks)`,
      result: progress as unknown as JsonObject,
      observation: { observed, held_since: progress.held_since, checks: progress.checks },
    };
  }
  const deadline = addSeconds(new Date(progress.started_at), spec.deadline_seconds);
  if (now.getTime() >= deadline.getTime()) {
    return {
      kind: 'fail',
      reason: 'not stable before the deadline',
      error: `${spec.field} did not hold for ${spec.stable_seconds} s within ${spec.deadline_seconds} s`,
      failure: 'step_failed',
      result: progress as unknown as JsonObject,
      observation: { observed, checks: progress.checks },
    };
  }
  const candidates = [addSeconds(now, spec.interval_seconds ?? DEFAULT_MONITOR_INTERVAL_SECONDS), deadline];
  if (progress.held_since) candidates.push(addSeconds(new Date(progress.held_since), spec.stable_seconds));
  const until = new Date(Math.min(...candidates.map((d) => d.getTime())));
  const how = seen.kind === 'held' ? `holding for ${Math.round(heldFor)} s of ${spec.stable_seconds}` : seen.kind === 'not_held' ? 'not holding' : `not observable right now (${seen.why})`;
  return { kind: 'wait', until, reason: `${how}; next look at ${until.toISOString()}`, state: progress as unknown as JsonObject, observation: { observed, checks: progress.checks } };
}

export async function runMonitorStep(ctx: ExecutorContext, scene: StepScene, io: StepIO): Promise<StepDecision> {
  const { step, plan } = scene;
  const spec = monitorSpec(step);
  const check: Check = { capability: step.capability, params: step.params, field: spec.field, comparison: spec.comparison, ...(spec.value !== undefined ? { value: spec.value } : {}) };
  const before = progressOf(step, ctx.clock.now());
  const outcome = await observe(ctx, io, { mindId: plan.mindId, intentionId: plan.intentionId, origin: stepOrigin(step.id), evidence: evidenceOf(scene), why: `monitor: ${step.title}` }, check);
  return decideMonitor(spec, before, outcome.observation, ctx.clock.now());
}
