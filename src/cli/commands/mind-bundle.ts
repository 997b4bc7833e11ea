// `praxis mind fork`, `praxis mind export` and `praxis mind import`: copies of a mind as a
// disabled sandbox in the same store, or as a bundle file for another store (docs/mind.md,
// "Forks, exports and imports"). The CLI works on the store directly, so it acts as an
// administrator named by --operator (default: the OS user), recorded on the new mind's events.

import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Principal } from '../../access/permissions.ts';
import { InputError } from '../../core/errors.ts';
import { cliOperator } from '../operator.ts';
import { action, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';

interface OperatorOption {
  operator?: string;
}

function administrator(options: OperatorOption): Principal {
  return { tokenId: null, operator: cliOperator(options.operator, '--operator'), role: 'admin', mindId: null };
}

function said(copy: { mind: { name: string; id: string; status: string }; quiesced: { plans: number; steps: number; intentions: number } }, how: string): string {
  const q = copy.quiesced;
  return `${how} mind ${copy.mind.name} (${copy.mind.id}, ${copy.mind.status}); quiesced ${q.plans} plan(s), ${q.steps} step(s), ${q.intentions} intention(s)\n`;
}

async function readBundle(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InputError([{ code: 'unreadable_file', path: 'file', message: `cannot read ${file}: ${reason}` }]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError([{ code: 'malformed_input', path: 'file', message: `${file} is not JSON: ${(error as Error).message}` }]);
  }
}

export function mindBundleCommands(mind: Command): void {
  withJsonOption(withDbOption(mind.command('fork').argument('<source>', 'the mind to copy (name or id)').argument('<name>', 'the new mind')))
    .description('a disabled sandbox copy of a mind (beliefs, memories, policy, plans), its inherited work quiesced; never its approvals or grants')
    .option('--operator <name>', 'who forks it (default: the OS user name)')
    .action(
      action(async (source: string, name: string, options: StoreOptions & OperatorOption) => {
        const principal = administrator(options);
        const { forkMindCopy } = await import('../../operations/mind-copies.ts');
        await useStore(options, async (store) => {
          const copy = await forkMindCopy(store, principal, source, name);
          if (options.json) printJson(copy);
          else process.stdout.write(said(copy, 'forked'));
        });
      }),
    );

  withDbOption(mind.command('export').argument('<name>', 'the mind to export (name or id)'))
    .description('write the mind as a versioned bundle file (JSON) for `praxis mind import`')
    .option('--out <file>', 'write the bundle here instead of to standard output')
    .action(
      action(async (name: string, options: StoreOptions & { out?: string }) => {
        const { exportMindBundle } = await import('../../operations/mind-copies.ts');
        await useStore(options, async (store) => {
          const bundle = await exportMindBundle(store, administrator({}), name);
          const text = `${JSON.stringify(bundle, null, 2)}\n`;
          if (options.out) await writeFile(options.out, text, { mode: 0o600 });
          else process.stdout.write(text);
        });
      }),
    );

  withJsonOption(withDbOption(mind.command('import').argument('<file>', 'a bundle written by `praxis mind export`')))
    .description("make a mind from a bundle, its inherited work quiesced; it keeps the bundle's status, sandbox flag and host")
    .option('--as <name>', "the new mind's name (default: the name in the bundle)")
    .option('--operator <name>', 'who imports it (default: the OS user name)')
    .action(
      action(async (file: string, options: StoreOptions & OperatorOption & { as?: string }) => {
        const principal = administrator(options);
        const bundle = await readBundle(file);
        const { importMindBundle } = await import('../../operations/mind-copies.ts');
        await useStore(
          options,
          async (store) => {
            const copy = await importMindBundle(store, principal, bundle, { name: options.as, namePath: '--as' });
            if (options.json) printJson(copy);
            else process.stdout.write(said(copy, 'imported'));
          },
          { create: true },
        );
      }),
    );
}
