// What store-backed commands share: the `--db` option, opening and migrating the store,
// finding a mind by name or id, and printing typed problems the same way everywhere.
// The store and the capability implementations are imported when a command first needs them,
// not when the command line is parsed: `praxis --help` and `praxis validate` never load them.

import { Command } from 'commander';
import { InputError, type Problem } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { INPUT_LIMITS, inputProblems, textProblem } from '../core/input-limits.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { MindRecord, Store, StoreConfig } from '../store/index.ts';
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

/** Where each open store came from, so its capability service reads the secret that belongs to it. */
const storeConfigs = new WeakMap<Store, StoreConfig>();

/**
 * Opens the configured store (migrated to the latest schema), runs `work`, always closes it. A
 * store that did not exist yet is created, and the command says so on stderr, naming it.
 */
export async function useStore<T>(options: StoreOptions, work: (store: Store) => Promise<T>): Promise<T> {
  const [{ resolveStoreConfig }, { describeStore, openAndMigrate }] = await Promise.all([import('../store/index.ts'), import('../daemon/store-notice.ts')]);
  const config = resolveStoreConfig({ db: options.db });
  const { store, created } = await openAndMigrate(config);
  storeConfigs.set(store, config);
  if (created) process.stderr.write(`praxis: created a new store: ${describeStore(config)}\n`);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * The capability service over the built-ins on this host, as every acting command uses it, keyed
 * with the daemon secret of this database (PRAXIS_SECRET_FILE, else the one beside the SQLite
 * file or in ./.praxis/ for PostgreSQL): what the CLI raises, the daemon can verify, and back.
 */
export async function capabilityService(store: Store): Promise<CapabilityService> {
  const [{ CapabilityService }, { builtinRegistry }, { builtinImplementations }, { loadDaemonKey }] = await Promise.all([
    import('../capabilities/service.ts'),
    import('../capabilities/registry.ts'),
    import('../capabilities/builtin-implementations.ts'),
    import('../access/daemon-secret.ts'),
  ]);
  const config = storeConfigs.get(store);
  if (!config) throw new Error('capabilityService needs a store opened by useStore');
  const { key } = loadDaemonKey(config, process.env.PRAXIS_SECRET_FILE);
  return new CapabilityService(store, builtinRegistry(), builtinImplementations(), { approvalKey: key });
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

/**
 * The longest value each free-text option or argument takes, as the API's fields of the same
 * meaning do (src/server/schemas.ts); any other takes the input rule's longest string.
 */
const CLI_TEXT_LIMITS: Readonly<Record<string, number>> = {
  note: 2000,
  why: 2000,
  reason: 2000,
  objective: 2000,
  label: 200,
  as: 200,
  operator: 200,
  author: 200,
  mind: 200,
};

/**
 * Every text given on the command line under the one input rule (src/core/input-limits.ts), as
 * an API body's would be: no control characters, no half surrogate pairs, no longer than its
 * field allows. Each problem names the option (`--note`) or argument (`objective`). Checked
 * before a command opens anything, so a refused command changes nothing.
 */
export function commandLineProblems(command: Command, positional: readonly unknown[]): Problem[] {
  const problems: Problem[] = [];
  const check = (value: unknown, name: string, path: string) => {
    for (const text of Array.isArray(value) ? value : [value]) {
      if (typeof text !== 'string') continue;
      const problem = textProblem(text, CLI_TEXT_LIMITS[name] ?? INPUT_LIMITS.maxStringLength);
      if (problem) problems.push({ code: problem.code, path, message: `${path} ${problem.message}` });
    }
  };
  command.registeredArguments.forEach((argument, index) => check(positional[index], argument.name(), argument.name()));
  const values = command.opts();
  for (const option of command.options) {
    const name = option.attributeName();
    check(values[name], name, option.long ?? `--${name}`);
  }
  return problems;
}

/** Runs a command action, turning refused input into a typed message and a usage exit code. */
export function action<A extends unknown[]>(run: (...args: A) => Promise<number | void>) {
  return async (...args: A): Promise<void> => {
    // Commander passes the positional arguments, then the options, then the command.
    const options = args[args.length - 2] as StoreOptions | undefined;
    try {
      const command = args[args.length - 1];
      if (command instanceof Command) {
        const problems = commandLineProblems(command, args.slice(0, -2));
        if (problems.length > 0) throw new InputError(problems);
      }
      process.exitCode = (await run(...args)) ?? EXIT.ok;
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      printProblems(error.problems, options?.json);
      process.exitCode = EXIT.usage;
    }
  };
}
