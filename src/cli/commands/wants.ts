// `praxis wants --mind M`: what a mind wants, newest first: open wants a dream left, and wants
// suppressed because an intention formed for them could not be planned (docs/mind.md).

import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { WANT_STATUSES, type WantStatus } from '../../core/vocabulary.ts';
import { action, firstItems, localPrincipal, onMindOption, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { clip, describeAge, formatTable } from '../report.ts';
import { parseLimit } from './plans.ts';

export function wantsCommand(program: Command): void {
  withJsonOption(withDbOption(program.command('wants')))
    .description("list a mind's wants, newest first")
    .requiredOption('--mind <name>', 'the mind')
    .option('--status <status>', `only this status (${WANT_STATUSES.join(', ')})`)
    .option('--limit <n>', 'at most this many (default 20)')
    .action(
      action(async (options: StoreOptions & { mind: string; status?: string; limit?: string }) => {
        const problems: Problem[] = [];
        const limit = parseLimit(options.limit, 20);
        if (typeof limit !== 'number') problems.push(limit);
        if (options.status !== undefined && !(WANT_STATUSES as readonly string[]).includes(options.status)) {
          problems.push({ code: 'invalid_status', path: '--status', message: `"${options.status}" is not a want status; use one of ${WANT_STATUSES.join(', ')}` });
        }
        if (problems.length > 0) throw new InputError(problems);
        const { listWants } = await import('../../operations/dreams.ts');
        await useStore(options, async (store) => {
          const status = options.status as WantStatus | undefined;
          const wants = await firstItems(limit as number, (page) => listWants(store, localPrincipal('cli'), options.mind, { status, ...page })).catch(onMindOption);
          if (options.json) return printJson(wants);
          if (wants.length === 0) return void process.stdout.write('no wants\n');
          const now = store.clock.now();
          const rows = wants.map((w) => [w.id, w.status, w.origin, w.reason || '-', describeAge(w.createdAt, now), clip(w.statement, 60)]);
          process.stdout.write(formatTable(['ID', 'STATUS', 'ORIGIN', 'REASON', 'AGE', 'STATEMENT'], rows));
        });
      }),
    );
}
