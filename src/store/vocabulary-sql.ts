// Closed vocabularies rendered as SQL. The migration's CHECK constraints and the queries that
// must match a partial index use the same fragments, built from the lists in src/core, so the
// database and the code cannot disagree about a vocabulary.

import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { DUE_STEP_STATUSES } from '../core/vocabulary.ts';

/**
 * `column IN ('a', 'b', ...)` with the values inlined as literals: DDL cannot take bind
 * parameters, and SQLite only uses a partial index when the query repeats its WHERE term as written.
 */
export function oneOf(column: string, values: readonly string[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join(values.map((value) => sql.lit(value)))})`;
}

/** The statuses the executor must look at again; the predicate of `plan_steps_due_idx`. */
export function stepIsDue(): RawBuilder<SqlBool> {
  return oneOf('status', DUE_STEP_STATUSES);
}

/**
 * `origin <> ''`: the predicate of the origin indexes, for rows caused by something recorded
 * (most often a plan step). Lookups by origin repeat it: SQLite does not infer it from
 * `origin = ?` and would otherwise scan the table.
 */
export function hasOrigin(): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref('origin')} <> ${sql.lit('')}`;
}
