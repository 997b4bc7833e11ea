// Many step moves in one statement. A pass of the executor moves a batch of steps at the end of
// it, most of them the same way (ready → completed, guarded by the due time they were found at,
// counting the attempt). Moves of one shape (target status, `from` statuses, the columns they
// set and the guards they carry) become one conditional UPDATE joined to a table of per-step
// values, so every row keeps exactly the condition its own `move` would have: the database
// still decides each step's winner, and a step that lost is simply absent from RETURNING.
//
//   WITH v(id, <columns>, <guard values>) AS (VALUES (...), (...))
//   UPDATE plan_steps SET status = :to, <column> = v.<column>, ... FROM v
//   WHERE plan_steps.id = v.id AND plan_steps.status IN (:from) AND <guards on v> RETURNING <the step>
//
// Both stores run it (SQLite since 3.33 for UPDATE ... FROM). On PostgreSQL v is one array per
// column (row-table.ts), each typed, so any number of moves is one statement.

import { sql, type Kysely, type Updateable } from 'kysely';
import type { StepStatus } from '../../core/vocabulary.ts';
import type { Codec } from '../codec.ts';
import { withRowTable } from '../row-table.ts';
import type { Database, PlanStepsTable } from '../schema.ts';

type SetColumn = keyof Updateable<PlanStepsTable> & string;

/** PostgreSQL's type for each column a move may set or compare, for the VALUES list. */
const PG_TYPES: Record<string, string> = {
  id: 'uuid',
  lease_until: 'timestamptz',
  next_run_at: 'timestamptz',
  approval_id: 'uuid',
  request_id: 'uuid',
  execution_id: 'uuid',
  prediction_id: 'uuid',
  intention_id: 'uuid',
  result: 'jsonb',
  observation: 'jsonb',
  error: 'text',
  status_reason: 'text',
  claimed_by: 'text',
  started_at: 'timestamptz',
  finished_at: 'timestamptz',
  guard_lease_until: 'timestamptz',
  guard_lease_expired_by: 'timestamptz',
  guard_attempts: 'integer',
  guard_due_by: 'timestamptz',
  guard_claimed_by: 'text',
};

/** One step's move, its columns already encoded for the store. */
export interface EncodedMove {
  id: string;
  from: readonly StepStatus[];
  to: StepStatus;
  set: Updateable<PlanStepsTable>;
  countAttempt: boolean;
  /** Encoded guard values; `lease_until: null` asks for no lease. */
  guard: { lease_until?: string | null; lease_expired_by?: string; attempts?: number; due_by?: string; claimed_by?: string };
}

/**
 * Moves that can share one statement have the same shape. Keys are taken in the order they were
 * set, unsorted (a pass computes this for every move): encodeMove sets them in one fixed order,
 * so equal sets give equal shapes, and a caller listing `from` in another order only costs a
 * statement of its own.
 */
export function shapeOf(move: EncodedMove): string {
  let guards = '';
  for (const k in move.guard) guards += k === 'lease_until' && move.guard.lease_until === null ? 'no_lease,' : `${k},`;
  let set = '';
  for (const k in move.set) set += `${k},`;
  return `${move.to}|${move.from.join(',')}|${set}|${move.countAttempt ? 'attempt' : ''}|${guards}`;
}

/**
 * Runs the UPDATE for several moves of one shape (see the file's opening comment; `now` is
 * encoded) and returns the moved steps whole, or only the `returning` columns when given.
 */
export function moveRows(db: Kysely<Database>, codec: Codec, moves: readonly EncodedMove[], now: string, returning: readonly string[] | null = null): Promise<Record<string, unknown>[]> {
  const [first] = moves;
  if (!first) throw new TypeError('moveRows needs at least one move');
  const setColumns = Object.keys(first.set).sort() as SetColumn[];
  const guardColumns = Object.keys(first.guard)
    .filter((k) => !(k === 'lease_until' && first.guard.lease_until === null))
    .sort() as (keyof EncodedMove['guard'])[];
  const columns = ['id', ...setColumns, ...guardColumns.map((g) => `guard_${g}`)];
  const types = Object.fromEntries(columns.map((c) => [c, PG_TYPES[c] ?? 'text']));
  const rows = moves.map((move) => {
    const row: Record<string, unknown> = { id: move.id };
    for (const c of setColumns) row[c] = move.set[c];
    for (const g of guardColumns) row[`guard_${g}`] = move.guard[g];
    return row;
  });
  const time = (value: string) => (codec.kind === 'postgres' ? sql`${value}::timestamptz` : sql`${value}`);
  const step = (column: string) => sql.ref(`plan_steps.${column}`);
  const fromV = (column: string) => sql.ref(`v.${column}`);
  const assignments = [
    sql`status = ${first.to}`,
    sql`updated_at = ${time(now)}`,
    ...setColumns.map((c) => sql`${sql.id(c)} = ${fromV(c)}`),
    ...(first.countAttempt ? [sql`attempts = ${step('attempts')} + 1`, sql`started_at = ${time(now)}`] : []),
  ];
  const conditions = [
    sql`${step('id')} = ${fromV('id')}`,
    sql`${step('status')} in (${sql.join([...first.from])})`,
    ...(first.guard.lease_until === null ? [sql`${step('lease_until')} is null`] : []),
    ...guardColumns.map((g) => {
      const value = fromV(`guard_${g}`);
      switch (g) {
        case 'lease_until':
          return sql`${step('lease_until')} = ${value}`;
        case 'lease_expired_by':
          return sql`${step('lease_until')} <= ${value}`;
        case 'attempts':
          return sql`${step('attempts')} = ${value}`;
        case 'due_by':
          return sql`(${step('next_run_at')} is null or ${step('next_run_at')} <= ${value})`;
        case 'claimed_by':
          return sql`${step('claimed_by')} = ${value}`;
      }
    }),
  ];
  // SQLite's RETURNING names only the updated table's columns and refuses `plan_steps.*`;
  // PostgreSQL's `*` would also bring v's columns, some named like the step's.
  // Named columns are the step's own on both stores.
  const returned = returning ? sql.join(returning.map((c) => step(c))) : codec.kind === 'postgres' ? sql`plan_steps.*` : sql`*`;
  return withRowTable(
    db,
    codec.kind,
    types,
    rows,
    (table) => sql<Record<string, unknown>>`with v (${sql.join(columns.map((c) => sql.id(c)))}) as (${table})
update plan_steps set ${sql.join(assignments)} from v where ${sql.join(conditions, sql` and `)} returning ${returned}`,
  );
}
