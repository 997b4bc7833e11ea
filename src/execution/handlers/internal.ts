// Internal steps are deterministic code from a closed vocabulary, never a capability.
// summarise_findings folds the results of its dependencies (failures included) into findings,
// which re-enter cognition as an observation and beliefs (src/mind/findings.ts); notify_operator
// leaves a note for the operator (an escalation tells instead of repeating a failed action),
// with the findings of the summary it follows.

import type { JsonObject, JsonValue } from '../../core/plan.ts';
import { InternalActions } from '../../core/vocabulary.ts';
import { findingJson, summaryOf } from '../../mind/findings.ts';
import type { StepRecord } from '../../store/index.ts';
import type { StepScene } from '../apply.ts';
import type { StepIO } from '../pass.ts';
import type { ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';

/**
 * The findings of a step's dependencies as one observation (pure, see src/mind/findings.ts):
 * the summary in words, the findings most severe first, and how each dependency finished.
 */
export function summariseFindings(step: StepRecord, steps: readonly StepRecord[]): { observation: JsonObject; observed: ReturnType<typeof summaryOf> } {
  const deps = step.dependsOn.flatMap((key) => steps.find((s) => s.key === key) ?? []);
  const observed = summaryOf(deps.map((d) => ({ ...d, observation: (d.observation ?? null) as JsonValue | null })));
  const observation: JsonObject = {
    summary: observed.summary,
    findings: observed.findings.map(findingJson),
    steps: deps.map((d) => ({ key: d.key, title: d.title, status: d.status })),
  };
  return { observation, observed };
}

/** The findings a note's summary dependencies made, in words, to go with the note. */
function findingsForNote(step: StepRecord, steps: readonly StepRecord[]): string {
  const summaries = step.dependsOn.flatMap((key) => {
    const dep = steps.find((s) => s.key === key && s.status === 'completed' && s.kind === 'internal' && s.spec.action === 'summarise_findings');
    const summary = (dep?.observation as { summary?: unknown } | null)?.summary;
    return dep && typeof summary === 'string' ? [`${dep.key}: ${summary}`] : [];
  });
  return summaries.length > 0 ? ` Findings ${summaries.join(' ')}` : '';
}

export async function runInternalStep(ctx: ExecutorContext, scene: StepScene, _io: StepIO): Promise<StepDecision> {
  const { step, plan } = scene;
  const action = step.spec.action;
  if (!InternalActions.has(action)) {
    return { kind: 'fail', reason: 'unknown internal action', error: `"${String(action)}" is not an internal action`, failure: 'step_failed' };
  }
  if (action === 'summarise_findings') {
    const { observation, observed } = summariseFindings(step, plan.steps);
    // The summary re-enters the mind with the step's move (an observation event and beliefs).
    return {
      kind: 'complete',
      reason: observed.summary,
      result: { summary: observed.summary },
      observation,
      effects: [{ type: 'record_findings', summary: observed.summary, findings: observed.findings }],
    };
  }
  const stated = typeof step.spec.message === 'string' && step.spec.message !== '' ? step.spec.message : `${step.title} (plan "${plan.objective}")`;
  const message = `${stated}${findingsForNote(step, plan.steps)}`;
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
