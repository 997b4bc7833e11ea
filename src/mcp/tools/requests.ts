// withdraw_requests: a mind takes back what it asked operators for, its pending approval requests
// and open capability requests, all of them or those of one plan. Withdrawing only ever removes
// a question. Access comes from finding each one: an approval or request of a mind the caller
// does not reach is refused as missing (operations' find-and-reach check), never withdrawn.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InputError } from '../../core/errors.ts';
import { withdrawApproval, withdrawRequest } from '../../operations/decisions.ts';
import { findPlan } from '../../operations/plans.ts';
import type { ApprovalRecord, CapabilityRequestRecord, MindRecord, PlanWithSteps, Store } from '../../store/index.ts';
import type { ToolContext } from '../deps.ts';
import { idField, mindField, toolInput } from '../input.ts';
import { answer, guarded, refusal } from '../refusal.ts';

/** More than a mind can have open at once (capability requests are capped at a handful). */
const LIST_LIMIT = 1000;

export function registerRequestTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'withdraw_requests',
    {
      title: 'Withdraw requests',
      description:
        "Withdraw the mind's pending approval requests and open capability requests: those raised by one plan's steps (plan_id), or all of the mind's. A step waiting on a withdrawn request no longer proceeds.",
      inputSchema: toolInput({ mind: mindField, plan_id: idField('plan').optional() }),
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    ({ mind, plan_id }) =>
      guarded(async () => {
        ctx.caller.require('propose', 'withdraw_requests');
        let owner: MindRecord;
        let plan: PlanWithSteps | null = null;
        if (plan_id !== undefined) {
          plan = await findPlan(ctx.store, ctx.caller.principal, plan_id, 'plan_id');
          owner = await ctx.caller.mind(mind ?? plan.mindId);
          if (owner.id !== plan.mindId) throw refusal('unknown_plan', 'plan_id', `mind ${owner.name} has no plan with this id`);
        } else {
          owner = await ctx.caller.mind(mind);
        }
        const { approvals, requests } = plan ? await raisedByPlan(ctx.store, plan) : await raisedByMind(ctx.store, owner.id);

        const withdrawn = { approvals: [] as string[], requests: [] as string[] };
        const skipped: { id: string; code: string; message: string }[] = [];
        // One that moved on meanwhile (decided, expired) is reported, and the rest still go.
        const attempt = async (id: string, withdraw: () => Promise<unknown>, into: string[]) => {
          try {
            await withdraw();
            into.push(id);
          } catch (error) {
            if (!(error instanceof InputError)) throw error;
            const [problem] = error.problems;
            skipped.push({ id, code: problem?.code ?? 'refused', message: problem?.message ?? error.message });
          }
        };
        const { store, capabilities, caller } = ctx;
        for (const a of approvals) await attempt(a.id, () => withdrawApproval(store, capabilities, caller.principal, a.id), withdrawn.approvals);
        for (const r of requests) await attempt(r.id, () => withdrawRequest(store, capabilities, caller.principal, r.id), withdrawn.requests);
        return answer({ mind: { id: owner.id, name: owner.name }, plan_id: plan?.id ?? null, withdrawn, skipped });
      }),
  );
}

async function raisedByMind(store: Store, mindId: string) {
  const [approvals, requests] = await Promise.all([
    store.approvals.list({ mindId, status: 'pending', limit: LIST_LIMIT }),
    store.capabilityRequests.list({ mindId, status: 'open', limit: LIST_LIMIT }),
  ]);
  return { approvals, requests };
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
