// The events table's type check, brought up to the event vocabulary in src/core. 0001 builds the
// check from the vocabulary of the code that runs it, so a database created later already has
// every type; one created before a type was added refuses it until its check is rebuilt. A
// migration that adds event types calls this. PostgreSQL replaces the constraint by name; SQLite
// cannot alter a constraint, so the table is rebuilt from its own stored definition with the new
// check (same columns, rows, sequence and indexes: sqlite-rebuild.ts). The check is a chain of
// equalities (equalsOneOf, and migration 0013 for why): an older database's `type in (...)` is
// replaced by it the first time the check is refreshed.

import { sql, type Kysely } from 'kysely';
import { STORED_EVENT_TYPES } from '../call-rows.ts';
import type { StoreKind } from '../codec.ts';
import { equalsOneOf } from '../vocabulary-sql.ts';
import { rebuildSqliteTable } from './sqlite-rebuild.ts';

/** The type check as SQLite stores it: a list (as 0001 writes it, and every refresh before 0013) or a chain of equalities. */
const SQLITE_CHECK = /constraint "events_type_check" check \((?:"type" in \([^)]*\)|\("type" = '[a-z0-9_]+'(?: or "type" = '[a-z0-9_]+')*\))\)/;

/**
 * `types` is the vocabulary to check against: the current one with the call rows' types
 * (call-rows.ts), unless a test needs an older one.
 */
export async function refreshEventTypeCheck(db: Kysely<any>, kind: StoreKind, types: readonly string[] = STORED_EVENT_TYPES): Promise<void> {
  const check = equalsOneOf('type', types);
  if (kind === 'postgres') {
    await sql`alter table events drop constraint events_type_check`.execute(db);
    await sql`alter table events add constraint events_type_check check (${check})`.execute(db);
    return;
  }
  const compiled = check.compile(db).sql;
  await rebuildSqliteTable(db, {
    table: 'events',
    definition(stored) {
      if (!SQLITE_CHECK.test(stored)) throw new Error('the events table has no type check of the expected form to rebuild');
      return stored.replace(SQLITE_CHECK, `constraint "events_type_check" check (${compiled})`);
    },
  });
}
