// The PostgreSQL store's connections run without JIT compilation unless the URL's startup options
// turn it back on. The settling sweep's statement carries a planner estimate far above
// jit_above_cost once a store holds many live plans, and PostgreSQL compiled it on every run
// (about 400 ms for a 16 ms read with 20,000 live plans, bench/run.ts: settle_sweep_ms). Here the
// thresholds are lowered to 0 in a transaction, so that any connection with JIT on compiles the
// statement whatever the store holds, and EXPLAIN ANALYZE says whether it did.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openStore, type Store } from '../../src/store/index.ts';
import { plansToSettleQuery } from '../../src/store/repositories/executor-queries.ts';
import type { Database } from '../../src/store/schema.ts';
import { openTestStore } from '../support/stores.ts';

/** Whether the sweep's statement was JIT-compiled when run on `db`, with every JIT threshold at 0. */
async function sweepCompiled(db: Kysely<Database>): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    for (const threshold of ['jit_above_cost', 'jit_inline_above_cost', 'jit_optimize_above_cost']) await sql`select set_config(${threshold}, '0', true)`.execute(tx);
    const query = plansToSettleQuery(tx, 'postgres', { host: null, limit: 100 }).compile();
    const { rows } = await tx.executeQuery<{ 'QUERY PLAN': [Record<string, unknown>] }>({ ...query, sql: `explain (analyze, format json) ${query.sql}` });
    return 'JIT' in rows[0]!['QUERY PLAN'][0]!;
  });
}

async function jitSetting(store: Store): Promise<{ setting: string; source: string }> {
  const { rows } = await sql<{ setting: string; source: string }>`select setting, source from pg_settings where name = 'jit'`.execute(store.db);
  return rows[0]!;
}

describe('JIT compilation on the PostgreSQL store', () => {
  it('is off on the store’s connections, so the settling sweep is never compiled', { timeout: 30_000 }, async () => {
    const place = await openTestStore('postgres');
    try {
      assert.deepEqual(await jitSetting(place.store), { setting: 'off', source: 'client' });
      assert.equal(await sweepCompiled(place.store.db), false);
    } finally {
      await place.dispose();
    }
  });

  it('stays on where the URL’s startup options turn it on: the operator’s choice wins', { timeout: 30_000 }, async () => {
    const place = await openTestStore('postgres');
    if (place.config.kind !== 'postgres') throw new Error('a PostgreSQL store was asked for');
    const url = new URL(place.config.url);
    url.searchParams.set('options', '-c jit=on');
    const store = await openStore({ ...place.config, url: url.toString() });
    try {
      assert.deepEqual(await jitSetting(store), { setting: 'on', source: 'client' });
      const { rows } = await sql<{ available: boolean }>`select pg_jit_available() as available`.execute(store.db);
      // A server built without LLVM never compiles; where it can, the sweep is compiled here,
      // which is what the store's own setting prevents.
      if (rows[0]!.available) assert.equal(await sweepCompiled(store.db), true);
    } finally {
      await store.close();
      await place.dispose();
    }
  });
});
