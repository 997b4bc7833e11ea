// propose_plan and show_plan. A proposal over MCP takes the path of every model proposal
// (origin `model`): parsed, validated, claims of authority or progress dropped and reported,
// stored `validated` only when it passed, else kept as a `draft` that never runs.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { planDetail, proposePlanForIntention } from '../../operations/plans.ts';
import type { ToolContext } from '../deps.ts';
import { idField, toolInput } from '../input.ts';
import { answer, guarded } from '../refusal.ts';

export function registerPlanTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'propose_plan',
    {
      title: 'Propose a plan',
      description:
        'Propose a plan (the JSON plan format of docs/plan-format.md) for an open intention of the mind. Praxis validates it: a valid plan is stored `validated` and will run under policy (writes usually wait for an operator); an invalid one is stored as a `draft` with its errors and never runs; input that is not a plan, or has a step that cannot be stored as written (a kind outside the vocabulary, a key used twice, a max_attempts that is not a whole 32-bit number), is refused with its errors and nothing is stored. Claims of approval, authority or progress in the draft are ignored and listed as warnings.',
      inputSchema: toolInput({
        intention_id: idField('intention'),
        plan: z.unknown().describe('the plan draft: an object with objective, steps, …'),
      }),
    },
    ({ intention_id, plan }) =>
      guarded(async () => {
        ctx.caller.require('propose', 'propose_plan');
        // Whoever holds the token, what speaks MCP is a model: its plan is a model's proposal.
        const submitted = await proposePlanForIntention(ctx.store, ctx.registry, ctx.caller.principal, intention_id, plan);
        return answer(submitted);
      }),
  );

  server.registerTool(
    'show_plan',
    {
      title: 'Show a plan',
      description:
        'A plan of the mind, as the HTTP API shows it: the plan, its steps (status and reason, expectation, observation, result or error, and the execution, approval, capability request and prediction each is linked to), actual use against the budget, and the revisions of its intention.',
      inputSchema: toolInput({ plan_id: idField('plan') }),
      annotations: { readOnlyHint: true },
    },
    ({ plan_id }) =>
      guarded(
        async () => {
          ctx.caller.require('read', 'show_plan');
          return answer(await planDetail(ctx.store, ctx.registry, ctx.caller.principal, plan_id));
        },
        { id: 'plan_id' },
      ),
  );
}
