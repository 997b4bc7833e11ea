// The executor's own tables on SQLite, with every `column in ('a', 'b', ...)` test they evaluate
// row by row written as a chain of equalities (`(column = 'a' or column = 'b' ...)`): the CHECK
// constraints of plan_steps, plans, intentions and tool_executions, and the predicates of
// plan_steps_due_idx and plans_live_idx. The tests are the same, with the same values in the same
// order; the cost is not. SQLite builds an IN list's lookup table anew each time a CHECK or a
// partial index's predicate is evaluated (as migration 0013 found for the event types), and every
// status move of a step evaluates its status check once and the due index's predicate twice (the
// row before and after), as a plan's does its own. Measured on a copy of plan_steps: 6.5-7.9 µs a
// status update with the lists, 3.4-4.3 with the equalities; the executor makes two such updates a
// step (its promotion, then its move).
//
// The queries that must use these indexes repeat their predicates as written (stepIsDue,
// planIsLive), since SQLite uses a partial index only for a query term that is the same
// expression. PostgreSQL is left as it is: it evaluates a list as cheaply as the equalities, and
// rewriting constraints on a store shared by live daemons would lock and rescan its largest tables
// for nothing. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { rebuildSqliteTable } from './sqlite-rebuild.ts';

/** The tables a pass writes to for every step or plan it moves. */
const TABLES = ['plan_steps', 'plans', 'intentions', 'tool_executions'] as const;

/** The partial indexes among theirs with a list in their predicate (their queries repeat it: stepIsDue, planIsLive). */
const INDEXES = new Set(['plan_steps_due_idx', 'plans_live_idx']);

/** `"column" in ('a', 'b')` as SQLite stores it from a migration's oneOf. */
const IN_LIST = /"([a-z_]+)" in \(('[a-z0-9_]*'(?:, '[a-z0-9_]*')*)\)/g;

/** Every list of words in `text` written as a chain of equalities, in the list's order. */
export function listsAsEqualities(text: string): string {
  return text.replace(
    IN_LIST,
    (_list, column: string, values: string) =>
      `(${values
        .split(', ')
        .map((value) => `"${column}" = ${value}`)
        .join(' or ')})`,
  );
}

export function stepCheckEqualities(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (kind !== 'sqlite') return;
      for (const table of TABLES) {
        await rebuildSqliteTable(db, { table, definition: listsAsEqualities, index: (name, stored) => (INDEXES.has(name) ? listsAsEqualities(stored) : stored) });
      }
    },
  };
}
