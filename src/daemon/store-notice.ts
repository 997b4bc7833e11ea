// Which store a command is about to use, in words, and whether opening it created it. A token
// made in the wrong folder used to go silently into a new ./.praxis/praxis.db there; now the
// command that creates a store says where (and the daemon's banner always says which it uses).

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../core/errors.ts';
import { redact } from '../store/config.ts';
import { FIRST_MIGRATION, holdsPraxisStore } from '../store/migrations/index.ts';
import { openStore, resolveStoreConfig, sqliteFileHoldsPraxisStore, type Store, type StoreConfig, type StoreOptions } from '../store/index.ts';

/** `SQLite file /abs/path.db` or `PostgreSQL postgres://user:***@host/db` (with its schema). */
export function describeStore(config: StoreConfig): string {
  if (config.kind === 'sqlite') return config.path === ':memory:' ? 'SQLite in memory' : `SQLite file ${resolve(config.path)}`;
  return `PostgreSQL ${redact(config.url)}${config.schema ? ` (schema ${config.schema})` : ''}`;
}

/**
 * Opens the store and brings its schema up to date. `created` is true when there was no Praxis
 * store there before (a new SQLite file, or a PostgreSQL database or schema never migrated);
 * `applied` names the migrations this call applied, and `seconds` is how long they took (an
 * upgrade may rebuild tables: migration 0016 copies four of them on SQLite). With `mustHold`, a
 * place with no Praxis store (no SQLite file, an empty one, or a database or schema without the
 * migration table) is refused `no_store` with nothing written there.
 */
export async function openAndMigrate(config: StoreConfig, options: StoreOptions & { mustHold?: boolean } = {}): Promise<{ store: Store; created: boolean; applied: string[]; seconds: number }> {
  const { mustHold, ...storeOptions } = options;
  // SQLite: asked before the file is opened as a store, which would create it, or set WAL mode on it.
  if (mustHold && config.kind === 'sqlite' && config.path !== ':memory:' && (!existsSync(config.path) || sqliteFileHoldsPraxisStore(config.path) === false)) throw noStore(config);
  const store = await openStore(config, storeOptions);
  try {
    if (mustHold && !(await holdsPraxisStore(store.db, config.kind === 'postgres' ? config.schema : undefined))) throw noStore(config);
    // The first migration was applied just now: there was no Praxis store there (a new or empty
    // SQLite file, a database or schema never migrated). An in-memory store is never announced.
    const started = performance.now();
    const applied = await store.migrate();
    const created = applied.includes(FIRST_MIGRATION) && !(config.kind === 'sqlite' && config.path === ':memory:');
    return { store, created, applied, seconds: Math.round(performance.now() - started) / 1000 };
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

function noStore(config: StoreConfig): InputError {
  return new InputError([
    {
      code: 'no_store',
      path: 'db',
      message: `there is no Praxis store at ${describeStore(config)}; check --db, PRAXIS_DB and PRAXIS_DATABASE_URL (praxis serve, token create, mind create and mind import create one)`,
    },
  ]);
}

/**
 * Opens the configured store (`db`: a path or URL, else the environment's, else
 * ./.praxis/praxis.db) and migrates it, for a command that needs the store alone: it loads
 * none of the capability and planning modules openLocalServices (local.ts) composes. `created`
 * names the store when this call created it. Without `create`, a place that holds no Praxis store
 * (no SQLite file, a PostgreSQL database or schema never migrated) is refused `no_store` and
 * left as it was: a command that only finds records (a list, an approval, a release) made an
 * empty store, and its directories, wherever a mistyped --db pointed, and answered from it.
 */
export async function openLocalStore(db: string | undefined, options: { create?: boolean } = {}): Promise<{ store: Store; config: StoreConfig; created: string | null }> {
  const config = resolveStoreConfig({ db });
  const { store, created } = await openAndMigrate(config, { mustHold: !options.create });
  return { store, config, created: created ? describeStore(config) : null };
}
