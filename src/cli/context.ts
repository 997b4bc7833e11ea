// What store-backed commands share: the `--db` option, opening the services the operations run
// on (composed by src/daemon/local.ts), the caller a command speaks for, and printing typed
// problems the same way everywhere. The store and the capability implementations are imported
// when a command first needs them, not when the command line is parsed: `praxis --help` and
// `praxis validate` never load them.

import { Command } from 'commander';
import type { Principal } from '../access/permissions.ts';
import { ERROR_CODES } from '../core/error-codes.ts';
import { InputError, type Problem } from '../core/errors.ts';
import { INPUT_LIMITS, inputProblems, textProblem } from '../core/input-limits.ts';
import { MAX_PAGE_SIZE, type Page, type PageRequest } from '../operations/pages.ts';
import type { MindRecord } from '../operations/records.ts';
import type { Services } from '../operations/services.ts';
import { EXIT } from './exit-codes.ts';

type Store = Services['store'];

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

/** Whether a command may create the store it opens: only those that start one (`token create`, `mind create`, `mind import`). */
export interface Opening {
  create?: boolean;
}

/**
 * Opens the configured store (migrated to the latest schema) with the services the operations
 * run on, runs `work`, always closes it. Where there is no store, a command that may create one
 * (`opening.create`) does and says so on stderr, naming it; any other is refused `no_store`.
 */
export async function useServices<T>(options: StoreOptions, work: (services: Services) => Promise<T>, opening: Opening = {}): Promise<T> {
  const { openLocalServices } = await import('../daemon/local.ts');
  const local = await openLocalServices(options.db, opening);
  return usingStore(local, () => work(local.services));
}

/**
 * useServices for a command that needs only the store to hand to operations: it opens the
 * store alone, without loading the capability and planning modules (about a quarter of the
 * code a command loads, some 20 ms of CPU at its start).
 */
export async function useStore<T>(options: StoreOptions, work: (store: Store) => Promise<T>, opening: Opening = {}): Promise<T> {
  const { openLocalStore } = await import('../daemon/store-notice.ts');
  const local = await openLocalStore(options.db, opening);
  return usingStore({ ...local, close: () => local.store.close() }, () => work(local.store));
}

async function usingStore<T>(local: { created: string | null; close(): Promise<void> }, work: () => Promise<T>): Promise<T> {
  if (local.created) process.stderr.write(`praxis: created a new store: ${local.created}\n`);
  try {
    return await work();
  } finally {
    await local.close();
  }
}

/**
 * Whoever runs the CLI against the store is trusted, as an operator: the caller identity the
 * operations check, naming the operator (`--as`, else the OS user) on what they record.
 */
export function localPrincipal(operator: string): Principal {
  return { tokenId: null, operator, role: 'operator', mindId: null };
}

/** The mind a `--mind` option names, as the operations find it (the same refusal the API gives). */
export async function findMind(store: Store, nameOrId: string, operator = 'cli'): Promise<MindRecord> {
  const { resolveMind } = await import('../operations/minds.ts');
  return resolveMind(store, localPrincipal(operator), nameOrId, '--mind');
}

/** The first `limit` items of a paged operation, read a page at a time (a command's --limit may exceed one page). */
export async function firstItems<T>(limit: number, page: (request: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page({ limit: Math.min(MAX_PAGE_SIZE, limit - items.length), cursor });
    items.push(...next.items);
    cursor = next.next_cursor ?? undefined;
  } while (cursor !== undefined && items.length < limit);
  return items;
}

/** Rethrows an operation's refusal with its `mind` input named as the `--mind` option that carried it. */
export function onMindOption(error: unknown): never {
  if (error instanceof InputError) throw new InputError(error.problems.map((p) => (p.path === 'mind' ? { ...p, path: '--mind' } : p)));
  throw error;
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

/**
 * The exit code a refusal ends a command with: its first problem's in the catalogue
 * (src/core/error-codes.ts), so a code ends every command the same way (a mistake in the command
 * line 2, a refusal of what it asked 1).
 */
export function exitOf(problems: readonly Problem[]): number {
  const first = problems[0];
  return first ? EXIT[ERROR_CODES[first.code].exit] : EXIT.usage;
}

/** Runs a command action, turning a refusal into a typed message and the exit code its code has in the catalogue. */
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
      process.exitCode = exitOf(error.problems);
    }
  };
}
