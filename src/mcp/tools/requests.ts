// withdraw_requests: a mind takes back what it asked operators for, its pending approval requests
// and open capability requests, all of them or those of one plan (operations/withdrawals.ts).
// Access comes from finding each one: an approval or request of a mind the caller does not
// reach is refused as missing (operations' find-and-reach check), never withdrawn.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { findPlan, withdrawOpenQuestions, type MindRecord, type PlanWithSteps } from '../../operations/index.ts';
import type { ToolContext } from '../deps.ts';
import { idField, mindField, toolInput } from '../input.ts';
import { answer, guarded, refusal } from '../refusal.ts';

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
        const { withdrawn, skipped } = await withdrawOpenQuestions(ctx.store, ctx.capabilities, ctx.caller.principal, owner, plan);
        return answer({ mind: { id: owner.id, name: owner.name }, plan_id: plan?.id ?? null, withdrawn, skipped });
      }),
  );
}
