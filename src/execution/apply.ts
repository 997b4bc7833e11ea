// The one place a StepDecision becomes a change in the store. The step's conditional move comes
// first; only if it wins are its consequences written, in the same transaction, so a lost race
// leaves nothing but the records of the calls it made (every call stays traceable by origin)
// and a won one leaves all of it. An approval request a call raised is the wait of its step's
// move, not a record of an act: it is written only with a move that won. A pass's moves share
// one transaction (applyMoves). What must happen after the commit (settling the plan,
// reconsidering a failure, resuming a parent) runs once the transaction is over.

import { isEmpty, mergeRecords, writeCallRows, type CallRecords } from '../capabilities/call-records.ts';
import type { StepVerb } from '../core/step-moves.ts';
import { RUNNING_PLAN_STATUSES, type EventType, type StepStatus } from '../core/vocabulary.ts';
import { abandonIntention, blockIntention, formSubordinate, fulfilIntention, resumeParent, suspendIntention } from '../mind/intentions.ts';
import { recordFindings } from '../mind/findings.ts';
import { makePrediction, resolvePrediction } from '../mind/predictions.ts';
import type { FailureKind } from '../mind/reconsideration.ts';
import type { IntentionRecord, NewEvent, PlanWithSteps, StepGuard, StepMove, StepPatch, StepRecord, Store } from '../store/index.ts';
import type { ExecutorContext } from './context.ts';
import type { Effect, StepDecision } from './decisions.ts';
import { abortReason, heldAbort, isFoldedFailure, type HeldAbort } from './abort.ts';
import { reconsiderPlan } from './replan.ts';
import { changesRunningStatus, settlePlan } from './settle.ts';
import { inUnitOfWork } from './unit-of-work.ts';
import { errorText, MAX_FAILURES } from './stuck.ts';

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
   * traceable by its origin; all but an approval request a call raised (and its events), which
   * is written only with a move that won (writeMoves).
   */
  records?: CallRecords;
  /** Other writes that belong with the records (an approved request's move once its action ran), also made whether or not the move wins. */
  alsoWrite?: (scoped: Store) => Promise<void>;
  /**
   * Settling the plan after a completed or skipped step is left to the caller, which settles each
   * plan once after all of its moved steps (a pass does), told the step as it now is. It is told
   * of every won move (`settle` says whether the move itself calls for settling), since what a
   * running plan shows follows all its steps (Pass.settleLater). Without it the plan is settled
   * at once when the move calls for it.
   */
  deferSettle?: (planId: string, moved: StepRecord, settle: boolean) => void;
}

/** The status change a decision makes, with the columns and the event that go with it. */
interface Transition {
  /** The verb of the step machine (src/core/step-moves.ts): the decision's own kind. */
  verb: StepVerb;
  to: StepStatus;
  patch: StepPatch;
  event: EventType | null;
}

/**
 * The move a decision makes (pure). `keep` makes none. A patch key left undefined leaves its
 * column as it is (StepPatch), so each patch is one literal of fixed keys rather than spreads of
 * optional parts: it is built for every step a pass moves.
 */
export function moveOf(decision: Exclude<StepDecision, { kind: 'keep' }>): Transition {
  switch (decision.kind) {
    case 'complete':
      return {
        verb: 'complete',
        to: 'completed',
        patch: {
          leaseUntil: null,
          nextRunAt: null,
          statusReason: decision.reason,
          error: '',
          executionId: executionOf(decision.executionId),
          result: decision.result,
          observation: decision.observation,
        },
        event: 'plan_step_completed',
      };
    case 'skip':
      return {
        verb: 'skip',
        to: 'skipped',
        patch: { leaseUntil: null, nextRunAt: null, statusReason: decision.reason, executionId: executionOf(decision.executionId), observation: decision.observation },
        event: 'plan_step_skipped',
      };
    case 'fail':
      return {
        verb: 'fail',
        to: 'failed',
        patch: {
          leaseUntil: null,
          nextRunAt: null,
          statusReason: decision.reason,
          error: decision.error,
          executionId: executionOf(decision.executionId),
          result: decision.result,
          observation: decision.observation,
        },
        event: 'plan_step_failed',
      };
    case 'retry':
      return {
        verb: 'retry',
        to: 'ready',
        patch: { leaseUntil: null, nextRunAt: decision.at, statusReason: decision.reason, error: decision.error, executionId: executionOf(decision.executionId) },
        event: null,
      };
    case 'await_approval':
      return { verb: 'await_approval', to: 'awaiting_approval', patch: { leaseUntil: null, nextRunAt: null, statusReason: decision.reason, approvalId: decision.approvalId }, event: null };
    case 'await_grant':
      return { verb: 'await_grant', to: 'awaiting_grant', patch: { leaseUntil: null, nextRunAt: null, statusReason: decision.reason, requestId: decision.requestId }, event: null };
    case 'wait':
      return {
        verb: 'wait',
        to: 'waiting',
        patch: { leaseUntil: null, nextRunAt: decision.until, statusReason: decision.reason, result: decision.state, observation: decision.observation },
        event: null,
      };
    case 'block':
      return {
        verb: 'block',
        to: 'blocked',
        patch: { leaseUntil: null, nextRunAt: null, statusReason: decision.reason, error: decision.error, executionId: executionOf(decision.executionId) },
        event: 'plan_step_blocked',
      };
  }
}

/** A decision's execution as a patch sets it: none (undefined) leaves the step's own. */
function executionOf(id: string | null | undefined): string | undefined {
  return id || undefined;
}

interface AfterCommit {
  settle: boolean;
  /** With `abort` when the failure made one of the plan's abort conditions hold. */
  failure: { kind: FailureKind; why: string; abort?: HeldAbort } | null;
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

/**
 * Writes a batch of moves inside an open unit of work, in three statements for the common case
 * plus one conditional update per step:
 * 1. every call's rows but its approval requests (executions, in one insert), whether or not
 *    its step's move wins, so every call stays traceable by its origin;
 * 2. each step's conditional move, then the approval requests of the moves that won;
 * 3. every event, in one insert: per step its calls' events, then its move's event if it won,
 *    so the log reads decision, act, move for each step.
 * Then, for each move that won, its consequences (a prediction, intention moves, ...).
 *
 * A lost move's approval request, and the events naming it, are not written: no step waits on
 * it, so it would be put before operators, approved, and never performed. Two executors that
 * both found a step ready and both asked (a chaos run with three raised three requests for one
 * step, and one a pass that had read the step before it started raised after it had).
 */
async function writeMoves(ctx: ExecutorContext, scoped: Store, moves: readonly Move[], afters: readonly AfterCommit[]): Promise<(StepRecord | undefined)[]> {
  const records = moves.map((m) => (m.options.records && !isEmpty(m.options.records) ? m.options.records : null));
  const rows = records.filter((r): r is CallRecords => r !== null);
  await writeCallRows(scoped, mergeRecords(...rows.map((r) => (r.approvals.length === 0 ? r : { ...r, approvals: [] }))));
  const transitions = moves.map(({ decision }) => (decision.kind === 'keep' ? null : moveOf(decision)));
  const moved = await moveSteps(scoped, moves, transitions);
  for (const [i, own] of records.entries()) if (own && moved[i]) for (const approval of own.approvals) await scoped.approvals.create(approval);
  await scoped.events.appendMany(
    moves.flatMap((move, i) => {
      const { decision, scene } = move;
      const current = moved[i];
      const type = current ? (transitions[i]?.event ?? null) : null;
      const own = type && decision.kind !== 'keep' && current ? [moveEventOf(ctx, decision, current, type, scene.plan)] : [];
      return [...(current ? (records[i]?.events ?? []) : eventsOfCalls(records[i] ?? null)), ...own];
    }),
  );
  for (const [i, move] of moves.entries()) {
    await move.options.alsoWrite?.(scoped);
    const current = moved[i];
    if (current && move.decision.kind !== 'keep') moved[i] = await consequences(scoped, move, current, afters[i]!);
  }
  return moved;
}

/** The events of a lost move's calls: all but those naming an approval request it raised, which is not written. */
function eventsOfCalls(records: CallRecords | null): NewEvent[] {
  if (!records) return [];
  if (records.approvals.length === 0) return records.events;
  const unwritten = new Set(records.approvals.map((a) => a.id));
  return records.events.filter((e) => !(typeof e.data?.approval_id === 'string' && unwritten.has(e.data.approval_id)));
}

/**
 * Each step's conditional move, all of them together (steps.moveMany: one statement per shape of
 * move); for `keep`, at most a new due time. Undefined for a move that lost. `transitions` holds
 * each decision's moveOf (null for `keep`), worked out once for the move and its event.
 */
async function moveSteps(scoped: Store, moves: readonly Move[], transitions: readonly (Transition | null)[]): Promise<(StepRecord | undefined)[]> {
  const asked: { index: number; move: StepMove }[] = [];
  const answers: (StepRecord | undefined)[] = moves.map(({ scene }) => scene.step);
  for (const [index, { scene, decision, options }] of moves.entries()) {
    const { step } = scene;
    const guard = options.guard ?? {};
    if (decision.kind === 'keep') {
      if (decision.at) asked.push({ index, move: { id: step.id, verb: 'link', from: step.status, patch: { nextRunAt: decision.at }, guard, known: step } });
      continue;
    }
    const transition = transitions[index]!;
    // Set on the patch moveOf made for this move alone, not copied: `{ ...patch, countAttempt }`
    // (a copy that gains a property) is Node 20's slow path (capabilities/perform.ts, executionOf).
    if (options.countAttempt) transition.patch.countAttempt = true;
    asked.push({ index, move: { id: step.id, verb: transition.verb, from: options.from, patch: transition.patch, guard, known: step } });
  }
  const moved = await scoped.steps.moveMany(asked.map((a) => a.move));
  asked.forEach(({ index }, i) => (answers[index] = moved[i]));
  return answers;
}

/** What follows from a won move, in the same unit of work; notes in `after` what must follow the commit. */
async function consequences(scoped: Store, move: Move, moved: StepRecord, after: AfterCommit): Promise<StepRecord> {
  const { scene, decision } = move;
  if (decision.kind === 'keep') return moved;
  const { step, plan } = scene;
  let current = moved;
  for (const effect of decision.effects ?? []) {
    current = await applyEffect(scoped, scene, current, effect, after);
  }

  switch (decision.kind) {
    case 'complete':
    case 'skip':
      after.settle = true;
      break;
    case 'fail': {
      // Decided from the plan as the pass read it, with this step as it now is (abort.ts): the
      // plan stops on a held abort condition; a failure a summary folds in is a finding, and the
      // plan settles on; any other failure is reconsidered as before.
      const steps = plan.steps.map((s) => (s.id === current.id ? current : s));
      const abort = heldAbort(plan.abortConditions, steps);
      if (abort) after.failure = { kind: decision.failure, why: abortReason(abort), abort };
      else if (isFoldedFailure(current, steps)) after.settle = true;
      else after.failure = { kind: decision.failure, why: `${step.key} failed: ${decision.error || decision.reason}` };
      break;
    }
    case 'await_approval':
    case 'await_grant': {
      if (current.intentionId) break;
      const reason = decision.kind === 'await_approval' ? 'awaiting_approval' : 'awaiting_grant';
      const formed = await formSubordinate(scoped, plan.intentionId, { objective: decision.objective, reason, origin: `plan_step:${step.id}` });
      if (formed) current = (await scoped.steps.link(step.id, moveOf(decision).to, { intentionId: formed.subordinate.id })) ?? current;
      break;
    }
    case 'block':
      if (decision.intention === 'outcome_unverified') await blockIntention(scoped, plan.intentionId, 'outcome_unverified', { plan_id: plan.id, step_id: step.id });
      if (decision.blockPlan) {
        const blockedPlan = await scoped.plans.transition(plan.id, RUNNING_PLAN_STATUSES, 'blocked', { statusReason: decision.reason });
        if (blockedPlan)
          await scoped.events.appendMany([{ type: 'plan_blocked', mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason: decision.reason, step_id: step.id } }]);
        await suspendIntention(scoped, plan.intentionId, decision.intention);
      }
      break;
    default:
      break;
  }
  return current;
}

/**
 * What must happen once a won move is committed: resuming a parent, reconsidering a failure,
 * settling the plan (unless `told`: its plan heard of it inside the transaction, tellPlan).
 */
async function afterMove(ctx: ExecutorContext, move: Move, after: AfterCommit, moved: StepRecord | undefined, told = false): Promise<void> {
  const { scene, decision, options } = move;
  if (!moved) {
    ctx.log.debug('step moved by someone else; decision dropped', { step: scene.step.id, decision: decision.kind });
    return;
  }
  if (after.resumeParentOf) await resumeParent(ctx.store, after.resumeParentOf);
  if (after.failure) await reconsiderPlan(ctx, scene.plan.id, after.failure.kind, after.failure.why, after.failure.abort);
  else if (told) return;
  else if (options.deferSettle) options.deferSettle(scene.plan.id, moved, after.settle);
  // A step that parks (waits, or asks an operator) or comes back may change what the plan shows
  // (executing, waiting, awaiting_approval): settling writes that, as it does after a completion.
  else if (after.settle || changesRunningStatus(scene.plan, moved)) await settlePlan(ctx, scene.plan.id);
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
  const [moved] = await inUnitOfWork(ctx.store, (scoped) => writeMoves(ctx, scoped, [move], [after]));
  if (decision.kind !== 'keep') await afterMove(ctx, move, after, moved);
  return moved;
}

/**
 * Applies several moves in one transaction: one commit for a whole batch of steps. Should the
 * batch fail (one move's records cannot be written, say), each move is applied on its own, so
 * one bad step never holds back the others; a move that fails alone is logged and counts as lost.
 *
 * With `withMoves`, the settling the moves call for is made in their transaction too. Should
 * that transaction fail, nothing of it was written, and the moves are applied as without it
 * (their plans settled after their commit), so a plan that cannot be settled never costs its
 * steps their moves.
 */
export async function applyMoves(ctx: ExecutorContext, moves: readonly Move[], withMoves?: SettleWithMoves): Promise<(StepRecord | undefined)[]> {
  if (moves.length === 0) return [];
  if (withMoves) {
    const afters = moves.map(newAfter);
    // Which moves told their plan (deferSettle) inside the transaction, for `withMoves` to settle.
    const told = moves.map(() => false);
    let results: (StepRecord | undefined)[] | undefined;
    try {
      results = await inUnitOfWork(ctx.store, async (scoped) => {
        const moved = await writeMoves(ctx, scoped, moves, afters);
        for (const [i, move] of moves.entries()) told[i] = tellPlan(move, afters[i]!, moved[i]);
        await withMoves.settle(scoped);
        return moved;
      });
    } catch (error) {
      withMoves.rolledBack();
      ctx.log.warn('moving a batch of steps with the settling it calls for failed; moving them without it', { moves: moves.length, error: errorText(error) });
    }
    if (results) {
      withMoves.committed();
      await afterMoves(ctx, moves, afters, results, told);
      return results;
    }
  }
  const afters = moves.map(newAfter);
  let results: (StepRecord | undefined)[];
  try {
    results = await inUnitOfWork(ctx.store, (scoped) => writeMoves(ctx, scoped, moves, afters));
  } catch (error) {
    if (moves.length > 1) ctx.log.warn('a batch of step moves failed; applying them one at a time', { moves: moves.length, error: errorText(error) });
    const alone: (StepRecord | undefined)[] = [];
    for (const move of moves) {
      try {
        alone.push(await (moves.length > 1 ? applyDecision(ctx, move.scene, move.decision, move.options) : Promise.reject(error)));
        ctx.failures.moved(move.scene.step.id);
      } catch (single) {
        await stuckStep(ctx, move, single);
        alone.push(undefined);
      }
    }
    return alone;
  }
  await afterMoves(ctx, moves, afters, results);
  return results;
}

/** What follows a batch of moves' commit, for each move (afterMove); `told`: the moves whose plans heard of them inside the transaction. */
async function afterMoves(ctx: ExecutorContext, moves: readonly Move[], afters: readonly AfterCommit[], results: readonly (StepRecord | undefined)[], told: readonly boolean[] = []): Promise<void> {
  for (const [i, move] of moves.entries()) {
    ctx.failures.moved(move.scene.step.id);
    if (move.decision.kind !== 'keep') await afterMove(ctx, move, afters[i]!, results[i], told[i]);
  }
}

/**
 * Settling that commits with a batch of moves (applyMoves): once the moves are written and the
 * plans they settle told of them (deferSettle), in the same transaction.
 */
export interface SettleWithMoves {
  settle(scoped: Store): Promise<void>;
  /** The transaction committed. */
  committed(): void;
  /**
   * The transaction did not commit (its moves are then applied without it): what `settle` took is
   * still to settle. The pass's reading of those plans may show moves the retry then lost; settling
   * compares its reading with the store first (its light read), so it reads such a plan afresh.
   */
  rolledBack(): void;
}

/** Tells a won move's plan of it (deferSettle) as afterMove would after the commit; true when it did. */
function tellPlan(move: Move, after: AfterCommit, moved: StepRecord | undefined): boolean {
  const { scene, decision, options } = move;
  if (!moved || decision.kind === 'keep' || after.failure || !options.deferSettle) return false;
  options.deferSettle(scene.plan.id, moved, after.settle);
  return true;
}

/**
 * A step's move could not be written. The failure is logged; the MAX_FAILURES-th in a row blocks
 * the step with the error as its reason (and `plan_step_blocked`), written on its own, so it is
 * not acted on and tried again on every pass. An operator may release it.
 */
async function stuckStep(ctx: ExecutorContext, { scene, options }: Move, error: unknown): Promise<void> {
  const { step, plan } = scene;
  const failures = ctx.failures.failed(step.id);
  ctx.log.error('a step move failed', { step: step.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error), failures, executor: ctx.name });
  if (failures < MAX_FAILURES) return;
  const reason = `its move could not be recorded ${failures} times in a row: ${errorText(error)}`;
  try {
    const blocked = await ctx.store.transaction(async (tx) => {
      const moved = await tx.steps.move('block', step.id, options.from, { leaseUntil: null, nextRunAt: null, statusReason: reason, error: reason });
      if (moved)
        await tx.events.appendMany([
          {
            type: 'plan_step_blocked',
            mindId: plan.mindId,
            intentionId: plan.intentionId,
            planId: plan.id,
            stepId: step.id,
            data: { key: step.key, kind: step.kind, reason, stuck: true, failures, executor: ctx.name },
          },
        ]);
      return moved;
    });
    if (blocked) {
      ctx.failures.moved(step.id);
      ctx.log.error('blocked a step whose move could not be recorded; an operator must look at it', { step: step.id, reason, executor: ctx.name });
    }
  } catch (blocking) {
    ctx.log.error(`blocking step ${step.id} failed too`, { error: errorText(blocking), executor: ctx.name });
  }
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
          eventId: effect.eventId,
        },
        effect.expectation,
      );
      return (await scoped.steps.link(current.id, current.status, { predictionId: prediction.id })) ?? current;
    }
    case 'resolve_prediction':
      await resolvePrediction(scoped, effect.predictionId, {
        status: effect.status,
        note: effect.note,
        ...(effect.observed !== undefined ? { observed: effect.observed } : {}),
        ...(effect.observedAt !== undefined ? { observedAt: effect.observedAt } : {}),
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
      await scoped.events.appendMany([
        {
          type: 'plan_step_released',
          mindId: plan.mindId,
          intentionId: plan.intentionId,
          planId: plan.id,
          stepId: current.id,
          data: { key: current.key, recovered: true, reason: effect.reason },
        },
      ]);
      return current;
    case 'release_approval_claim':
      await scoped.approvals.releaseClaim(effect.approvalId, effect.executionId);
      return current;
    case 'record_findings':
      await recordFindings(scoped, { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, stepId: current.id, stepKey: current.key }, effect, scoped.clock.now());
      return current;
    case 'operator_note':
      await scoped.events.appendMany([
        {
          type: 'operator_note',
          mindId: plan.mindId,
          intentionId: plan.intentionId,
          planId: plan.id,
          stepId: current.id,
          data: { message: effect.message, key: current.key },
        },
      ]);
      return current;
  }
}
