// `praxis mind create|list`: minds by the rules the operations hold for every surface (a name's
// form, `name_taken` for a duplicate); the bundle and pause commands live beside.

import type { Command } from 'commander';
import type { MindRecord } from '../../operations/records.ts';
import { action, localPrincipal, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { mindBundleCommands } from './mind-bundle.ts';
import { mindPauseCommands } from './plan-pauses.ts';

export function mindCommand(program: Command): void {
  const mind = program.command('mind').description('create, list, fork, export, import, pause and resume minds');
  mindBundleCommands(mind);
  mindPauseCommands(mind);

  withJsonOption(withDbOption(mind.command('create').argument('<name>', '1 to 63 letters, digits, dots, dashes or underscores, starting with a letter or digit')))
    .description('create a mind')
    .option('--host <host>', 'bind the mind to this host: only a daemon on it executes its plans')
    .option('--sandbox', 'a sandbox mind (never advanced while disabled)')
    .option('--if-missing', 'succeed without change when the mind already exists')
    .action(
      action(async (name: string, options: StoreOptions & { host?: string; sandbox?: boolean; ifMissing?: boolean }) => {
        const { Conflict, checkMindName, createMind, resolveMind } = await import('../../operations/index.ts');
        // Before the store is opened: a refused name creates no store.
        checkMindName(name);
        await useStore(
          options,
          async (store) => {
            let created: MindRecord;
            try {
              created = await createMind(store, { name, host: options.host, sandbox: options.sandbox });
            } catch (error) {
              if (!(options.ifMissing && error instanceof Conflict && error.problems[0]?.code === 'name_taken')) throw error;
              const existing = await resolveMind(store, localPrincipal('cli'), name, 'name');
              if (options.json) printJson(existing);
              else process.stdout.write(`mind ${existing.name} exists (${existing.id})\n`);
              return;
            }
            if (options.json) printJson(created);
            else process.stdout.write(`created mind ${created.name} (${created.id})\n`);
          },
          { create: true },
        );
      }),
    );

  withJsonOption(withDbOption(mind.command('list')))
    .description('list minds')
    .action(
      action(async (options: StoreOptions) => {
        const { listMinds, MAX_PAGE_SIZE } = await import('../../operations/index.ts');
        await useStore(options, async (store) => {
          const minds: MindRecord[] = [];
          let cursor: string | undefined;
          do {
            const page = await listMinds(store, localPrincipal('cli'), { limit: MAX_PAGE_SIZE, cursor });
            minds.push(...page.items);
            cursor = page.next_cursor ?? undefined;
          } while (cursor !== undefined);
          if (options.json) return printJson(minds);
          for (const m of minds) process.stdout.write(`${m.name.padEnd(24)} ${m.status.padEnd(9)} ${m.host ?? '-'}  ${m.id}\n`);
        });
      }),
    );
}
