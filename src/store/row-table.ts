// Many rows in one statement. A pass of the executor writes the records of hundreds of steps at
// once (events, executions, step moves); as a multi-row VALUES list each value is a bound
// parameter of its own, and PostgreSQL parses and plans thousands of them per statement (and
// caps a statement at 65,535 of them). There, each column travels as one array instead and
// `unnest` turns the arrays back into rows: one parameter per column, however many rows, so a
// batch is one statement. SQLite has no arrays; it keeps the VALUES list, in chunks below its
// limit on bound parameters, and pays nothing per round trip anyway.

import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { StoreKind } from './codec.ts';
import type { Database } from './schema.ts';

/** A column of a row table and its PostgreSQL type (the element type of its array). */
export type RowColumns = Readonly<Record<string, string>>;

/** Rows per VALUES statement on SQLite: far below its limit of 32,766 bound parameters for any table here. */
const SQLITE_ROWS_PER_STATEMENT = 500;

/**
 * The rows as a table expression with `columns` in order: `select … from unnest($1::uuid[], …)`
 * on PostgreSQL, `values (…), (…)` on SQLite. Every row must give every column; its values are
 * already encoded for the store (codec). For `with v (…) as (<table>)` and `insert … <table>`.
 * `onlyIf` (PostgreSQL only) keeps the rows only when it holds: an insert inside a statement
 * that writes them only if another part of it did.
 */
export function rowTable(kind: StoreKind, columns: RowColumns, rows: readonly Readonly<Record<string, unknown>>[], onlyIf?: RawBuilder<boolean>): RawBuilder<unknown> {
  const names = Object.keys(columns);
  for (const row of rows) {
    for (const name of names) if (!(name in row)) throw new TypeError(`a row for the table lacks its ${name} column`);
  }
  if (kind === 'postgres') {
    const arrays = names.map((name) => sql`${rows.map((row) => row[name] ?? null)}::${sql.raw(`${columns[name]}[]`)}`);
    const ids = sql.join(names.map((name) => sql.id(name)));
    // In the arrays' order, so an insert assigns serial numbers (the event log's seq) in the order given.
    return sql`select ${ids} from unnest(${sql.join(arrays)}) with ordinality as r (${ids}, row_order)${onlyIf ? sql` where ${onlyIf}` : sql``} order by row_order`;
  }
  if (onlyIf) throw new TypeError('a condition on a row table is for PostgreSQL statements only');
  return sql`values ${sql.join(rows.map((row) => sql`(${sql.join(names.map((name) => row[name] ?? null))})`))}`;
}

/**
 * Runs `statement` over `rows` as a row table (rowTable), returning its rows. On SQLite the VALUES
 * list is written as text of placeholders, its values bound directly, rather than a Kysely node
 * per value (about 2 µs a row to build, freeze and compile, as for insertRows). They are bound
 * ahead of the statement's own parameters, so the table must be the statement's first
 * parameterised part (as in `with v (…) as (<table>) update …`); a statement where it is not is
 * refused rather than run with its values out of place.
 */
export async function withRowTable<R>(
  db: Kysely<Database>,
  kind: StoreKind,
  columns: RowColumns,
  rows: readonly Readonly<Record<string, unknown>>[],
  statement: (table: RawBuilder<unknown>) => RawBuilder<R>,
): Promise<R[]> {
  if (kind === 'postgres') return (await statement(rowTable(kind, columns, rows)).execute(db)).rows;
  const names = Object.keys(columns);
  const parameters = valuesOf(names, rows);
  const table = `values ${new Array(rows.length).fill(`(${names.map(() => '?').join(', ')})`).join(', ')}`;
  const compiled = statement(sql.raw(table)).compile(db);
  const at = compiled.sql.indexOf(table);
  if (at < 0 || compiled.sql.indexOf('?') !== at + 'values ('.length) throw new TypeError('the row table must be the first parameterised part of its statement');
  for (const value of compiled.parameters) parameters.push(value);
  return (await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters))).rows;
}

/** `rows` in chunks one rowTable may hold: all of them on PostgreSQL, SQLITE_ROWS_PER_STATEMENT on SQLite. */
export function chunksFor<T>(kind: StoreKind, rows: readonly T[]): T[][] {
  const size = kind === 'postgres' ? Number.POSITIVE_INFINITY : SQLITE_ROWS_PER_STATEMENT;
  if (rows.length <= size) return rows.length === 0 ? [] : [[...rows]];
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

/**
 * `column in (values)` for a chunk of chunksFor: on PostgreSQL `= any` of one array parameter,
 * so a list of any length is one statement with one parameter.
 */
export function isAnyOf(kind: StoreKind, column: string, values: readonly unknown[], pgType: string): RawBuilder<boolean> {
  if (kind === 'postgres') return sql<boolean>`${sql.ref(column)} = any(${[...values]}::${sql.raw(`${pgType}[]`)})`;
  return sql<boolean>`${sql.ref(column)} in (${sql.join([...values])})`;
}

/** The insert of `rows` (one chunk of chunksFor) into `table`. */
export function insertStatement(
  kind: StoreKind,
  table: keyof Database & string,
  columns: RowColumns,
  rows: readonly Readonly<Record<string, unknown>>[],
  onlyIf?: RawBuilder<boolean>,
): RawBuilder<unknown> {
  return sql`insert into ${sql.table(table)} (${sql.join(Object.keys(columns).map((name) => sql.id(name)))}) ${rowTable(kind, columns, rows, onlyIf)}`;
}

/**
 * Inserts `rows` into `table`: one statement on PostgreSQL, one per chunk on SQLite. On SQLite the
 * statement's text and parameters are written directly rather than through Kysely's builders:
 * a node per value, frozen and then visited by the compiler, cost about 1 ms for a chunk of 500
 * events (2 µs a row), and a pass writes hundreds of rows for every kind it records.
 */
export async function insertRows(db: Kysely<Database>, kind: StoreKind, table: keyof Database & string, columns: RowColumns, rows: readonly Readonly<Record<string, unknown>>[]): Promise<void> {
  if (kind === 'postgres') {
    if (rows.length > 0) await insertStatement(kind, table, columns, rows).execute(db);
    return;
  }
  const names = Object.keys(columns);
  const head = `insert into ${quoted(table)} (${names.map(quoted).join(', ')}) values `;
  const tuple = `(${names.map(() => '?').join(', ')})`;
  // Every row is checked before the first chunk is written.
  const values = valuesOf(names, rows);
  let at = 0;
  for (const chunk of chunksFor(kind, rows)) {
    const next = at + chunk.length * names.length;
    await db.executeQuery(CompiledQuery.raw(head + new Array(chunk.length).fill(tuple).join(', '), at === 0 && next === values.length ? values : values.slice(at, next)));
    at = next;
  }
}

/**
 * The rows' values, row after row, in the order of `names` (undefined bound as null); a row that
 * lacks one of them is refused. Reading the columns through a function written for `names` (as
 * sqlite-dialect.ts's row shapes are) makes each read a named property of rows built by one
 * literal, instead of a lookup by a key that changes from one read to the next.
 */
function valuesOf(names: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): unknown[] {
  const values = new Array<unknown>(rows.length * names.length);
  const write = valueWriter(names);
  for (let i = 0; i < rows.length; i += 1) {
    const row = rows[i]!;
    if (!write(row, values, i * names.length)) throw new TypeError(`a row for the table lacks its ${names.find((name) => !(name in row))} column`);
  }
  return values;
}

type ValueWriter = (row: Readonly<Record<string, unknown>>, values: unknown[], at: number) => boolean;
const valueWriters = new Map<string, ValueWriter>();

/** Writes a row's values at `at`; false when the row lacks a column. One per list of names. */
function valueWriter(names: readonly string[]): ValueWriter {
  const key = names.join('\u0000');
  let write = valueWriters.get(key);
  if (!write) {
    // The names are JSON string literals in the source, never code.
    const keys = names.map((name) => JSON.stringify(name));
    write = new Function(
      'row',
      'values',
      'at',
      `if (${keys.map((k) => `!(${k} in row)`).join(' || ') || 'false'}) return false;\n${keys.map((k, i) => `values[at + ${i}] = row[${k}] ?? null;`).join('\n')}\nreturn true;`,
    ) as ValueWriter;
    valueWriters.set(key, write);
  }
  return write;
}

/** An identifier as SQLite reads it, as Kysely's compiler writes it. */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
