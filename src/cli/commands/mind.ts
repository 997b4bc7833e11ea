import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { action, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { mindBundleCommands } from './mind-bundle.ts';
import { mindPauseCommands } from './plan-pauses.ts';

const MIND_NAME = /^[a-z][a-z0-9_-]{0,62}$/;

export function mindCommand(program: Command): void {
  const mind = program.command('mind').description('create, list, fork, export, import, pause and resume minds');
  mindBundleCommands(mind);
  mindPauseCommands(mind);

  withJsonOption(withDbOption(mind.command('create').argument('<name>', 'lower-case name: letters, digits, - and _')))
    .description('create a mind')
    .option('--host <host>', 'bind the mind to this host: only a daemon on it executes its plans')
    .option('--sandbox', 'a sandbox mind (never advanced while disabled)')
    .option('--if-missing', 'succeed without change when the mind already exists')
    .action(
      action(async (name: string, options: StoreOptions & { host?: string; sandbox?: boolean; ifMissing?: boolean }) => {
        if (!MIND_NAME.test(name)) {
          throw new InputError([{ code: 'invalid_name', path: 'name', message: 'a mind name starts with a letter and uses a-z, 0-9, - and _ (at most 63 characters)' }]);
        }
        await useStore(options, async (store) => {
          const existing = await store.minds.getByName(name);
          if (existing && options.ifMissing) {
            if (options.json) printJson(existing);
            else process.stdout.write(`mind ${existing.name} exists (${existing.id})\n`);
            return;
          }
          if (existing) {
            throw new InputError([{ code: 'duplicate_name', path: 'name', message: `a mind named "${name}" already exists` }]);
          }
          const created = await store.minds.create({ name, host: options.host ?? null, sandbox: options.sandbox ?? false });
          if (options.json) printJson(created);
          else process.stdout.write(`created mind ${created.name} (${created.id})\n`);
        });
      }),
    );

  withJsonOption(withDbOption(mind.command('list')))
    .description('list minds')
    .action(
      action(async (options: StoreOptions) => {
        await useStore(options, async (store) => {
          const minds = await store.minds.list();
          if (options.json) return printJson(minds);
          for (const m of minds) process.stdout.write(`${m.name.padEnd(24)} ${m.status.padEnd(9)} ${m.host ?? '-'}  ${m.id}\n`);
        });
      }),
    );
}
