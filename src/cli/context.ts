// What store-backed commands share: the `--db` option, opening and migrating the store,
// finding a mind by name or id, and printing typed problems the same way everywhere.
// The store and the capability implementations are imported when a command first needs them,
// not when the command line is parsed: `praxis --help` and `praxis validate` never load them.

import type { Command } from 'commander';
import { InputError, type Problem } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { inputProblems } from '../core/input-limits.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { MindRecord, Store } from '../store/index.ts';
import { EXIT } from './exit-codes.ts';

export interface StoreOptions {
  db?: string;
  json?: boolean;
}

export function withDbOption(command: Command): Command {
  return command.option('--db <path-or-url>', 'SQLite file or postgres:// URL (default: PRAXIS_DATABASE_URL, PRAXIS_DB, ./.praxis/praxis.db)');
}

export function withJsonOption(command: Command): Command {
  return command.option('--json', 'print machine-readable JSON');
}

/**
 * Opens the configured store (migrated to the latest schema), runs `work`, always closes it. A
 * store that did not exist yet is created, and the command says so on stderr, naming it.
 */
export async function useStore<T>(options: StoreOptions, work: (store: Store) => Promise<T>): Promise<T> {
  const [{ resolveStoreConfig }, { describeStore, openAndMigrate }] = await Promise.all([import('../store/index.ts'), import('../daemon/store-notice.ts')]);
  const config = resolveStoreConfig({ db: options.db });
  const { store, created } = await openAndMigrate(config);
  if (created) process.stderr.write(`praxis: created a new store: ${describeStore(config)}\n`);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The capability service over the built-ins on this host, as every acting command uses it. */
export async function capabilityService(store: Store): Promise<CapabilityService> {
  const [{ CapabilityService }, { builtinRegistry }, { builtinImplementations }] = await Promise.all([
    import('../capabilities/service.ts'),
    import('../capabilities/registry.ts'),
    import('../capabilities/builtin-implementations.ts'),
  ]);
  return new CapabilityService(store, builtinRegistry(), builtinImplementations());
}

export async function findMind(store: Store, nameOrId: string): Promise<MindRecord> {
  const mind = isId(nameOrId) ? await store.minds.get(nameOrId) : await store.minds.getByName(nameOrId);
  if (!mind) throw new InputError([{ code: 'unknown_mind', path: '--mind', message: `no mind named "${nameOrId}" (create it with: praxis mind create ${nameOrId})` }]);
  return mind;
}

/** Parses a `--params` JSON object, naming the option when it is not one or breaks the input rule (src/core/input-limits.ts). */
export function parseJsonOption(text: string, option: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError([{ code: 'malformed_input', path: option, message: `not valid JSON: ${(error as Error).message}` }]);
  }
  const problems = inputProblems(value, option);
  if (problems.length > 0) throw new InputError(problems);
  return value;
}

export function printProblems(problems: Problem[], json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: false, errors: problems }, null, 2)}\n`);
    return;
  }
  for (const p of problems) process.stderr.write(`error ${p.code}${p.path ? ` at ${p.path}` : ''}: ${p.message}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs a command action, turning refused input into a typed message and a usage exit code. */
export function action<A extends unknown[]>(run: (...args: A) => Promise<number | void>) {
  return async (...args: A): Promise<void> => {
    // Commander passes the positional arguments, then the options, then the command.
    const options = args[args.length - 2] as StoreOptions | undefined;
    try {
      process.exitCode = (await run(...args)) ?? EXIT.ok;
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      printProblems(error.problems, options?.json);
      process.exitCode = EXIT.usage;
    }
  };
}
