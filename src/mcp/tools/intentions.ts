// form_intention: a mind commits to an objective, or to a concrete means, on the caller's word.
// Forming an intention acts on nothing; Praxis plans it (here when asked, or later) and every
// action of that plan still meets policy.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Problem } from '../../core/errors.ts';
import type { JsonObject } from '../../core/plan.ts';
import { planIntention, type PlanIntentionResult } from '../../execution/plan-intention.ts';
import { formIntention } from '../../mind/intentions.ts';
import type { IntentionMeans } from '../../store/index.ts';
import type { ToolContext } from '../deps.ts';
import { mindField, paramsField, toolInput } from '../input.ts';
import { answer, guarded, McpRefusal } from '../refusal.ts';

/** Where an intention formed over MCP says it came from (see docs/mind.md). */
export const MCP_INTENTION_ORIGIN = 'mcp';

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
        const means = input.means ? checkedMeans(ctx, input.means) : null;
        const formed = await formIntention(ctx.store, {
          mindId: mind.id,
          ...(input.objective !== undefined ? { objective: input.objective } : {}),
          means,
          origin: MCP_INTENTION_ORIGIN,
          requireApproval: input.require_approval ?? false,
        });
        if (!formed.ok) throw new McpRefusal(formed.problems.map((p) => (p.path === 'mindId' ? { ...p, path: 'mind' } : p)));
        const planning = input.plan ? describePlanning(await planIntention(ctx.store, ctx.planning, formed.intention.id)) : null;
        return answer({ intention: formed.intention, planning });
      }),
  );
}

function checkedMeans(ctx: ToolContext, means: { capability: string; target?: string | undefined; params: Record<string, unknown> }): IntentionMeans {
  const problems: Problem[] = ctx.registry
    .checkParams(means.capability, means.params)
    .map((p) => ({ ...p, path: `means.${p.path}` }));
  if (problems.length > 0) throw new McpRefusal(problems);
  const target = ctx.registry.targetOf(means.capability, means.params);
  if (means.target !== undefined && means.target !== target) {
    throw new McpRefusal([{ code: 'target_mismatch', path: 'means.target', message: `the parameters act on "${target}", not "${means.target}"` }]);
  }
  return { capability: means.capability, target, params: means.params as JsonObject };
}

/** The planner's answer, without the considered-strategy detail a caller can read on the timeline. */
function describePlanning(result: PlanIntentionResult) {
  switch (result.status) {
    case 'planned':
      return { status: result.status, plan_id: result.plan.id, plan_status: result.plan.status, strategy: result.strategy, steps: result.plan.steps.map((s) => s.key) };
    case 'draft':
      return { status: result.status, plan_id: result.plan.id, errors: result.errors };
    case 'no_possible_plan':
      return { status: result.status, intention_status: result.intention.status };
    case 'model_failed':
      return { status: result.status, outcome: result.outcome, message: result.message, retryable: result.retryable };
    case 'refused':
      return { status: result.status, code: result.code, message: result.message };
  }
}
