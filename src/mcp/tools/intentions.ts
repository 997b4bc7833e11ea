// form_intention: a mind commits to an objective, or to a concrete means, on the caller's word.
// Forming an intention acts on nothing; Praxis plans it (here when asked, or later) and every
// action of that plan still meets policy.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { JsonObject } from '../../core/plan.ts';
import { formProposedIntention, planFormedIntention } from '../../operations/intentions.ts';
import type { ToolContext } from '../deps.ts';
import { mindField, paramsField, toolInput } from '../input.ts';
import { answer, guarded } from '../refusal.ts';

/** Where an intention formed over MCP says it came from (see docs/mind.md). */
const MCP_INTENTION_ORIGIN = 'mcp';

export function registerIntentionTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'form_intention',
    {
      title: 'Form an intention',
      description:
        'Commit the mind to an objective ("investigate nginx.service") or to a concrete means ({capability, target?, params}), or both. With plan: true, Praxis plans it at once with its deterministic strategies; otherwise propose a plan for it with propose_plan. Nothing runs until a plan is executed under policy.',
      inputSchema: toolInput({
        mind: mindField,
        objective: z.string().optional().describe('what to bring about'),
        means: toolInput({
          capability: z.string().min(1),
          target: z.string().optional().describe('optional: Praxis derives the target from the parameters; a stated one must agree'),
          params: paramsField,
        })
          .optional()
          .describe('a concrete action the intention names'),
        require_approval: z.boolean().optional().describe('true: every writing action serving this intention asks an operator first'),
        plan: z.boolean().optional().describe('true: let Praxis plan the intention now'),
      }),
    },
    (input) =>
      guarded(async () => {
        ctx.caller.require('propose', 'form_intention');
        const mind = await ctx.caller.mind(input.mind);
        const proposal = {
          objective: input.objective,
          means: input.means ? { ...input.means, params: input.means.params as JsonObject } : undefined,
          require_approval: input.require_approval,
        };
        const formed = await formProposedIntention(ctx.store, ctx.registry, ctx.caller.principal, mind.id, proposal, MCP_INTENTION_ORIGIN);
        if (!input.plan) return answer({ intention: formed, planning: null });
        return answer(await planFormedIntention(ctx.store, ctx.planning, formed));
      }),
  );
}
