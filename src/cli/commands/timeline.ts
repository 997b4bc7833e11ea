// `praxis timeline`: what happened to a mind, an intention or a plan, in order. Every event ties
// an action to its step, plan and intention, so this is the first place to look when asking why
// something ran, waited or stopped.

import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import type { EventRecord } from '../../operations/records.ts';
import { action, localPrincipal, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { clip, formatTable } from '../report.ts';
import { parseLimit } from './plans.ts';

interface TimelineOptions extends StoreOptions {
  audit?: boolean;
  mind?: string;
  intention?: string;
  plan?: string;
  limit?: string;
}

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
        const { latestEvents } = await import('../../operations/timeline.ts');
        await useStore(options, async (store) => {
          const subject = options.audit
            ? { audit: true as const }
            : options.mind !== undefined
              ? { mind: options.mind }
              : options.intention !== undefined
                ? { intention: options.intention }
                : { plan: options.plan! };
          const events = await latestEvents(store, localPrincipal('cli'), subject, limit as number).catch((error: unknown) => {
            // Each subject was given as the option of its name.
            if (error instanceof InputError) throw new InputError(error.problems.map((p) => ({ ...p, path: `--${p.path}` })));
            throw error;
          });
          if (options.json) return printJson(events);
          if (events.length === 0) return void process.stdout.write('no events\n');
          const rows = events.map((e) => [String(e.seq), e.createdAt.toISOString(), e.type, typeof e.data.key === 'string' ? e.data.key : '', clip(describeEvent(e), 100)]);
          process.stdout.write(formatTable(['SEQ', 'TIME', 'EVENT', 'STEP', 'DETAIL'], rows));
        });
      }),
    );
}
