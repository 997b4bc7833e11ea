// preview_plan: what a proposal would meet before it is proposed. A model sees, step by step,
// the policy decision each action would get now, the approvals, capability requests and grant
// operations the plan would cost operators, its budget against the estimate, and the validation
// result (its assumptions checked against the mind's beliefs). Nothing is stored or asked.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { InputError, joinPath } from '../../core/errors.ts';
import { previewPlanDraft } from '../../operations/plan-preview.ts';
import type { ToolContext } from '../deps.ts';
import { mindField, toolInput } from '../input.ts';
import { answer, guarded } from '../refusal.ts';

export function registerPreviewTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'preview_plan',
    {
      title: 'Preview a plan',
      description:
        'Before proposing a plan (the JSON plan format of docs/plan-format.md): the validation it would get, and for every step the policy decision it would meet now (runs, asks one or two operators, needs a capability request granted, cannot observe, or is refused), the grant it would spend and what it would use, with the totals of operator attention and the budget against the estimate. Nothing is stored, asked or spent.',
      inputSchema: toolInput({
        mind: mindField,
        plan: z.unknown().describe('the plan draft: an object with objective, steps, …'),
      }),
      annotations: { readOnlyHint: true },
    },
    ({ mind, plan }) =>
      guarded(async () => {
        ctx.caller.require('read', 'preview_plan');
        const record = await ctx.caller.mind(mind);
        try {
          return answer(await previewPlanDraft(ctx.store, ctx.registry, ctx.caller.principal, record.id, plan));
        } catch (error) {
          // What is refused here is the draft, which the tool takes as `plan`: its places are
          // named inside it, as propose_plan names them ("" was the whole draft).
          if (error instanceof InputError) throw new InputError(error.problems.map((p) => ({ ...p, path: joinPath('plan', p.path) })));
          throw error;
        }
      }),
  );
}
