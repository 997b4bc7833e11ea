// Throwaway stores for the benchmark: an SQLite file in a temporary directory and a PostgreSQL
// database created for the run (from PRAXIS_TEST_PG_URL, default the local server) and dropped.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type Store, type StoreConfig, type StoreKind, type StoreOptions } from '../src/store/index.ts';

export interface BenchStore {
  store: Store;
  config: StoreConfig;
  dispose(): Promise<void>;
}

const maintenance = () => process.env.PRAXIS_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function onMaintenance(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: maintenance() });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

export async function benchStore(kind: StoreKind, options: StoreOptions = {}): Promise<BenchStore> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'praxis-bench-'));
    const config: StoreConfig = { kind: 'sqlite', path: join(dir, 'bench.db') };
    // Checkpoints in the background, as the daemon opens its store (serve.ts).
    const store = await openStore(config, { backgroundCheckpoints: true, ...options });
    await store.migrate();
    return {
      store,
      config,
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `praxis_bench_${randomBytes(5).toString('hex')}`;
  await onMaintenance((client) => client.query(`create database ${name}`));
  const url = new URL(maintenance());
  url.pathname = `/${name}`;
  const config: StoreConfig = { kind: 'postgres', url: url.toString() };
  const store = await openStore(config, options);
  await store.migrate();
  return {
    store,
    config,
    async dispose() {
      await store.close();
      await onMaintenance((client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}
