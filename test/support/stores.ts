// Both stores for a test suite: a fresh SQLite file in a temporary directory, and a throwaway
// PostgreSQL database created for the suite and dropped after it. The test runner
// (scripts/run-tests.mjs) makes sure a PostgreSQL answers at PRAXIS_TEST_PG_URL, starting a
// private one when none does; a file run without it against no server fails with a message
// saying so. Under the runner, a migrated store is a copy of the run's migrated template
// (PRAXIS_TEST_PG_TEMPLATE, PRAXIS_TEST_SQLITE_TEMPLATE: a database, a file), which costs less
// than running the migrations again (the store still checks them); a PostgreSQL one is named
// with the run's prefix (PRAXIS_TEST_PG_PREFIX) and
// left to the runner, which drops all of them together when the run ends: each DROP DATABASE
// waits for a checkpoint of the whole server (scripts/test-postgres.mjs). Without the runner,
// each store migrates its own database and drops it after its suite. It is never
// skipped, because a behaviour only checked on one store is not checked (see DESIGN.md, "Two
// stores, one behaviour").

import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.ts';
import type { StoreKind } from '../../src/store/codec.ts';
import { redact, type StoreConfig } from '../../src/store/config.ts';
import { openStore, type Store } from '../../src/store/store.ts';

export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** The maintenance database throwaway databases are created from; read on every use. */
export function maintenanceUrl(): string {
  return process.env.PRAXIS_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

export interface TestStore {
  kind: StoreKind;
  store: Store;
  clock: ManualClock;
  /** How to reach the same database again, e.g. from another process or a second Store. */
  config: StoreConfig;
  dispose(): Promise<void>;
}

export interface TestStoreOptions {
  /** Leave the schema empty, for tests of migration itself. */
  migrate?: boolean;
  clock?: ManualClock;
}

export async function openTestStore(kind: StoreKind, options: TestStoreOptions = {}): Promise<TestStore> {
  const clock = options.clock ?? new ManualClock();
  const migrate = options.migrate ?? true;
  const place = kind === 'sqlite' ? temporarySqliteFile(migrate ? migratedSqliteFile() : undefined) : await throwawayPostgresDatabase(migrate ? migratedTemplate() : undefined);
  let store: Store;
  try {
    store = await openStore(place.config, { clock });
    if (migrate) await store.migrate();
  } catch (error) {
    await place.remove();
    throw error;
  }
  return {
    kind,
    store,
    clock,
    config: place.config,
    async dispose() {
      await store.close();
      await place.remove();
    },
  };
}

/**
 * Registers before/after hooks in the enclosing `describe` and returns an accessor for the
 * suite's store; call it inside tests, not at definition time. A store that could not be opened
 * fails every test that asks for it, with the reason, rather than leaving them "cancelled".
 */
export function useStore(kind: StoreKind, options: TestStoreOptions = {}): () => TestStore {
  let current: TestStore | undefined;
  let failure: unknown;
  before(async () => {
    try {
      current = await openTestStore(kind, options);
    } catch (error) {
      failure = error;
    }
  });
  after(async () => {
    await current?.dispose();
  });
  return () => {
    if (failure !== undefined) throw failure;
    if (!current) throw new Error(`the ${kind} test store was not opened`);
    return current;
  };
}

interface Place {
  config: StoreConfig;
  remove(): Promise<void>;
}

/** `template`: a migrated store's file to start from (a copy of it), rather than an empty store. */
function temporarySqliteFile(template: string | undefined): Place {
  const dir = mkdtempSync(join(tmpdir(), 'praxis-store-'));
  const path = join(dir, 'data', 'praxis.db');
  // Without a template, a subdirectory that does not exist yet, which the store creates.
  if (template) {
    mkdirSync(dirname(path));
    copyFileSync(template, path);
  }
  return {
    config: { kind: 'sqlite', path },
    async remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The run's migrated SQLite file to copy (scripts/run-tests.mjs), when the runner made one. */
function migratedSqliteFile(): string | undefined {
  return process.env.PRAXIS_TEST_SQLITE_TEMPLATE || undefined;
}

/** The run's migrated database to copy (scripts/test-postgres.mjs), when the runner made one. */
function migratedTemplate(): string | undefined {
  const name = process.env.PRAXIS_TEST_PG_TEMPLATE;
  if (!name) return undefined;
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`PRAXIS_TEST_PG_TEMPLATE is not a database name: ${JSON.stringify(name)}`);
  return name;
}

/** The runner's prefix for the run's databases, which it drops when the run ends. */
function runPrefix(): string | undefined {
  const prefix = process.env.PRAXIS_TEST_PG_PREFIX;
  if (!prefix) return undefined;
  if (!/^[a-z0-9_]+$/.test(prefix)) throw new Error(`PRAXIS_TEST_PG_PREFIX is not a database name prefix: ${JSON.stringify(prefix)}`);
  return prefix;
}

async function throwawayPostgresDatabase(template: string | undefined): Promise<Place> {
  const prefix = runPrefix();
  const name = `${prefix ?? 'praxis_test_'}${randomBytes(6).toString('hex')}`;
  const maintenance = maintenanceUrl();
  await onMaintenanceDb(maintenance, (client) => client.query(`create database ${name}${template ? ` template ${template}` : ''}`));
  const url = new URL(maintenance);
  url.pathname = `/${name}`;
  return {
    config: { kind: 'postgres', url: url.toString() },
    async remove() {
      // Under the runner, it drops the run's databases together when the run ends.
      if (prefix) return;
      await onMaintenanceDb(maintenance, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function onMaintenanceDb<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    const reason = error instanceof Error ? error.message || error.name : String(error);
    throw new Error(
      `PostgreSQL tests cannot run: no server at ${redact(url)} (${reason}). ` +
        'Run the tests through `node scripts/run-tests.mjs`, which starts a private PostgreSQL when none answers, or point PRAXIS_TEST_PG_URL at one.',
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
