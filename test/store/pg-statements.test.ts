// Named prepared statements on PostgreSQL (src/store/pg-statements.ts): each fixed-shape SQL text
// is prepared once per connection and then only bound and executed; texts whose shape follows a
// batch's size run unnamed, and so do texts beyond the limit.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { StatementNames } from '../../src/store/pg-statements.ts';
import type { PostgresStoreConfig } from '../../src/store/config.ts';
import { dueStepQueries } from '../../src/store/repositories/executor-queries.ts';
import { openStore, WARM_CONNECTIONS } from '../../src/store/store.ts';
import { compileOnlyPostgres } from '../support/compile-only.ts';
import { seedPlan } from '../support/fixtures.ts';
import { useStore } from '../support/stores.ts';

describe('statement names', () => {
  it('names a fixed-shape text once and gives it the same name again', () => {
    const names = new StatementNames();
    const byId = 'select * from "minds" where "id" = $1';
    const first = names.nameFor(byId);
    assert.ok(first);
    assert.equal(names.nameFor(byId), first);
    assert.notEqual(names.nameFor('select * from "plans" where "id" = $1'), first);
    assert.equal(names.size, 2);
  });

  it('leaves unnamed a text that comes in one shape per batch size', () => {
    const names = new StatementNames();
    assert.equal(names.nameFor('select * from "plans" where "id" in ($1, $2, $3)'), undefined);
    assert.equal(names.nameFor('insert into "events" ("id", "type") values ($1, $2), ($3, $4)'), undefined);
    // One value in a list, or one row of values, is one shape.
    assert.ok(names.nameFor('select * from "plans" where "id" in ($1)'));
    assert.ok(names.nameFor('insert into "events" ("id", "type") values ($1, $2)'));
  });

  it('never names a text again once its statement went stale, nor gives its name to another', () => {
    const names = new StatementNames();
    const byId = 'select * from "minds" where "id" = $1';
    const first = names.nameFor(byId);
    names.forget(byId);
    assert.equal(names.nameFor(byId), undefined);
    assert.notEqual(names.nameFor('select * from "plans" where "id" = $1'), first);
  });

  it("names each of a pass's due reads, for a daemon bound to a host or to none", () => {
    const names = new StatementNames();
    const db = compileOnlyPostgres();
    for (const host of [null, 'web-1']) {
      const reads = dueStepQueries(db, 'postgres', new Date().toISOString(), { host, limit: 500 });
      for (const [tier, read] of Object.entries(reads)) assert.ok(names.nameFor(read().compile().sql), `the ${tier} read${host ? ' for a host' : ''} is sent named`);
    }
  });

  it('names no more texts than its limit; the rest run unnamed', () => {
    const names = new StatementNames(2);
    assert.ok(names.nameFor('select $1::int'));
    assert.ok(names.nameFor('select $1::text'));
    assert.equal(names.nameFor('select $1::uuid'), undefined);
    assert.ok(names.nameFor('select $1::int'), 'a text named before keeps its name');
  });
});

describe('prepared statements on a PostgreSQL store', () => {
  const current = useStore('postgres');

  it('prepares a read once on its connection and answers it the same way every time', async () => {
    const { store } = current();
    const { mind, plan } = await seedPlan(store);
    // One connection, so what it prepared is in that session's catalogue.
    const prepared = await store.db.connection().execute(async (db) => {
      const byId = () => db.selectFrom('minds').selectAll().where('id', '=', mind.id).executeTakeFirst();
      const reads = [await byId(), await byId(), await byId()];
      assert.deepEqual(reads[2], reads[0]);
      assert.equal(reads[0]?.name, mind.name);
      const two = await db.selectFrom('plans').select('id').where('id', 'in', [plan.id, mind.id]).execute();
      assert.deepEqual(
        two.map((row) => row.id),
        [plan.id],
      );
      await db.transaction().execute((tx) => tx.selectFrom('minds').select('name').where('id', '=', mind.id).execute());
      return (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db)).rows;
    });
    const minds = prepared.filter((p) => p.statement.startsWith('select * from "minds" where "id" = $1'));
    assert.equal(minds.length, 1, 'prepared once for three reads');
    assert.match(minds[0]!.name, /^praxis_\d+$/);
    assert.ok(!prepared.some((p) => /"id" in \(\$1, \$2/.test(p.statement)), 'a read of two ids is not prepared');
    assert.ok(!prepared.some((p) => /^(begin|commit)/i.test(p.statement)), 'a statement without parameters is not prepared');
  });

  it('prepares nothing when the URL said praxis_prepared_statements=off', async () => {
    const { store, config } = current();
    const { mind } = await seedPlan(store);
    const unprepared = await openStore({ ...(config as PostgresStoreConfig), namedStatements: false });
    try {
      const prepared = await unprepared.db.connection().execute(async (db) => {
        assert.equal((await db.selectFrom('minds').select('name').where('id', '=', mind.id).executeTakeFirst())?.name, mind.name);
        return (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db)).rows;
      });
      assert.deepEqual(prepared, []);
    } finally {
      await unprepared.close();
    }
  });

  it('runs a read again unnamed when its table changed under the prepared statement; in a transaction the unit fails once', async () => {
    const { store } = current();
    const { mind } = await seedPlan(store);
    // Another daemon's migration adds a column while this one runs.
    await store.db.connection().execute(async (db) => {
      const byId = () => db.selectFrom('minds').selectAll().where('id', '=', mind.id).executeTakeFirst();
      assert.equal((await byId())?.name, mind.name);
      await sql`alter table minds add column added_by_a_newer_daemon text`.execute(db);
      const again = (await byId()) as Record<string, unknown> | undefined;
      assert.equal(again?.name, mind.name);
      assert.ok(again && 'added_by_a_newer_daemon' in again, 'read unnamed, with the new column');

      const plansOf = (on: typeof db) => on.selectFrom('plans').selectAll().where('mind_id', '=', mind.id).execute();
      assert.equal((await plansOf(db)).length, 1);
      await sql`alter table plans add column added_by_a_newer_daemon text`.execute(db);
      await assert.rejects(
        db.transaction().execute((tx) => plansOf(tx)),
        /cached plan must not change result type/,
      );
      const retried = await db.transaction().execute((tx) => plansOf(tx));
      assert.equal(retried.length, 1, 'the retry of the unit of work runs unnamed');
    });
    assert.equal((await store.minds.get(mind.id))?.name, mind.name, 'the store reads on');
  });
});

describe('connections a PostgreSQL store keeps', () => {
  const current = useStore('postgres');

  it('keeps WARM_CONNECTIONS open through a quiet spell and reads on one of them afterwards', async () => {
    const { store, config } = current();
    const quick = await openStore(config, { idleConnectionMs: 50 });
    try {
      // Four reads at once hold four connections.
      const pidOf = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid from pg_sleep(0.05)`.execute(quick.db)).rows[0]!.pid;
      const opened = new Set(await Promise.all([pidOf(), pidOf(), pidOf(), pidOf()]));
      assert.equal(opened.size, 4);
      // A quiet spell well past the idle timeout: the connections beyond the warm ones close.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const alive = async () => {
        const rows = (await sql<{ pid: number }>`select pid from pg_stat_activity where pid = any(${[...opened]})`.execute(store.db)).rows;
        return new Set(rows.map((row) => row.pid));
      };
      const kept = await alive();
      assert.equal(kept.size, WARM_CONNECTIONS, 'the warm connections are still open');
      const next = await pidOf();
      assert.ok(kept.has(next), 'the next read runs on a connection kept open, not a new one');
    } finally {
      await quick.close();
    }
  });
  it('keeps the due-read connections open through a quiet spell too, at most WARM_CONNECTIONS of them', async () => {
    const { store, config } = current();
    const quick = await openStore(config, { idleConnectionMs: 50 });
    try {
      const pidOf = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid from pg_sleep(0.05)`.execute(quick.dueReadDb)).rows[0]!.pid;
      const opened = new Set(await Promise.all([pidOf(), pidOf(), pidOf()]));
      assert.equal(opened.size, WARM_CONNECTIONS, 'three reads at once share the pool of two');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const names = await sql<{ pid: number; application_name: string }>`select pid, application_name from pg_stat_activity where pid = any(${[...opened]})`.execute(store.db);
      assert.deepEqual(
        names.rows.map((row) => row.application_name),
        Array.from({ length: WARM_CONNECTIONS }, () => 'praxis due reads'),
        'still open past the idle timeout',
      );
    } finally {
      await quick.close();
    }
  });
});
