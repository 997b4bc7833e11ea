// Plan operations addressed through their mind (`/minds/{mind}/plans/{id}/...`): the plan must
// belong to that mind, or it is answered exactly as a plan that does not exist.

import type { Principal } from '../access/permissions.ts';
import type { StepRecord, Store } from '../store/index.ts';
import { releasePlanStep } from './decisions.ts';
import { NotFound } from './errors.ts';
import { resolveMind } from './minds.ts';
import { findPlan } from './plans.ts';

export async function releaseMindPlanStep(store: Store, principal: Principal, mindRef: string, planId: string, stepRef: string, note?: string): Promise<{ step: StepRecord }> {
  const mind = await resolveMind(store, principal, mindRef);
  const plan = await findPlan(store, principal, planId);
  if (plan.mindId !== mind.id) throw new NotFound('id', `no plan ${planId}`);
  return releasePlanStep(store, principal, plan.id, stepRef, note);
}
