// Plan operations addressed through their mind (`/minds/{mind}/plans/{id}/...`): the plan must
// belong to that mind, or it is answered exactly as a plan that does not exist.

import type { Principal } from '../access/permissions.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { PlanRecord, StepRecord, Store } from '../store/index.ts';
import { releasePlanStep } from './decisions.ts';
import { NotFound } from './errors.ts';
import { resolveMind } from './minds.ts';
import { cancelPlan, findPlan, planDetail, type PlanDetail } from './plans.ts';

/** The plan `planId` if it belongs to the mind `mindRef` names and the principal reaches both; otherwise the answer for a missing plan. */
export async function planOfMind(store: Store, principal: Principal, mindRef: string, planId: string): Promise<PlanRecord> {
  const mind = await resolveMind(store, principal, mindRef);
  const plan = await findPlan(store, principal, planId);
  if (plan.mindId !== mind.id) throw new NotFound('id', `no plan ${planId}`);
  return plan;
}

export async function mindPlanDetail(store: Store, registry: CapabilityRegistry, principal: Principal, mindRef: string, planId: string): Promise<PlanDetail> {
  const plan = await planOfMind(store, principal, mindRef, planId);
  return planDetail(store, registry, principal, plan.id);
}

export async function cancelMindPlan(
  store: Store,
  registry: CapabilityRegistry,
  capabilities: CapabilityService,
  principal: Principal,
  mindRef: string,
  planId: string,
  reason: string,
): Promise<PlanRecord> {
  const plan = await planOfMind(store, principal, mindRef, planId);
  return cancelPlan(store, registry, capabilities, principal, plan.id, reason);
}

export async function releaseMindPlanStep(store: Store, principal: Principal, mindRef: string, planId: string, stepRef: string, note?: string): Promise<{ step: StepRecord }> {
  const plan = await planOfMind(store, principal, mindRef, planId);
  return releasePlanStep(store, principal, plan.id, stepRef, note);
}
