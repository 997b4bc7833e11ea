// show_timeline: the event log of one plan, one intention or one mind, oldest first. A plan's
// timeline also holds the events of its intention that name no plan (policy decisions, tool
// calls, approvals), because the capability service records those against the intention.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { decodeCursor, encodeCursor, MAX_CURSOR_SEQ, MAX_PAGE_SIZE } from '../../operations/pages.ts';
import { timeline, type TimelineSubject } from '../../operations/timeline.ts';
import type { ToolContext } from '../deps.ts';
import { idField, mindField, toolInput } from '../input.ts';
import { answer, guarded, refusal } from '../refusal.ts';

const DEFAULT_LIMIT = 100;

export function registerTimelineTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'show_timeline',
    {
      title: 'Show a timeline',
      description:
        'Events, oldest first, of exactly one of: a plan (plan_id), an intention (intention_id) or the mind (mind). Every action appears with its step, plan, intention, approval and verification. Page on with after_seq (next_after_seq of the previous answer).',
      inputSchema: toolInput({
        plan_id: idField('plan').optional(),
        intention_id: idField('intention').optional(),
        mind: mindField,
        limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`events to return, default ${DEFAULT_LIMIT}`),
        after_seq: z.number().int().min(0).max(MAX_CURSOR_SEQ).optional().describe('only events after this seq'),
      }),
      annotations: { readOnlyHint: true },
    },
    (input) =>
      guarded(
        async () => {
          ctx.caller.require('read', 'show_timeline');
          const given = (['plan_id', 'intention_id', 'mind'] as const).filter((k) => input[k] !== undefined);
          // An agent's own mind is the default subject when nothing is named.
          if (given.length === 0 && ctx.caller.principal.mindId === null) {
            throw refusal('missing_subject', 'plan_id', 'name exactly one of plan_id, intention_id or mind');
          }
          if (given.length > 1) throw refusal('ambiguous_subject', given[1]!, `name exactly one of plan_id, intention_id or mind, not ${given.join(' and ')}`);
          const subject: TimelineSubject =
            input.plan_id !== undefined
              ? { plan: input.plan_id, withIntentionEvents: true }
              : input.intention_id !== undefined
                ? { intention: input.intention_id }
                : { mind: (await ctx.caller.mind(input.mind)).id };
          const page = await timeline(ctx.store, ctx.caller.principal, subject, {
            limit: input.limit ?? DEFAULT_LIMIT,
            ...(input.after_seq !== undefined ? { cursor: encodeCursor('seq', input.after_seq) } : {}),
          });
          return answer({ events: page.items, next_after_seq: page.next_cursor === null ? null : decodeCursor('seq', page.next_cursor) });
        },
        { id: input.plan_id !== undefined ? 'plan_id' : 'intention_id' },
      ),
  );
}
