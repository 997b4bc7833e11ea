// Kysely's SQLite driver opens transactions with a plain (deferred) BEGIN. A deferred
// transaction that reads and then writes can fail at once with SQLITE_BUSY when another
// process wrote in between, without waiting on busy_timeout. BEGIN IMMEDIATE takes the write
// lock up front, so concurrent writers queue on busy_timeout instead.

import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';

class ImmediateTransactionSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
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
