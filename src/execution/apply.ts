// The one place a StepDecision becomes a change in the store. The step's conditional move comes
// first; only if it wins are its consequences written, in the same transaction, so a lost race
// leaves no trace and a won one leaves all of it. What must happen after the commit (settling
// the plan, reconsidering a failure, resuming a parent) runs once the transaction is over.

import { isEmpty, writeRecords, type CallRecords } from '../capabilities/call-records.ts';
import type { JsonObject, JsonValue } from '../core/plan.ts';
import type { EventType, StepStatus } from '../core/vocabulary.ts';
import { abandonIntention, formSubordinate, fulfilIntention, resumeParent, suspendIntention } from '../mind/intentions.ts';
import { makePrediction, resolvePrediction } from '../mind/predictions.ts';
import type { FailureKind } from '../mind/reconsideration.ts';
import type { IntentionRecord, NewEvent, PlanWithSteps, StepGuard, StepPatch, StepRecord, Store } from '../store/index.ts';
import type { ExecutorContext } from './context.ts';
import type { Effect, StepDecision } from './decisions.ts';
import { reconsiderPlan } from './replan.ts';
import { settlePlan } from './settle.ts';
import { inUnitOfWork } from './unit-of-work.ts';

/** A step together with what deciding about it needs: its plan (with every step) and intention. */
export interface StepScene {
  step: StepRecord;
  plan: PlanWithSteps;
  intention: IntentionRecord | null;
}

/** The step with its plan and intention, read now (a pass reads them once: Pass.scene). */
export async function loadScene(store: Store, step: StepRecord): Promise<StepScene | undefined> {
  const plan = await store.plans.get(step.planId);
  if (!plan) return undefined;
  const intention = (await store.intentions.get(plan.intentionId)) ?? null;
  return { step, plan, intention };
}

export interface ApplyOptions {
  /** The status the step must still be in. */
  from: StepStatus | readonly StepStatus[];
  guard?: StepGuard;
  /** The move is the step's attempt (it acted before moving, without a claim): count it. */
  countAttempt?: boolean;
  /**
   * What the step's calls recorded (executions, policy and tool events): written in the same
   * transaction as the move, and written even when the move loses, so every call stays
   * traceable by its origin.
   */
  records?: CallRecords;
  /** Other writes that belong with the records (an approved request's move once its action ran), also made whether or not the move wins. */
  alsoWrite?: (scoped: Store) => Promise<void>;
  /**
   * Settling the plan after a completed or skipped step is left to the caller, which settles each
   * plan once after all of its moved steps (a pass does). Without it the plan is settled at once.
   */
  deferSettle?: (planId: string) => void;
}

interface Move {
  to: StepStatus;
  patch: StepPatch;
  event: EventType | null;
}

/** The move a decision makes (pure). `keep` makes none. */
export function moveOf(decision: Exclude<StepDecision, { kind: 'keep' }>): Move {
  const done = { leaseUntil: null, nextRunAt: null, statusReason: decision.reason } satisfies StepPatch;
  const withExecution = (id: string | null | undefined): StepPatch => (id ? { executionId: id } : {});
  switch (decision.kind) {
    case 'complete':
      return {
        to: 'completed',
        patch: { ...done, error: '', ...withExecution(decision.executionId), ...json('result', decision.result), ...json('observation', decision.observation) },
        event: 'plan_step_completed',
      };
    case 'skip':
      return { to: 'skipped', patch: { ...done, ...withExecution(decision.executionId), ...json('observation', decision.observation) }, event: 'plan_step_skipped' };
    case 'fail':
      return {
        to: 'failed',
        patch: { ...done, error: decision.error, ...withExecution(decision.executionId), ...json('result', decision.result), ...json('observation', decision.observation) },
        event: 'plan_step_failed',
      };
    case 'retry':
      return { to: 'ready', patch: { leaseUntil: null, nextRunAt: decision.at, statusReason: decision.reason, error: decision.error, ...withExecution(decision.executionId) }, event: null };
    case 'await_approval':
      return { to: 'awaiting_approval', patch: { ...done, approvalId: decision.approvalId }, event: null };
    case 'await_grant':
      return { to: 'awaiting_grant', patch: { ...done, requestId: decision.requestId }, event: null };
    case 'wait':
      return {
        to: 'waiting',
        patch: { leaseUntil: null, nextRunAt: decision.until, statusReason: decision.reason, ...json('result', decision.state), ...json('observation', decision.observation) },
        event: null,
      };
    case 'block':
      return { to: 'blocked', patch: { ...done, error: decision.error, ...withExecution(decision.executionId) }, event: 'plan_step_blocked' };
  }
}

function json<K extends 'result' | 'observation'>(key: K, value: JsonValue | undefined): Partial<Record<K, JsonValue>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, JsonValue>>);
}

interface AfterCommit {
  settle: boolean;
  failure: { kind: FailureKind; why: string } | null;
  resumeParentOf: string | null;
}

/**
 * Applies a decision about `scene.step`. Returns the step as it now is, or undefined when the
 * move lost (another executor, an operator or a replan moved the step first): then nothing
 * was written.
 */
/** The event that says a step moved, with what the move carries (pure). */
function moveEventOf(ctx: ExecutorContext, decision: Exclude<StepDecision, { kind: 'keep' }>, current: StepRecord, type: EventType, plan: PlanWithSteps): NewEvent {
  return {
    type,
    mindId: plan.mindId,
    intentionId: plan.intentionId,
    planId: plan.id,
    stepId: current.id,
    data: {
      key: current.key,
      kind: current.kind,
      reason: decision.reason,
      attempt: current.attempts,
      executor: ctx.name,
      ...(current.executionId ? { execution_id: current.executionId } : {}),
      ...(current.approvalId ? { approval_id: current.approvalId } : {}),
      ...(current.requestId ? { request_id: current.requestId } : {}),
      ...(decision.kind === 'fail' || decision.kind === 'block' ? { error: decision.error } : {}),
      ...(decision.kind === 'fail' ? { failure: decision.failure } : {}),
    },
  };
}

export async function applyDecision(
  ctx: ExecutorContext,
  scene: StepScene,
  decision: StepDecision,
  options: ApplyOptions,
): Promise<StepRecord | undefined> {
  const { store } = ctx;
  const { step, plan } = scene;
  const records = options.records && !isEmpty(options.records) ? options.records : null;
  if (decision.kind === 'keep') {
    if (!decision.at && !records && !options.alsoWrite) return step;
    return inUnitOfWork(store, async (scoped) => {
      if (records) await writeRecords(scoped, records);
      await options.alsoWrite?.(scoped);
      if (!decision.at) return step;
      return scoped.steps.transition(step.id, options.from, step.status, { nextRunAt: decision.at }, options.guard ?? {});
    });
  }
  const move = moveOf(decision);
  const after: AfterCommit = { settle: false, failure: null, resumeParentOf: null };

  const moved = await inUnitOfWork(store, async (scoped) => {
    let current = await scoped.steps.transition(step.id, options.from, move.to, { ...move.patch, ...(options.countAttempt ? { countAttempt: true } : {}) }, options.guard ?? {});
    // The calls' records are written whether or not the move won; the move's own event joins
    // their events in one statement, after them, so the log reads: decision, act, move.
    const moveEvent = current && move.event ? [moveEventOf(ctx, decision, current, move.event, plan)] : [];
    if (records) await writeRecords(scoped, records, moveEvent);
    else if (moveEvent.length > 0) await scoped.events.appendMany(moveEvent);
    await options.alsoWrite?.(scoped);
    if (!current) return undefined;

    for (const effect of decision.effects ?? []) {
      current = await applyEffect(scoped, scene, current, effect, after);
    }

    switch (decision.kind) {
      case 'complete':
      case 'skip':
        after.settle = true;
        break;
      case 'fail':
        after.failure = { kind: decision.failure, why: `${step.key} failed: ${decision.error || decision.reason}` };
        break;
      case 'await_approval':
      case 'await_grant': {
        if (current.intentionId) break;
        const reason = decision.kind === 'await_approval' ? 'awaiting_approval' : 'awaiting_grant';
        const formed = await formSubordinate(scoped, plan.intentionId, { objective: decision.objective, reason, origin: `plan_step:${step.id}` });
        if (formed) current = (await scoped.steps.transition(step.id, move.to, move.to, { intentionId: formed.subordinate.id })) ?? current;
        break;
      }
      case 'block':
        if (decision.intention === 'outcome_unverified') {
          const blocked = await scoped.intentions.transition(plan.intentionId, ['active', 'blocked'], 'blocked', 'outcome_unverified');
          if (blocked) {
            await scoped.events.append({
              type: 'intention_blocked',
              mindId: plan.mindId,
              intentionId: plan.intentionId,
              data: { reason: 'outcome_unverified', plan_id: plan.id, step_id: step.id },
            });
          }
        }
        if (decision.blockPlan) {
          const blockedPlan = await scoped.plans.transition(plan.id, 'executing', 'blocked', { statusReason: decision.reason });
          if (blockedPlan) await scoped.events.append({ type: 'plan_blocked', mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason: decision.reason, step_id: step.id } });
          await suspendIntention(scoped, plan.intentionId, decision.intention);
        }
        break;
      default:
        break;
    }
    return current;
  });

  if (!moved) {
    ctx.log.debug('step moved by someone else; decision dropped', { step: step.id, decision: decision.kind });
    return undefined;
  }
  if (after.resumeParentOf) await resumeParent(store, after.resumeParentOf);
  if (after.failure) await reconsiderPlan(ctx, plan.id, after.failure.kind, after.failure.why);
  else if (after.settle) {
    if (options.deferSettle) options.deferSettle(plan.id);
    else await settlePlan(ctx, plan.id);
  }
  return moved;
}

async function applyEffect(scoped: Store, scene: StepScene, current: StepRecord, effect: Effect, after: AfterCommit): Promise<StepRecord> {
  const { plan, intention } = scene;
  switch (effect.type) {
    case 'make_prediction': {
      const prediction = await makePrediction(
        scoped,
        {
          mindId: plan.mindId,
          intentionId: plan.intentionId,
          planId: plan.id,
          stepId: current.id,
          beliefId: intention?.beliefId ?? null,
          executionId: effect.executionId,
        },
        effect.expectation,
      );
      return (await scoped.steps.transition(current.id, current.status, current.status, { predictionId: prediction.id })) ?? current;
    }
    case 'resolve_prediction':
      await resolvePrediction(scoped, effect.predictionId, {
        status: effect.status,
        note: effect.note,
        ...(effect.observed !== undefined ? { observed: effect.observed } : {}),
      });
      return current;
    case 'fulfil_intention':
      await fulfilIntention(scoped, plan.intentionId, effect.reason);
      return current;
    case 'fulfil_subordinate':
      if (current.intentionId) {
        await fulfilIntention(scoped, current.intentionId);
        after.resumeParentOf = plan.intentionId;
      }
      return current;
    case 'abandon_subordinate':
      if (current.intentionId) {
        await abandonIntention(scoped, current.intentionId, effect.reason, { step_id: current.id });
        await resumeParent(scoped, plan.intentionId, current.intentionId);
        after.resumeParentOf = plan.intentionId;
      }
      return current;
    case 'requeued':
      await scoped.events.append({
        type: 'plan_step_released',
        mindId: plan.mindId,
        intentionId: plan.intentionId,
        planId: plan.id,
        stepId: current.id,
        data: { key: current.key, recovered: true, reason: effect.reason },
      });
      return current;
    case 'operator_note':
      await scoped.events.append({
        type: 'operator_note',
        mindId: plan.mindId,
        intentionId: plan.intentionId,
        planId: plan.id,
        stepId: current.id,
        data: { message: effect.message, key: current.key },
      });
      return current;
  }
}
