// A mind takes back what it asked operators for: its pending approval requests and open
// capability requests, all of them or those one plan's steps raised. Withdrawing only ever
// removes a question. Each one goes through withdrawApproval / withdrawRequest, so access is
// checked per request exactly as when one is withdrawn alone; one that moved on meanwhile
// (decided, expired) is reported as skipped and the rest still go.

import type { Principal } from '../access/permissions.ts';
import { raisedByOperator } from '../capabilities/approvals.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import { InputError } from '../core/errors.ts';
import type { ApprovalRecord, CapabilityRequestRecord, MindRecord, PlanWithSteps, Store } from '../store/index.ts';
import { withdrawApproval, withdrawRequest } from './decisions.ts';

/** More than a mind can have open at once (capability requests are capped at a handful). */
const LIST_LIMIT = 1000;

export interface Withdrawal {
  withdrawn: { approvals: string[]; requests: string[] };
  skipped: { id: string; code: string; message: string }[];
}

/** Withdraws the open questions `plan` raised, or, without a plan, all of `mind`'s. */
export async function withdrawOpenQuestions(store: Store, capabilities: CapabilityService, principal: Principal, mind: MindRecord, plan: PlanWithSteps | null): Promise<Withdrawal> {
  const { approvals, requests } = plan ? await raisedByPlan(store, plan) : await raisedByMind(store, mind.id);
  const result: Withdrawal = { withdrawn: { approvals: [], requests: [] }, skipped: [] };
  const attempt = async (id: string, withdraw: () => Promise<unknown>, into: string[]) => {
    try {
      await withdraw();
      into.push(id);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      const [problem] = error.problems;
      result.skipped.push({ id, code: problem?.code ?? 'refused', message: problem?.message ?? error.message });
    }
  };
  for (const a of approvals) await attempt(a.id, () => withdrawApproval(store, capabilities, principal, a.id), result.withdrawn.approvals);
  for (const r of requests) await attempt(r.id, () => withdrawRequest(store, capabilities, principal, r.id), result.withdrawn.requests);
  return result;
}

/** The mind's own questions: not the calls operators made for it (raisedByOperator). */
async function raisedByMind(store: Store, mindId: string) {
  const [approvals, requests] = await Promise.all([
    store.approvals.list({ mindId, status: 'pending', limit: LIST_LIMIT }),
    store.capabilityRequests.list({ mindId, status: 'open', limit: LIST_LIMIT }),
  ]);
  return { approvals: approvals.filter((a) => !raisedByOperator(a)), requests };
}

/** What the plan's steps raised: linked from the step, or found by the step's origin. */
async function raisedByPlan(store: Store, plan: PlanWithSteps) {
  const approvals = new Map<string, ApprovalRecord>();
  const requests = new Map<string, CapabilityRequestRecord>();
  for (const step of plan.steps) {
    const origin = `plan_step:${step.id}`;
    for (const a of await store.approvals.listByOrigin(origin)) approvals.set(a.id, a);
    for (const r of await store.capabilityRequests.listByOrigin(origin)) requests.set(r.id, r);
    if (step.approvalId && !approvals.has(step.approvalId)) {
      const a = await store.approvals.get(step.approvalId);
      if (a) approvals.set(a.id, a);
    }
    if (step.requestId && !requests.has(step.requestId)) {
      const r = await store.capabilityRequests.get(step.requestId);
      if (r) requests.set(r.id, r);
    }
  }
  return {
    approvals: [...approvals.values()].filter((a) => a.status === 'pending' && a.mindId === plan.mindId),
    requests: [...requests.values()].filter((r) => r.status === 'open' && r.mindId === plan.mindId),
  };
}
