// A wait step pauses its branch. The end of the wait is written into the step (result.until and
// next_run_at) the first time it runs; nothing sleeps, so a restart does not shorten or repeat it.

import { addSeconds } from '../../core/clock.ts';
import type { StepRecord } from '../../store/index.ts';
import type { StepScene } from '../apply.ts';
import type { StepIO } from '../pass.ts';
import type { ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';

/** The next move of a wait step at `now` (pure). */
export function decideWait(step: StepRecord, now: Date): StepDecision {
  const stored = step.result as { until?: unknown } | null;
  const seconds = Number(step.spec.seconds);
  const until = stored && typeof stored.until === 'string' ? new Date(stored.until) : addSeconds(now, seconds);
  if (now.getTime() >= until.getTime()) return { kind: 'complete', reason: `waited ${seconds} s`, result: { until: until.toISOString() } };
  return { kind: 'wait', until, reason: `waiting until ${until.toISOString()}`, state: { until: until.toISOString() } };
}

export async function runWaitStep(ctx: ExecutorContext, scene: StepScene, _io: StepIO): Promise<StepDecision> {
  return decideWait(scene.step, ctx.clock.now());
}
