// Which store a command is about to use, in words, and whether opening it created it. A token
// made in the wrong folder used to go silently into a new ./.praxis/praxis.db there; now the
// command that creates a store says where (and the daemon's banner always says which it uses).

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { redact } from '../store/config.ts';
import { MIGRATION_TABLE } from '../store/migrations/index.ts';
import { openStore, type Store, type StoreConfig, type StoreOptions } from '../store/index.ts';

/** `SQLite file /abs/path.db` or `PostgreSQL postgres://user:***@host/db` (with its schema). */
export function describeStore(config: StoreConfig): string {
  if (config.kind === 'sqlite') return config.path === ':memory:' ? 'SQLite in memory' : `SQLite file ${resolve(config.path)}`;
  return `PostgreSQL ${redact(config.url)}${config.schema ? ` (schema ${config.schema})` : ''}`;
}

/** True when the database holds no Praxis schema yet (never migrated). */
async function holdsNoSchema(config: StoreConfig, store: Store): Promise<boolean> {
  if (config.kind === 'sqlite') return config.path === ':memory:' || !existsSync(config.path);
  const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
  const schema = config.schema ?? 'public';
  return !tables.some((table) => table.name === MIGRATION_TABLE && (table.schema ?? 'public') === schema);
}

/**
 * Opens the store and brings its schema up to date. `created` is true when there was no Praxis
 * store there before (a new SQLite file, or a PostgreSQL database or schema never migrated).
 */
export async function openAndMigrate(config: StoreConfig, options: StoreOptions = {}): Promise<{ store: Store; created: boolean }> {
  // SQLite creates the file when it opens it, so look first.
  const missingFile = config.kind === 'sqlite' && config.path !== ':memory:' && !existsSync(config.path);
  const store = await openStore(config, options);
  try {
    const created = missingFile || (config.kind === 'postgres' && (await holdsNoSchema(config, store)));
    await store.migrate();
    return { store, created };
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}
