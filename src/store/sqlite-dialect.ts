// The SQLite dialect Praxis runs on: Kysely's own, with two changes that matter to the executor.
//
// Transactions open with BEGIN IMMEDIATE. Kysely's driver opens them with a plain (deferred)
// BEGIN; a deferred transaction that reads and then writes can fail at once with SQLITE_BUSY
// when another process wrote in between, without waiting on busy_timeout. BEGIN IMMEDIATE takes
// the write lock up front, so concurrent writers queue on busy_timeout instead.
//
// Statements are prepared once. better-sqlite3 prepares a statement for every call, and Kysely's
// driver calls `prepare` for every query: parsing and planning the same SQL again was about a
// sixth of the executor's time. The database handed to Kysely keeps the prepared statements of
// the most recent distinct SQL texts (the repositories have a few hundred shapes) and reuses
// them; a prepared statement is reset by better-sqlite3 before each run, so reuse is safe.
//
// Migrations run in transactions. Kysely's SQLite adapter declares no transactional DDL, so its
// migrator ran each migration statement by statement: a crash between 0017's drop of the due
// index and its creation left the index gone and the migration unrecorded, and every later open
// failed on the drop ("no such index"). SQLite's DDL is transactional; migrations/index.ts runs
// one migration and its record per transaction.
//
// A LIMIT's value is written `limit +?`, never a bare `limit ?`. Since SQLite 3.47 the planner
// reads a bound LIMIT's value as a constant (it sizes the result by it; check-in "Better optimize
// queries that use parameters in the LIMIT clause"), and so marks the statement to be prepared
// again whenever that parameter is bound: better-sqlite3 binds every parameter on every run, so
// each run of a statement with `limit ?` parsed and planned it anew. With the store's cache of
// prepared statements that was the whole cost of most of a pass's reads: an idle pass's three due
// reads took 60-190 µs each on an empty store, 5-9 µs each once SQLite could keep them (every
// `limit ?` statement of a pass lost 17-270 µs a run). SQLite looks through a unary plus only
// for literals, so the value is read at run time, and checked as before: a limit that is not a
// whole number is still refused ("datatype mismatch"; `cast(? as integer)` would have cut 2.5 to 2
// and read 'abc' as 0). The planner then sizes the result as it did before 3.47, without the
// limit: the 29 limited statements of a workload plan the same either way, plain and after
// ANALYZE.
//
// Rows are read as arrays and made into objects of one shape per statement (shapedRows): the
// objects better-sqlite3 builds itself cost twice as much. Reading 2,000 steps (34 columns) took
// 13.5-14.5 ms as better-sqlite3's objects, 7.0-7.3 ms as arrays made into objects by a function
// written for the statement's columns; a pass reads its plans' steps every time.

import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  SqliteQueryCompiler,
  ValueNode,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type LimitNode,
  type QueryCompiler,
  type SqliteDialectConfig,
} from 'kysely';

class ImmediateTransactionSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Kysely's SQLite compiler, writing a bound LIMIT so that SQLite keeps the statement prepared (above). */
class StableLimitSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    if (!ValueNode.is(node.limit) || node.limit.immediate) {
      super.visitLimit(node);
      return;
    }
    this.append('limit +');
    this.visitNode(node.limit);
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** Distinct SQL texts kept prepared; beyond it the least recently used is dropped. */
export const PREPARED_STATEMENT_CACHE_SIZE = 512;

/**
 * The `prepare` Kysely calls, answered from a cache of prepared statements by SQL text. With
 * `written`, each statement that can write tells it after running: every `run` (writes and
 * transaction control, `commit` among them) and a reader that is not read-only (RETURNING).
 */
export function withStatementCache(database: SqliteDatabase, size = PREPARED_STATEMENT_CACHE_SIZE, written?: () => void): SqliteDialectConfig['database'] {
  const cache = new Map<string, DriverStatement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        // Re-inserting keeps the map in least-recently-used order.
        cache.delete(sql);
      } else {
        statement = shapedRows(database.prepare(sql));
        if (written) statement = tellingWrites(statement, written);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
  } as SqliteDialectConfig['database'];
}

/** What Kysely's SQLite driver uses of a statement. */
type DriverStatement = Pick<Statement, 'reader' | 'readonly' | 'all' | 'run' | 'iterate'>;

/** `statement`, calling `written` after each run that could have written. */
function tellingWrites(statement: DriverStatement, written: () => void): DriverStatement {
  const run = ((...params: unknown[]) => {
    const result = statement.run(...params);
    written();
    return result;
  }) as Statement['run'];
  if (statement.readonly) return { reader: statement.reader, readonly: true, all: statement.all.bind(statement), iterate: statement.iterate.bind(statement), run };
  const all = ((...params: unknown[]) => {
    const rows = statement.all(...params);
    written();
    return rows;
  }) as Statement['all'];
  const iterate = function* (...params: unknown[]) {
    yield* statement.iterate(...params);
    written();
  } as Statement['iterate'];
  return { reader: statement.reader, readonly: false, all, iterate, run };
}

/**
 * A statement that returns rows reads them as arrays (better-sqlite3's raw mode) and makes each
 * into an object by a function written for its columns: one object literal, so every row of the
 * statement has the same shape. SQLite prepares a statement again, as it runs, when the schema
 * changed under it (another process migrated the file), and `select *` then has other columns:
 * so after every run that returned rows the schema's version is read (one prepared pragma, far
 * cheaper than asking for the columns, which costs about 0.6 µs a column) and the function is
 * written again when it moved.
 */
export function shapedRows(statement: Statement): DriverStatement {
  if (!statement.reader) return statement;
  statement.raw(true);
  const schemaVersion = schemaVersionOf(statement.database);
  let version: number | undefined;
  let shape: (row: unknown[]) => Record<string, unknown> = () => ({});
  const shaper = () => {
    const now = schemaVersion();
    if (now !== version) {
      version = now;
      shape = rowShape(statement.columns().map((column) => column.name));
    }
    return shape;
  };
  return {
    reader: true,
    readonly: statement.readonly,
    all: ((...params: unknown[]) => {
      const rows = statement.all(...params) as unknown[][];
      return rows.length === 0 ? rows : rows.map(shaper());
    }) as Statement['all'],
    iterate: function* (...params: unknown[]) {
      let make: ((row: unknown[]) => Record<string, unknown>) | undefined;
      for (const row of statement.iterate(...params)) {
        make ??= shaper();
        yield make(row as unknown[]);
      }
    } as Statement['iterate'],
    run: statement.run.bind(statement),
  };
}

const schemaVersions = new WeakMap<SqliteDatabase, () => number>();

/** Reads the database's schema version (bumped by every schema change, in any connection). */
function schemaVersionOf(database: SqliteDatabase): () => number {
  let read = schemaVersions.get(database);
  if (!read) {
    const pragma = database.prepare('pragma schema_version').pluck();
    read = () => pragma.get() as number;
    schemaVersions.set(database, read);
  }
  return read;
}

/**
 * The function that makes a row array into an object with `columns` as keys, the last of a name
 * that appears twice winning as in better-sqlite3's own objects. Written as source (the names
 * are JSON string literals, never code) so that it is one object literal V8 gives a fixed shape.
 * Unlike better-sqlite3, which drops a column named `__proto__`, it keeps it as a property.
 */
function rowShape(columns: readonly string[]): (row: unknown[]) => Record<string, unknown> {
  // A literal `"__proto__": …` would set the prototype instead of a property.
  if (columns.includes('__proto__')) {
    return (row) => Object.fromEntries(columns.map((name, i) => [name, row[i]]));
  }
  return new Function('row', `return { ${columns.map((name, i) => `${JSON.stringify(name)}: row[${i}]`).join(', ')} };`) as (row: unknown[]) => Record<string, unknown>;
}

export class PraxisSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateTransactionSqliteDriver(this.#config);
  }
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
  override createQueryCompiler(): QueryCompiler {
    return new StableLimitSqliteQueryCompiler();
  }
}
