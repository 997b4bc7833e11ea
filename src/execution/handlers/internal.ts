// Internal steps are deterministic code from a closed vocabulary, never a capability.
// summarise_findings folds the results of its dependencies into one observation, which is how
// a diagnosis re-enters cognition; notify_operator leaves a note for the operator (an
// escalation tells instead of repeating a failed action).

import type { JsonObject, JsonValue } from '../../core/plan.ts';
import { InternalActions } from '../../core/vocabulary.ts';
import type { StepRecord } from '../../store/index.ts';
import type { StepScene } from '../apply.ts';
import type { StepIO } from '../pass.ts';
import type { ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';

function summaryOf(step: StepRecord): string {
  const result = step.result as { summary?: unknown } | null;
  if (result && typeof result.summary === 'string') return result.summary;
  return step.error || step.statusReason || step.status;
}

/** The findings of a step's dependencies as one observation (pure). */
export function summariseFindings(step: StepRecord, steps: readonly StepRecord[]): JsonObject {
  const findings: JsonObject[] = step.dependsOn.flatMap((key) => {
    const dep = steps.find((s) => s.key === key);
    if (!dep) return [];
    return [
      {
        key: dep.key,
        title: dep.title,
        kind: dep.kind,
        capability: dep.capability,
        target: dep.target,
        status: dep.status,
        summary: summaryOf(dep),
        observation: (dep.observation ?? null) as JsonValue,
      },
    ];
  });
  const lines = findings.map((f) => `${String(f.key)} (${String(f.title)}): ${String(f.status)}, ${String(f.summary)}`);
  return { summary: lines.length > 0 ? lines.join('; ') : 'no findings', findings };
}

export async function runInternalStep(ctx: ExecutorContext, scene: StepScene, _io: StepIO): Promise<StepDecision> {
  const { step, plan } = scene;
  const action = step.spec.action;
  if (!InternalActions.has(action)) {
    return { kind: 'fail', reason: 'unknown internal action', error: `"${String(action)}" is not an internal action`, failure: 'step_failed' };
  }
  if (action === 'summarise_findings') {
    const observation = summariseFindings(step, plan.steps);
    return { kind: 'complete', reason: String(observation.summary), result: { summary: observation.summary ?? '' }, observation };
  }
  const message = typeof step.spec.message === 'string' && step.spec.message !== '' ? step.spec.message : `${step.title} (plan "${plan.objective}")`;
  // A step re-run after a crash must not leave the note twice.
  const earlier = await ctx.store.events.list({ planId: plan.id, limit: 1000 });
  const noted = earlier.some((e) => e.type === 'operator_note' && e.stepId === step.id);
  return {
    kind: 'complete',
    reason: 'the operator was told',
    result: { summary: message },
    observation: { message },
    effects: noted ? [] : [{ type: 'operator_note', message }],
  };
}
