// A SQLite table rebuilt from its own stored definition, for a change SQLite cannot make in place
// (the text of a CHECK constraint, the predicate of a partial index): a new table from the
// rewritten definition, every row copied, the old table dropped, the new one renamed, and the
// indexes made again from their stored text (rewritten too where asked). All or nothing, in one
// transaction: a crash between the drop and the rename would otherwise leave only
// `<table>_rebuilt`.
//
// Foreign keys must be off for the rebuild, since dropping a table other tables refer to deletes
// its rows first and would trip their references: switched off here when the caller is not in a
// transaction already (SQLite ignores the pragma inside one); the migrator switches them off
// around each migration's transaction (migrations/index.ts). `foreign_key_check` then proves,
// before the commit, that every reference from the table and into it still holds.

import { sql, type Kysely } from 'kysely';

export interface Rebuild {
  table: string;
  /** The table's `create table` text as SQLite stores it, rewritten; must change nothing but constraints. */
  definition(stored: string): string;
  /** An index's `create index` text, rewritten; by default kept as it is. */
  index?(name: string, stored: string): string;
}

export async function rebuildSqliteTable(db: Kysely<any>, rebuild: Rebuild): Promise<void> {
  const { table } = rebuild;
  const stored = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  const definition = stored.rows[0]?.sql;
  if (!definition) throw new Error(`there is no table ${table} to rebuild`);
  const head = new RegExp(`^create table "?${table}"?`, 'i');
  if (!head.test(definition)) throw new Error(`the stored definition of ${table} does not begin as expected`);
  const rebuilt = rebuild.definition(definition).replace(head, `create table "${table}_rebuilt"`);
  const indexes = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
  const run = async (tx: Kysely<any>) => {
    await sql.raw(rebuilt).execute(tx);
    await sql`insert into ${sql.table(`${table}_rebuilt`)} select * from ${sql.table(table)}`.execute(tx);
    await sql`drop table ${sql.table(table)}`.execute(tx);
    await sql`alter table ${sql.table(`${table}_rebuilt`)} rename to ${sql.table(table)}`.execute(tx);
    for (const index of indexes.rows) await sql.raw(rebuild.index?.(index.name, index.sql) ?? index.sql).execute(tx);
    // The references the rebuild could have touched: the table's own, and those into it from its
    // children (only those, so that an unrelated table's state cannot fail a rebuild).
    const children = await sql<{ name: string }>`select distinct m.name from sqlite_master m, pragma_foreign_key_list(m.name) f where m.type = 'table' and f."table" = ${table}`.execute(tx);
    for (const checked of new Set([table, ...children.rows.map((r) => r.name)])) {
      const broken = (await sql<{ table: string; parent: string }>`select * from pragma_foreign_key_check(${checked})`.execute(tx)).rows.filter((r) => r.table === table || r.parent === table);
      if (broken.length > 0) throw new Error(`rebuilding ${table} would break ${broken.length} references from ${checked}`);
    }
  };
  if (db.isTransaction) {
    await run(db);
    return;
  }
  const enforced = (await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]?.foreign_keys === 1;
  if (enforced) await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(run);
  } finally {
    if (enforced) await sql`pragma foreign_keys = on`.execute(db);
  }
}
