// A commitment taken while a plan runs only ever adds a requirement. The capability service
// already enforces it on every call, so nothing can slip past it; the plan itself is replanned
// under the new constraint, so what the operator sees (approvals expected, alternatives scored)
// matches what will happen. The same strategy may be chosen again.

import { matchesTarget } from '../capabilities/policy/target-pattern.ts';
import { RunningPlanStatuses } from '../core/vocabulary.ts';
import type { ExecutorContext } from './context.ts';
import { reconsiderPlan } from './replan.ts';

/** Steps a new commitment can still change: not yet started, writing, not already asking. */
const NOT_STARTED = new Set(['pending', 'ready']);

/** Replans the running plans a commitment taken since they were made binds; returns their ids. */
export async function replanUnderNewCommitments(ctx: ExecutorContext, batch: number): Promise<Set<string>> {
  const { store, registry } = ctx;
  const pairs = await store.executorQueries.plansBehindCommitments({ host: ctx.host, limit: batch });
  const replanned = new Set<string>();
  for (const { planId, commitmentId } of pairs) {
    const [plan, commitment] = await Promise.all([store.plans.get(planId), store.commitments.get(commitmentId)]);
    if (!plan || !RunningPlanStatuses.has(plan.status) || !commitment || commitment.status !== 'active') continue;
    const bound = plan.steps.find(
      (step) =>
        step.kind === 'capability' &&
        NOT_STARTED.has(step.status) &&
        !step.requireApproval &&
        registry.get(step.capability)?.readOnly === false &&
        matchesTarget(commitment.capability, step.capability) &&
        matchesTarget(commitment.targetPattern, step.target),
    );
    if (!bound) continue;
    await reconsiderPlan(
      ctx,
      plan.id,
      'commitment_added',
      `commitment ${commitment.id} (${commitment.reason || `approval for ${commitment.capability} ${commitment.targetPattern}`}) binds step ${bound.key}`,
    );
    replanned.add(plan.id);
  }
  return replanned;
}
