// The executor's tables after migration 0016: on SQLite their CHECK constraints and the due
// index's predicate are chains of equalities, which SQLite tests without building a lookup table
// for every row a pass writes; the database still refuses what it always refused (both stores);
// and an older SQLite database is rebuilt to them without losing a row, a reference or an index,
// or not at all.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { migrateTo } from '../../src/store/migrations/index.ts';
import { listsAsEqualities } from '../../src/store/migrations/0016_step_check_equalities.ts';
import { rebuildSqliteTable } from '../../src/store/migrations/sqlite-rebuild.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const AT = '2026-01-01T00:00:00.000Z';
const IDS = {
  mind: '00000000-0000-7000-8000-00000000001a',
  intention: '00000000-0000-7000-8000-00000000001b',
  plan: '00000000-0000-7000-8000-00000000001c',
  step: '00000000-0000-7000-8000-00000000001d',
  second: '00000000-0000-7000-8000-00000000001e',
  execution: '00000000-0000-7000-8000-00000000001f',
};
const TABLES = ['plan_steps', 'plans', 'intentions', 'tool_executions'];

/** A mind with an intention, a running plan of two steps (one ready, one pending) and an execution, written as rows. */
async function writeWork(db: Kysely<any>): Promise<void> {
  await sql`insert into minds (id, name, created_at, updated_at) values (${IDS.mind}, 'checks', ${AT}, ${AT})`.execute(db);
  await sql`insert into intentions (id, mind_id, objective, origin, created_at, updated_at) values (${IDS.intention}, ${IDS.mind}, 'keep it up', 'operator', ${AT}, ${AT})`.execute(db);
  await sql`insert into plans (id, mind_id, intention_id, objective, origin, status, created_at, updated_at) values (${IDS.plan}, ${IDS.mind}, ${IDS.intention}, 'keep it up', 'operator', 'executing', ${AT}, ${AT})`.execute(
    db,
  );
  await sql`insert into plan_steps (id, plan_id, mind_id, key, position, title, kind, status, created_at, updated_at) values (${IDS.step}, ${IDS.plan}, ${IDS.mind}, 'A', 0, 'look', 'capability', 'ready', ${AT}, ${AT})`.execute(
    db,
  );
  await sql`insert into plan_steps (id, plan_id, mind_id, key, position, title, kind, created_at, updated_at) values (${IDS.second}, ${IDS.plan}, ${IDS.mind}, 'B', 1, 'look again', 'verify', ${AT}, ${AT})`.execute(
    db,
  );
  await sql`insert into tool_executions (id, mind_id, capability, origin, status, started_at, created_at) values (${IDS.execution}, ${IDS.mind}, 'service.status', ${`plan_step:${IDS.step}`}, 'succeeded', ${AT}, ${AT})`.execute(
    db,
  );
}

/** Every row of the executor's tables, in a stable order. */
async function rowsOf(db: Kysely<any>): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) rows[table] = (await sql`select * from ${sql.table(table)} order by id`.execute(db)).rows;
  return rows;
}

/** The text SQLite holds for the executor's tables and their indexes. */
async function definitions(db: Kysely<any>): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where tbl_name in ('plan_steps', 'plans', 'intentions', 'tool_executions') and sql is not null`.execute(
    db,
  );
  return new Map(rows.map((r) => [r.name, r.sql]));
}

for (const kind of STORE_KINDS) {
  describe(`the executor's tables refuse what is outside their vocabularies (${kind})`, () => {
    const current = useStore(kind);

    it('refuses a step status or kind, a plan status or origin, an intention status or reason, an execution status', async () => {
      const { db } = current().store;
      await writeWork(db);
      const refused: [string, ReturnType<typeof sql>, RegExp][] = [
        ['step status', sql`update plan_steps set status = 'exploded' where id = ${IDS.step}`, /plan_steps_status_check/],
        ['step status in other case', sql`update plan_steps set status = 'READY' where id = ${IDS.step}`, /plan_steps_status_check/],
        ['step kind', sql`update plan_steps set kind = 'teleport' where id = ${IDS.step}`, /plan_steps_kind_check/],
        ['plan status', sql`update plans set status = 'done' where id = ${IDS.plan}`, /plans_status_check/],
        ['plan origin', sql`update plans set origin = 'rumour' where id = ${IDS.plan}`, /plans_origin_check/],
        ['intention status', sql`update intentions set status = 'forgotten' where id = ${IDS.intention}`, /intentions_status_check/],
        ['intention reason', sql`update intentions set reason = 'bored' where id = ${IDS.intention}`, /intentions_reason_check/],
        ['execution status', sql`update tool_executions set status = 'maybe' where id = ${IDS.execution}`, /tool_executions_status_check/],
      ];
      for (const [what, statement, check] of refused) await assert.rejects(statement.execute(db), check, `a ${what} was taken`);
      // And still takes every value it took: a step through each of its statuses.
      for (const status of ['pending', 'ready', 'executing', 'awaiting_approval', 'awaiting_grant', 'waiting', 'completed', 'failed', 'skipped', 'blocked', 'cancelled']) {
        await sql`update plan_steps set status = ${status} where id = ${IDS.step}`.execute(db);
      }
    });
  });
}

describe('writes of a pass on SQLite (sqlite)', () => {
  const current = useStore('sqlite');

  it('build no lookup table for a row they test', async () => {
    // An IN list in a CHECK or a partial index's predicate is compiled into the write loop as a
    // temporary table filled anew for every row it tests (OpenEphemeral); the equalities need none.
    const { db } = current().store;
    const writes = [
      sql`update plan_steps set status = 'ready', updated_at = 'now' where id = 'a' and status = 'pending'`,
      sql`update plan_steps set status = 'completed', status_reason = 'done', updated_at = 'now' where id = 'a' and status = 'ready'`,
      sql`insert into tool_executions (id, mind_id, capability, origin, status, started_at) values ('e', 'm', 'c', 'o', 'succeeded', 'now')`,
      sql`update plans set status = 'completed', updated_at = 'now' where id = 'p'`,
      sql`update intentions set status = 'fulfilled', reason = 'completed', updated_at = 'now' where id = 'i'`,
    ];
    for (const write of writes) {
      const { rows } = await sql<{ opcode: string }>`explain ${write}`.execute(db);
      assert.ok(rows.some((row) => row.opcode === 'Insert'));
      assert.deepEqual(
        rows.filter((row) => row.opcode === 'OpenEphemeral'),
        [],
        `${write.compile(db).sql} builds a lookup table`,
      );
    }
  });
});

describe('migration 0016 on an older database (sqlite)', () => {
  const current = useStore('sqlite', { migrate: false });

  it("rewrites the executor tables' lists as equalities, keeping every row, reference and index", async () => {
    const { store } = current();
    const db = store.db;
    await migrateTo(db, 'sqlite', '0015_event_indexes_partial');
    await writeWork(db);
    const before = await definitions(db);
    assert.match(before.get('plan_steps') ?? '', /"status" in \('pending'/);
    const rows = await rowsOf(db);

    await migrateTo(db, 'sqlite', '0016_step_check_equalities');
    const after = await definitions(db);
    assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'the same tables and indexes');
    for (const [name, text] of after) {
      assert.equal(text, listsAsEqualities(before.get(name)!), name);
    }
    assert.match(after.get('plan_steps_due_idx') ?? '', /where \("status" = 'ready' or "status" = 'executing' or/);
    assert.match(after.get('plans_live_idx') ?? '', /where \("status" = 'validated' or "status" = 'executing' or/);
    assert.deepEqual(await rowsOf(db), rows);
    assert.equal((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]?.foreign_keys, 1);
    assert.deepEqual((await sql`pragma foreign_key_check`.execute(db)).rows, []);
    assert.deepEqual((await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db)).rows, [{ integrity_check: 'ok' }]);
    // References into the rebuilt tables still hold: a step of a plan that does not exist is refused.
    await assert.rejects(
      sql`insert into plan_steps (id, plan_id, mind_id, key, position, title, kind) values ('x', 'no-such-plan', ${IDS.mind}, 'X', 2, 'x', 'capability')`.execute(db),
      /FOREIGN KEY/,
    );
    // The store reads and moves the old rows as before.
    const plan = await store.plans.get(IDS.plan);
    assert.deepEqual(
      plan?.steps.map((s) => [s.key, s.status]),
      [
        ['A', 'ready'],
        ['B', 'pending'],
      ],
    );
    assert.ok(await store.steps.move('complete', IDS.step, 'ready', { statusReason: 'looked' }));
  });
});

describe('rebuilding a SQLite table (sqlite)', () => {
  const current = useStore('sqlite');

  it('leaves a table as it was when its rebuild fails, with foreign keys enforced again', async () => {
    const { store } = current();
    const db = store.db;
    await writeWork(db);
    const before = await definitions(db);
    const rows = await rowsOf(db);
    // A definition that refuses a row the table holds: the copy fails half-way through the rebuild.
    await assert.rejects(rebuildSqliteTable(db, { table: 'plans', definition: (stored) => stored.replace(/"status" = 'executing' or /, '') }), /plans_status_check/);
    assert.deepEqual(await definitions(db), before);
    assert.deepEqual(await rowsOf(db), rows);
    const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name like 'plans%'`.execute(db);
    assert.deepEqual(
      tables.rows.map((r) => r.name),
      ['plans'],
    );
    assert.equal((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]?.foreign_keys, 1);
  });
});

describe('rebuilding a SQLite table checks the references it could have touched (sqlite)', () => {
  const current = useStore('sqlite');

  it('refuses to leave a reference into the table broken, and ignores the ones it cannot touch', async () => {
    const { db } = current().store;
    await writeWork(db);
    // A step whose plan is gone, as only a store written with its foreign keys off could hold.
    await sql`pragma foreign_keys = off`.execute(db);
    await sql`insert into plan_steps (id, plan_id, mind_id, key, position, title, kind) values ('orphan', 'no-such-plan', ${IDS.mind}, 'X', 9, 'orphan', 'capability')`.execute(db);
    await sql`pragma foreign_keys = on`.execute(db);
    const before = await definitions(db);
    await assert.rejects(rebuildSqliteTable(db, { table: 'plans', definition: listsAsEqualities }), /would break 1 references from plan_steps/);
    assert.deepEqual(await definitions(db), before, 'plans as it was');
    // tool_executions neither refers to plan_steps nor is referred to by it: its rebuild goes on.
    await rebuildSqliteTable(db, { table: 'tool_executions', definition: listsAsEqualities });
    assert.deepEqual((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows, [{ foreign_keys: 1 }]);
  });
});
