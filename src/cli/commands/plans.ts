// `praxis plans`: the newest plans, one line each, to find the one to show, release or follow.

import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { PlanStatuses, type PlanStatus } from '../../core/vocabulary.ts';
import { action, firstItems, localPrincipal, onMindOption, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { clip, describeAge, formatTable } from '../report.ts';

export const MAX_LIST_LIMIT = 1000;

/** A `--limit` value: a whole number from 1 to MAX_LIST_LIMIT. */
export function parseLimit(text: string | undefined, fallback: number): number | Problem {
  if (text === undefined) return fallback;
  const n = /^\d{1,7}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIST_LIMIT) {
    return { code: 'invalid_limit', path: '--limit', message: `"${text}" is not a limit: give a whole number from 1 to ${MAX_LIST_LIMIT}` };
  }
  return n;
}

interface PlansOptions extends StoreOptions {
  mind?: string;
  status?: string;
  limit?: string;
}

export function plansCommand(program: Command): void {
  withJsonOption(withDbOption(program.command('plans')))
    .description('list plans, newest first')
    .option('--mind <name>', 'only this mind')
    .option('--status <status>', `only this status (${PlanStatuses.values.join(', ')})`)
    .option('--limit <n>', 'at most this many (default 20)')
    .action(
      action(async (options: PlansOptions) => {
        const problems: Problem[] = [];
        const limit = parseLimit(options.limit, 20);
        if (typeof limit !== 'number') problems.push(limit);
        if (options.status !== undefined && !PlanStatuses.has(options.status)) {
          problems.push({ code: 'invalid_status', path: '--status', message: `"${options.status}" is not a plan status; use one of ${PlanStatuses.values.join(', ')}` });
        }
        if (problems.length > 0) throw new InputError(problems);
        const { listPlans } = await import('../../operations/plans.ts');
        await useStore(options, async (store) => {
          const filter = { mind: options.mind, status: options.status as PlanStatus | undefined };
          const plans = await firstItems(limit as number, (page) => listPlans(store, localPrincipal('cli'), { ...filter, ...page })).catch(onMindOption);
          if (options.json) return printJson(plans);
          if (plans.length === 0) return void process.stdout.write('no plans\n');
          const now = store.clock.now();
          const rows = plans.map((p) => [p.id, p.mindName || p.mindId, p.status, String(p.revision), p.intentionId, describeAge(p.createdAt, now), clip(p.objective, 60)]);
          process.stdout.write(formatTable(['ID', 'MIND', 'STATUS', 'REV', 'INTENTION', 'AGE', 'OBJECTIVE'], rows));
        });
      }),
    );
}
