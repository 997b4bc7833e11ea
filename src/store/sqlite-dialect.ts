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

import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

class ImmediateTransactionSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Distinct SQL texts kept prepared; beyond it the least recently used is dropped. */
export const PREPARED_STATEMENT_CACHE_SIZE = 512;

/** The `prepare` Kysely calls, answered from a cache of prepared statements by SQL text. */
export function withStatementCache(database: SqliteDatabase, size = PREPARED_STATEMENT_CACHE_SIZE): SqliteDialectConfig['database'] {
  const cache = new Map<string, Statement>();
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
        statement = database.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
  } as SqliteDialectConfig['database'];
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
}
