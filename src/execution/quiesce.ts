// Quiescing a mind's inherited work, for a mind made by forking or importing another: the work
// it carries was started under the source mind's authority, and approvals and grants belong to
// the source. So nothing inherited may move on its own: open steps are blocked with their
// approval and request ids cleared, open plans blocked, live intentions suspended. An operator
// releases what should go on. A fork or import made by praxis quiesces the rows it writes, in the
// transaction that writes them (src/mind/bundle.ts, the same rule); this is for a mind whose work
// is already stored, e.g. an embedder's own copy.

import { QUIESCED_PLAN_STATUSES as OPEN_PLANS, QUIESCED_REASON, QUIESCED_STEP_STATUSES as OPEN_STEPS } from '../mind/bundle.ts';
import { suspendIntention } from '../mind/intentions.ts';
import type { Store } from '../store/index.ts';
import { inUnitOfWork } from './unit-of-work.ts';

export interface Quiesced {
  plans: number;
  steps: number;
  intentions: number;
}

export async function quiesceMind(store: Store, mindId: string): Promise<Quiesced> {
  const done: Quiesced = { plans: 0, steps: 0, intentions: 0 };
  const reason = QUIESCED_REASON;
  for (;;) {
    const plans = await store.plans.listByMind(mindId, { status: OPEN_PLANS, limit: 100 });
    if (plans.length === 0) break;
    for (const plan of plans) {
      await inUnitOfWork(store, async (scoped) => {
        const blocked = await scoped.plans.transition(plan.id, OPEN_PLANS, 'blocked', { statusReason: reason });
        if (!blocked) return;
        done.plans += 1;
        await scoped.events.append({ type: 'plan_blocked', mindId, intentionId: plan.intentionId, planId: plan.id, data: { reason: 'quiesced' } });
        for (const step of await scoped.steps.listByPlan(plan.id)) {
          if (!OPEN_STEPS.includes(step.status)) continue;
          const moved = await scoped.steps.move('block', step.id, OPEN_STEPS, {
            statusReason: reason,
            approvalId: null,
            requestId: null,
            leaseUntil: null,
            nextRunAt: null,
          });
          if (!moved) continue;
          done.steps += 1;
          await scoped.events.append({ type: 'plan_step_blocked', mindId, intentionId: plan.intentionId, planId: plan.id, stepId: step.id, data: { key: step.key, reason: 'quiesced' } });
        }
      });
    }
  }
  for (;;) {
    const live = await store.intentions.listByMind(mindId, { status: ['active', 'blocked'], limit: 100 });
    if (live.length === 0) break;
    let moved = 0;
    for (const intention of live) if (await suspendIntention(store, intention.id, 'quiesced')) moved += 1;
    done.intentions += moved;
    if (moved === 0) break;
  }
  return done;
}
