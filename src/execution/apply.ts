// The one place a StepDecision becomes a change in the store. The step's conditional move comes
// first; only if it wins are its consequences written, in the same transaction, so a lost race
// leaves nothing but the records of the calls it made (every call stays traceable by origin)
// and a won one leaves all of it. A pass's moves share one transaction (applyMoves). What must
// happen after the commit (settling the plan, reconsidering a failure, resuming a parent) runs
// once the transaction is over.

import { isEmpty, writeRecords, type CallRecords } from '../capabilities/call-records.ts';
import type { JsonObject, JsonValue } from '../core/plan.ts';
import type { EventType, StepStatus } from '../core/vocabulary.ts';
import { abandonIntention, blockIntention, formSubordinate, fulfilIntention, resumeParent, suspendIntention } from '../mind/intentions.ts';
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

/** The status change a decision makes, with the columns and the event that go with it. */
interface Transition {
  to: StepStatus;
  patch: StepPatch;
  event: EventType | null;
}

/** The move a decision makes (pure). `keep` makes none. */
export function moveOf(decision: Exclude<StepDecision, { kind: 'keep' }>): Transition {
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

/** A decision about a step and how to apply it: what applyDecision and applyMoves take. */
export interface Move {
  scene: StepScene;
  decision: StepDecision;
  options: ApplyOptions;
}

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

function newAfter(): AfterCommit {
  return { settle: false, failure: null, resumeParentOf: null };
}

/** Writes one move inside an open unit of work: its records, its conditional update and, if it won, its consequences. */
async function writeMove(ctx: ExecutorContext, scoped: Store, move: Move, after: AfterCommit): Promise<StepRecord | undefined> {
  const { scene, decision, options } = move;
  const { step, plan } = scene;
  const records = options.records && !isEmpty(options.records) ? options.records : null;
  if (decision.kind === 'keep') {
    if (records) await writeRecords(scoped, records);
    await options.alsoWrite?.(scoped);
    if (!decision.at) return step;
    return scoped.steps.transition(step.id, options.from, step.status, { nextRunAt: decision.at }, options.guard ?? {});
  }
  const transition = moveOf(decision);
  let current = await scoped.steps.transition(step.id, options.from, transition.to, { ...transition.patch, ...(options.countAttempt ? { countAttempt: true } : {}) }, options.guard ?? {});
  // The calls' records are written whether or not the move won; the move's own event joins
  // their events in one statement, after them, so the log reads: decision, act, move.
  const moveEvent = current && transition.event ? [moveEventOf(ctx, decision, current, transition.event, plan)] : [];
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
      if (formed) current = (await scoped.steps.transition(step.id, transition.to, transition.to, { intentionId: formed.subordinate.id })) ?? current;
      break;
    }
    case 'block':
      if (decision.intention === 'outcome_unverified') await blockIntention(scoped, plan.intentionId, 'outcome_unverified', { plan_id: plan.id, step_id: step.id });
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
}

/** What must happen once a won move is committed: resuming a parent, reconsidering a failure, settling the plan. */
async function afterMove(ctx: ExecutorContext, move: Move, after: AfterCommit, moved: StepRecord | undefined): Promise<void> {
  const { scene, decision, options } = move;
  if (!moved) {
    ctx.log.debug('step moved by someone else; decision dropped', { step: scene.step.id, decision: decision.kind });
    return;
  }
  if (after.resumeParentOf) await resumeParent(ctx.store, after.resumeParentOf);
  if (after.failure) await reconsiderPlan(ctx, scene.plan.id, after.failure.kind, after.failure.why);
  else if (after.settle) {
    if (options.deferSettle) options.deferSettle(scene.plan.id);
    else await settlePlan(ctx, scene.plan.id);
  }
}

/**
 * Applies a decision about `scene.step` in one transaction. Returns the step as it now is, or
 * undefined when the move lost (another executor, an operator or a replan moved the step
 * first): then nothing but the calls' records was written.
 */
export async function applyDecision(ctx: ExecutorContext, scene: StepScene, decision: StepDecision, options: ApplyOptions): Promise<StepRecord | undefined> {
  const move = { scene, decision, options };
  if (decision.kind === 'keep' && !decision.at && !(options.records && !isEmpty(options.records)) && !options.alsoWrite) return scene.step;
  const after = newAfter();
  const moved = await inUnitOfWork(ctx.store, (scoped) => writeMove(ctx, scoped, move, after));
  if (decision.kind !== 'keep') await afterMove(ctx, move, after, moved);
  return moved;
}

/**
 * Applies several moves in one transaction: one commit for a whole batch of steps. Should the
 * batch fail (one move's records cannot be written, say), each move is applied on its own, so
 * one bad step never holds back the others; a move that fails alone is logged and counts as lost.
 */
export async function applyMoves(ctx: ExecutorContext, moves: readonly Move[]): Promise<(StepRecord | undefined)[]> {
  if (moves.length <= 1) return Promise.all(moves.map((m) => applyDecision(ctx, m.scene, m.decision, m.options)));
  const afters = moves.map(newAfter);
  let results: (StepRecord | undefined)[];
  try {
    results = await inUnitOfWork(ctx.store, async (scoped) => {
      const out: (StepRecord | undefined)[] = [];
      for (const [i, move] of moves.entries()) out.push(await writeMove(ctx, scoped, move, afters[i]!));
      return out;
    });
  } catch (error) {
    ctx.log.warn('a batch of step moves failed; applying them one at a time', { moves: moves.length, error: error instanceof Error ? error.message : String(error) });
    const alone: (StepRecord | undefined)[] = [];
    for (const move of moves) {
      try {
        alone.push(await applyDecision(ctx, move.scene, move.decision, move.options));
      } catch (single) {
        ctx.log.error('a step move failed', { step: move.scene.step.id, error: single instanceof Error ? single.stack ?? single.message : String(single) });
        alone.push(undefined);
      }
    }
    return alone;
  }
  for (const [i, move] of moves.entries()) if (move.decision.kind !== 'keep') await afterMove(ctx, move, afters[i]!, results[i]);
  return results;
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
