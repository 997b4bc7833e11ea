// show_timeline: the event log of one plan, one intention or one mind, oldest first. A plan's
// timeline also holds the events of its intention that name no plan (policy decisions, tool
// calls, approvals), because the capability service records those against the intention.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { EventQuery, EventRecord, Store } from '../../store/index.ts';
import type { ToolContext } from '../deps.ts';
import { idField, mindField, toolInput } from '../input.ts';
import { answer, guarded, refusal } from '../refusal.ts';
import { eventView } from '../views.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;
/** Events read per query while filtering a plan's timeline out of its intention's. */
const PAGE = 200;

export function registerTimelineTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'show_timeline',
    {
      title: 'Show a timeline',
      description:
        'Events, oldest first, of exactly one of: a plan (plan_id), an intention (intention_id) or the mind (mind). Every action appears with its step, plan, intention, approval and verification. Page on with after_seq (the seq of the last event read).',
      inputSchema: toolInput({
        plan_id: idField('plan').optional(),
        intention_id: idField('intention').optional(),
        mind: mindField,
        limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`events to return, default ${DEFAULT_LIMIT}`),
        after_seq: z.number().int().min(0).optional().describe('only events after this seq'),
      }),
      annotations: { readOnlyHint: true },
    },
    (input) =>
      guarded(async () => {
        ctx.caller.require('read', 'show_timeline');
        const given = (['plan_id', 'intention_id', 'mind'] as const).filter((k) => input[k] !== undefined);
        // An agent's own mind is the default subject when nothing is named.
        if (given.length === 0 && ctx.caller.principal.mindId === null) {
          throw refusal('missing_subject', 'plan_id', 'name exactly one of plan_id, intention_id or mind');
        }
        if (given.length > 1) throw refusal('ambiguous_subject', given[1]!, `name exactly one of plan_id, intention_id or mind, not ${given.join(' and ')}`);
        const limit = input.limit ?? DEFAULT_LIMIT;
        const after = input.after_seq !== undefined ? { afterSeq: input.after_seq } : {};
        let events: EventRecord[];
        if (input.plan_id !== undefined) {
          const plan = await ctx.caller.plan(input.plan_id);
          events = await planEvents(ctx.store, plan.id, plan.intentionId, limit, input.after_seq ?? 0);
        } else if (input.intention_id !== undefined) {
          const intention = await ctx.caller.intention(input.intention_id);
          events = await ctx.store.events.list({ intentionId: intention.id, limit, ...after });
        } else {
          const mind = await ctx.caller.mind(input.mind);
          events = await ctx.store.events.list({ mindId: mind.id, limit, ...after });
        }
        const last = events.at(-1);
        return answer({ events: events.map(eventView), next_after_seq: events.length === limit && last ? last.seq : null });
      }),
  );
}

async function planEvents(store: Store, planId: string, intentionId: string, limit: number, afterSeq: number): Promise<EventRecord[]> {
  const found: EventRecord[] = [];
  let cursor = afterSeq;
  for (;;) {
    const query: EventQuery = { intentionId, afterSeq: cursor, limit: PAGE };
    const page = await store.events.list(query);
    for (const event of page) {
      if (event.planId === planId || event.planId === null) found.push(event);
      if (found.length === limit) return found;
    }
    if (page.length < PAGE) return found;
    cursor = page.at(-1)!.seq;
  }
}
