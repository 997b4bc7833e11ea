// Closed vocabularies rendered as SQL. The migrations' CHECK constraints and the queries that
// must match a partial index use these fragments, built from the lists in src/core, so the
// database and the code cannot disagree about a vocabulary.

import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { AUDIT_EVENT_TYPES, DUE_STEP_STATUSES, STEP_STATUSES } from '../core/vocabulary.ts';
import type { StoreKind } from './codec.ts';

/**
 * `column IN ('a', 'b', ...)` with the values inlined as literals: DDL cannot take bind
 * parameters, and SQLite only uses a partial index when the query repeats its WHERE term as written.
 */
export function oneOf(column: string, values: readonly string[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join(values.map((value) => sql.lit(value)))})`;
}

/**
 * The same test as `oneOf`, written as `(column = 'a' or column = 'b' ...)`: for a CHECK on a
 * table written row by row in bulk. In a query SQLite builds an IN list's lookup table once per
 * statement, but in a CHECK it builds it again for every row it tests (EXPLAIN shows the
 * OpenEphemeral inside the insert loop, with no Once before it): 4.2 µs a row for the 62 event
 * types, against 0.5 µs for the equalities, which stop at the first match.
 */
export function equalsOneOf(column: string, values: readonly string[]): RawBuilder<SqlBool> {
  if (values.length === 0) throw new TypeError(`no values for ${column} to equal`);
  return sql<SqlBool>`(${sql.join(
    values.map((value) => sql`${sql.ref(column)} = ${sql.lit(value)}`),
    sql` or `,
  )})`;
}

/**
 * The audit trail's events (policy, tokens, authors, tampering): the predicate of
 * `events_audit_idx`, which queries for them repeat as written so the index is used.
 */
export function isAuditEvent(): RawBuilder<SqlBool> {
  return equalsOneOf('type', AUDIT_EVENT_TYPES);
}

/**
 * The statuses the executor must look at again, as the queries served by `plan_steps_due_idx`
 * name them (`column` qualified as they do). On SQLite it is the index's predicate, repeated as
 * written (equalities since migration 0016, which evaluates it on every status move of a step).
 * On PostgreSQL it is a list, which implies the index's predicate (dueIndexPredicate).
 */
export function stepIsDue(kind: StoreKind, column = 'status'): RawBuilder<SqlBool> {
  return partialIndexTerm(kind, column, DUE_STEP_STATUSES);
}

/**
 * The predicate `plan_steps_due_idx` is made with (migration 0017): stepIsDue on SQLite; on
 * PostgreSQL, every other step status excluded (`status <> 'pending' and ...`). PostgreSQL drops
 * from an index's conditions any condition its predicate implies: with the due statuses as the
 * predicate, a query's `status in (the due statuses)` went, and the read of steps whose time has
 * come walked the due times of the whole index (122 pages with 20,000 ready steps waiting,
 * against 10 now). stepIsDue's list implies this predicate without being implied by it, so it
 * stays a condition of the index, probed one status at a time.
 */
export function dueIndexPredicate(kind: StoreKind): RawBuilder<SqlBool> {
  if (kind === 'sqlite') return stepIsDue(kind);
  const others = STEP_STATUSES.filter((status) => !(DUE_STEP_STATUSES as readonly string[]).includes(status));
  return sql<SqlBool>`${sql.join(
    others.map((status) => sql`${sql.ref('status')} <> ${sql.lit(status)}`),
    sql` and `,
  )}`;
}

/**
 * A vocabulary test in a partial index's predicate, and in the queries that repeat it: equalities
 * on SQLite, which evaluates the predicate on every write of a row (migration 0016), a list on
 * PostgreSQL, as its indexes were made.
 */
export function partialIndexTerm(kind: StoreKind, column: string, values: readonly string[]): RawBuilder<SqlBool> {
  return kind === 'sqlite' ? equalsOneOf(column, values) : oneOf(column, values);
}

/**
 * `origin <> ''`: the predicate of the origin indexes, for rows caused by something recorded
 * (most often a plan step). Lookups by origin repeat it: SQLite does not infer it from
 * `origin = ?` and would otherwise scan the table.
 */
export function hasOrigin(): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref('origin')} <> ${sql.lit('')}`;
}
