// One due step, by the status it is in: a ready step is claimed and run; a waiting step is
// claimed again when its time has come; an executing step is due only once its lease ran out,
// and is recovered; a step waiting for an operator is polled.

import { addSeconds } from '../core/clock.ts';
import type { StepRecord } from '../store/index.ts';
import { applyDecision, loadScene, type StepScene } from './apply.ts';
import type { ExecutorContext } from './context.ts';
import { runHandler } from './handlers/index.ts';
import { leaseSecondsFor } from './lease.ts';
import { pollStep } from './polling.ts';
import { recoverStep } from './recovery.ts';

/** Handles one due step; true when it moved, false when it did not, null when its plan is gone (nothing to claim). */
export async function runDueStep(ctx: ExecutorContext, due: StepRecord): Promise<boolean | null> {
  switch (due.status) {
    case 'ready':
    case 'waiting':
      return claimAndRun(ctx, due);
    case 'executing':
      return recoverStep(ctx, due);
    case 'awaiting_approval':
    case 'awaiting_grant':
      return pollStep(ctx, due);
    default:
      return false;
  }
}

/**
 * Claims the step (one executor wins) and runs its handler under the lease. A ready step is
 * claimed by `steps.claim`, which counts an attempt; a waiting step (a re-check, the end of a
 * wait) is taken back by a conditional move that counts none, since nothing is attempted again.
 */
async function claimAndRun(ctx: ExecutorContext, due: StepRecord): Promise<boolean | null> {
  const { store } = ctx;
  const scene0 = await loadScene(store, due);
  if (!scene0) return null;
  const leaseSeconds = leaseSecondsFor(due, scene0.plan.steps, ctx.registry);
  const { plan } = scene0;
  // The claim and its plan_step_started event commit together, before anything acts.
  const claimed = await store.transaction(async (tx) => {
    let won: StepRecord | undefined;
    if (due.status === 'ready') {
      won = await tx.steps.claim(due.id, { leaseSeconds });
    } else {
      const now = ctx.clock.now();
      const lease = addSeconds(now, leaseSeconds);
      won = await tx.steps.transition(due.id, 'waiting', 'executing', { leaseUntil: lease, nextRunAt: lease }, { dueBy: now });
    }
    if (won && due.status === 'ready') {
      await tx.events.append({
        type: 'plan_step_started',
        mindId: plan.mindId,
        intentionId: plan.intentionId,
        planId: plan.id,
        stepId: won.id,
        data: {
          key: won.key,
          kind: won.kind,
          attempt: won.attempts,
          capability: won.capability,
          target: won.target,
          lease_until: won.leaseUntil?.toISOString() ?? null,
          executor: ctx.name,
        },
      });
    }
    return won;
  });
  if (!claimed) return false;
  const scene: StepScene = { ...scene0, step: claimed };
  const decision = await runHandler(ctx, scene);
  // A handler about to make a non-idempotent write renews the lease first (scene.step then holds it).
  return (await applyDecision(ctx, scene, decision, { from: 'executing', guard: { leaseUntil: scene.step.leaseUntil } })) !== undefined;
}
