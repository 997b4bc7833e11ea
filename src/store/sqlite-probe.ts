// Whether a SQLite file holds a Praxis store, asked without changing it: opened read-only, its
// schema read, closed. Opening it as a store would not do: that sets WAL mode and the other
// pragmas on whatever file it is (another program's database named by a mistyped --db was
// turned to WAL for good by a command that then refused it).

import BetterSqlite3 from 'better-sqlite3';
import { MIGRATION_TABLE } from './migrations/index.ts';

/**
 * True or false when the file could be read; undefined when it could not be opened read-only
 * (a WAL database whose shared-memory file is missing in a directory this user cannot write),
 * which only opening it as a store can tell.
 */
export function sqliteFileHoldsPraxisStore(path: string): boolean | undefined {
  let database: BetterSqlite3.Database | undefined;
  try {
    database = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    return database.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(MIGRATION_TABLE) !== undefined;
  } catch {
    return undefined;
  } finally {
    database?.close();
  }
}
