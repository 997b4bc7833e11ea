// `praxis timeline`: what happened to a mind, an intention or a plan, in order. Every event ties
// an action to its step, plan and intention, so this is the first place to look when asking why
// something ran, waited or stopped.

import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { AUDIT_EVENT_TYPES } from '../../core/vocabulary.ts';
import type { EventQuery, EventRecord } from '../../store/index.ts';
import { action, findMind, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { clip, formatTable } from '../report.ts';
import { parseLimit } from './plans.ts';

interface TimelineOptions extends StoreOptions {
  audit?: boolean;
  mind?: string;
  intention?: string;
  plan?: string;
  limit?: string;
}

const PAGE = 500;

/** The most telling words of an event's data, for one table cell (pure). */
export function describeEvent(event: EventRecord): string {
  const d = event.data;
  const text = (key: string) => (typeof d[key] === 'string' && d[key] !== '' ? (d[key] as string) : null);
  const parts: string[] = [];
  const what = [text('capability'), text('target') ?? text('target_pattern')].filter(Boolean).join(' ');
  if (what) parts.push(what);
  for (const key of ['status', 'decision', 'outcome', 'operator', 'author', 'token_operator', 'role', 'code', 'strategy']) {
    const value = text(key);
    if (value) parts.push(`${key}=${value}`);
  }
  const why = text('reason') ?? text('note') ?? text('message') ?? text('statement') ?? text('summary') ?? text('error');
  if (why) parts.push(why);
  return parts.join('; ');
}

/** The newest `limit` events matching the query, oldest of them first. */
async function lastEvents(list: (query: EventQuery) => Promise<EventRecord[]>, query: EventQuery, limit: number): Promise<EventRecord[]> {
  const kept: EventRecord[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await list({ ...query, ...(afterSeq !== undefined ? { afterSeq } : {}), limit: PAGE });
    kept.push(...page);
    if (kept.length > limit) kept.splice(0, kept.length - limit);
    if (page.length < PAGE) return kept;
    afterSeq = page[page.length - 1]!.seq;
  }
}

export function timelineCommand(program: Command): void {
  withJsonOption(withDbOption(program.command('timeline')))
    .description('events of a mind, an intention, a plan or the audit trail, oldest first (the newest --limit of them)')
    .option('--mind <name>', 'a mind, by name or id')
    .option('--intention <id>', 'an intention')
    .option('--plan <id>', 'a plan')
    .option('--audit', 'the audit trail: policy changes, tokens issued and revoked, authors named, approvals failing their digest')
    .option('--limit <n>', 'at most this many of the newest events (default 50)')
    .action(
      action(async (options: TimelineOptions) => {
        const problems: Problem[] = [];
        const chosen = [options.mind, options.intention, options.plan, options.audit].filter((v) => v !== undefined).length;
        if (chosen !== 1) problems.push({ code: 'invalid_selection', path: '--mind|--intention|--plan|--audit', message: 'name exactly one of --mind, --intention, --plan or --audit' });
        if (options.intention !== undefined && !isId(options.intention)) problems.push({ code: 'invalid_id', path: '--intention', message: `"${options.intention}" is not an intention id` });
        if (options.plan !== undefined && !isId(options.plan)) problems.push({ code: 'invalid_id', path: '--plan', message: `"${options.plan}" is not a plan id` });
        const limit = parseLimit(options.limit, 50);
        if (typeof limit !== 'number') problems.push(limit);
        if (problems.length > 0) throw new InputError(problems);
        await useStore(options, async (store) => {
          let query: EventQuery;
          if (options.audit) query = { types: AUDIT_EVENT_TYPES };
          else if (options.mind !== undefined) query = { mindId: (await findMind(store, options.mind)).id };
          else if (options.intention !== undefined) {
            if (!(await store.intentions.get(options.intention))) throw new InputError([{ code: 'not_found', path: '--intention', message: `no intention ${options.intention}` }]);
            query = { intentionId: options.intention };
          } else {
            if (!(await store.plans.get(options.plan!))) throw new InputError([{ code: 'not_found', path: '--plan', message: `no plan ${options.plan}` }]);
            query = { planId: options.plan! };
          }
          const events = await lastEvents((q) => store.events.list(q), query, limit as number);
          if (options.json) return printJson(events);
          if (events.length === 0) return void process.stdout.write('no events\n');
          const rows = events.map((e) => [String(e.seq), e.createdAt.toISOString(), e.type, typeof e.data.key === 'string' ? e.data.key : '', clip(describeEvent(e), 100)]);
          process.stdout.write(formatTable(['SEQ', 'TIME', 'EVENT', 'STEP', 'DETAIL'], rows));
        });
      }),
    );
}
