// One due step, by the status it is in: a ready or waiting step runs; an executing step is due
// only once its lease ran out, and is recovered; a step waiting for an operator is polled.
//
// Most steps act before they move: a read, an idempotent action, a check, a wait or an
// internal step does its work first and then moves in one transaction guarded by the status and
// due time it was found in, with the records of its calls. Two executors racing for it may both
// read; only one move wins. Two kinds are claimed first, under a lease: a non-idempotent write
// (its claim commits with its write-ahead execution record, see runCapabilityStep) and a
// capability request (raising one twice would ask an operator twice).

import { addSeconds } from '../core/clock.ts';
import { writeRecords, type CallRecords } from '../capabilities/call-records.ts';
import type { StepRecord } from '../store/index.ts';
import { applyDecision, type ApplyOptions, type Move, type StepScene } from './apply.ts';
import { stepOrigin, type ExecutorContext } from './context.ts';
import { runCapabilityStep } from './handlers/capability.ts';
import { runHandler } from './handlers/index.ts';
import { withdrawUnwaited } from './handlers/request-capability.ts';
import { leaseSecondsFor } from './lease.ts';
import type { Pass } from './pass.ts';
import { pollStep } from './polling.ts';
import { recoverStep } from './recovery.ts';
import { inUnitOfWork } from './unit-of-work.ts';

/**
 * Handles one due step: true when it moved, false when it did not, null when its plan is gone
 * (nothing to claim), or the move it decided on, for the pass to commit with the other steps'
 * moves (a step that acted before moving: see applyMoves).
 */
export async function runDueStep(ctx: ExecutorContext, pass: Pass, due: StepRecord): Promise<boolean | null | Move> {
  switch (due.status) {
    case 'ready':
    case 'waiting':
      return due.kind === 'request_capability' ? claimAndRun(ctx, pass, due) : actThenMove(ctx, pass, due);
    case 'executing':
      return recoverStep(ctx, pass, due);
    case 'awaiting_approval':
    case 'awaiting_grant':
      return pollStep(ctx, pass, due);
    default:
      return false;
  }
}

async function actThenMove(ctx: ExecutorContext, pass: Pass, due: StepRecord): Promise<boolean | null | Move> {
  const loaded = await pass.scene(ctx.store, due);
  if (!loaded) return null;
  const io = pass.io();
  // Guarded by what the step was found as: still in that status, and still due.
  const attempting = due.status === 'ready';
  const found: ApplyOptions = { from: due.status, guard: { dueBy: ctx.clock.now() }, countAttempt: attempting };
  // Handlers decide with the attempt being made, which the move counts in SQL.
  const scene: StepScene = attempting ? { ...loaded, step: { ...due, attempts: due.attempts + 1 } } : loaded;
  // The options a move of the step applies with, written out in full: `{ ...found, records }`
  // (a copy that gains properties) is Node 20's slow path (capabilities/perform.ts, executionOf).
  const moveOptions = (records: CallRecords): ApplyOptions => ({ from: found.from, guard: found.guard, countAttempt: found.countAttempt, records, deferSettle: pass.settleLater });
  if (due.kind !== 'capability') {
    const decision = await runHandler(ctx, scene, io);
    pass.tally(io.records);
    return { scene, decision, options: moveOptions(io.records) };
  }
  const run = await runCapabilityStep(ctx, scene, io, (records) => {
    pass.tally(records);
    return claimForWrite(ctx, scene, found, records);
  });
  pass.tally(io.records);
  if (!run.claimed) {
    if (run.decision.kind === 'keep') return false;
    return { scene, decision: run.decision, options: moveOptions(io.records) };
  }
  // A write's outcome commits at once, on its own: the act behind it has happened.
  await applyDecision(ctx, { ...scene, step: run.claimed }, run.decision, { from: 'executing', guard: { leaseUntil: run.claimed.leaseUntil }, records: io.records, deferSettle: pass.settleLater });
  // A write that claimed the step has moved it, whatever became of its outcome's move.
  return true;
}

/**
 * The claim of a step about to make a non-idempotent write, committed with the records of its
 * authorisation. If another executor won the step, only the decision's events are kept: a
 * `started` row for an act that will never happen would read as an unknown outcome.
 */
async function claimForWrite(ctx: ExecutorContext, scene: StepScene, found: ApplyOptions, records: CallRecords): Promise<StepRecord | undefined> {
  const leaseSeconds = leaseSecondsFor(scene.step, scene.plan.steps, ctx.registry);
  const { plan, step } = scene;
  return inUnitOfWork(ctx.store, async (scoped) => {
    const lease = addSeconds(ctx.clock.now(), leaseSeconds);
    const claimed = await scoped.steps.move('claim', step.id, found.from, { leaseUntil: lease, nextRunAt: lease, countAttempt: true, claimedBy: ctx.name }, found.guard ?? {});
    if (!claimed) {
      await writeRecords(scoped, { ...records, executions: records.executions.filter((e) => e.status !== 'started') });
      return undefined;
    }
    await writeRecords(scoped, records);
    await scoped.events.appendMany([
      {
        type: 'plan_step_started',
        mindId: plan.mindId,
        intentionId: plan.intentionId,
        planId: plan.id,
        stepId: claimed.id,
        data: { key: claimed.key, kind: claimed.kind, attempt: claimed.attempts, capability: claimed.capability, target: claimed.target, lease_until: lease.toISOString(), executor: ctx.name },
      },
    ]);
    return claimed;
  });
}

/**
 * Claims a capability request step (one executor wins) and runs it under the lease. A ready step
 * is claimed by `steps.claim`, which counts an attempt; a waiting one is taken back by a
 * conditional move that counts none, since nothing is attempted again.
 */
async function claimAndRun(ctx: ExecutorContext, pass: Pass, due: StepRecord): Promise<boolean | null> {
  const { store } = ctx;
  const scene0 = await pass.scene(store, due);
  if (!scene0) return null;
  const leaseSeconds = leaseSecondsFor(due, scene0.plan.steps, ctx.registry);
  const { plan } = scene0;
  const claimed = await store.transaction(async (tx) => {
    let won: StepRecord | undefined;
    if (due.status === 'ready') {
      won = await tx.steps.claim(due.id, { leaseSeconds, claimant: ctx.name });
    } else {
      const now = ctx.clock.now();
      const lease = addSeconds(now, leaseSeconds);
      won = await tx.steps.move('claim', due.id, 'waiting', { leaseUntil: lease, nextRunAt: lease, claimedBy: ctx.name }, { dueBy: now });
    }
    if (won && due.status === 'ready') {
      await tx.events.appendMany([
        {
          type: 'plan_step_started',
          mindId: plan.mindId,
          intentionId: plan.intentionId,
          planId: plan.id,
          stepId: won.id,
          data: { key: won.key, kind: won.kind, attempt: won.attempts, capability: won.capability, target: won.target, lease_until: won.leaseUntil?.toISOString() ?? null, executor: ctx.name },
        },
      ]);
    }
    return won;
  });
  if (!claimed) return false;
  const scene: StepScene = { ...scene0, step: claimed };
  const io = pass.io();
  const decision = await runHandler(ctx, scene, io);
  // A second request step of the plan in this pass counts this one against the budget.
  if (decision.kind === 'await_grant') pass.tallyRequest(stepOrigin(claimed.id));
  const moved = await applyDecision(ctx, scene, decision, { from: 'executing', guard: { leaseUntil: claimed.leaseUntil }, records: io.records, deferSettle: pass.settleLater });
  if (!moved) await withdrawUnwaited(ctx, claimed, decision);
  return moved !== undefined;
}
