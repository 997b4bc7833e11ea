// The events table's type check as migration 0013 leaves it: a chain of equalities that the
// database itself enforces for every event type and no other, that SQLite evaluates without
// building a lookup table for each row, and that replaces the `type in (...)` list of a database
// made before it without losing a row. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { EVENT_TYPES } from '../../src/core/vocabulary.ts';
import type { StoreKind } from '../../src/store/index.ts';
import { refreshEventTypeCheck } from '../../src/store/migrations/event-type-check.ts';
import { migrateTo, migrateToLatest } from '../../src/store/migrations/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

/** The check's definition as the database holds it. */
async function typeCheck(db: Kysely<any>, kind: StoreKind): Promise<string> {
  if (kind === 'sqlite') {
    const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'events'`.execute(db);
    return rows[0]?.sql.match(/constraint "events_type_check" check .*$/s)?.[0] ?? '';
  }
  const { rows } = await sql<{ def: string }>`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'events_type_check'`.execute(db);
  return rows[0]?.def ?? '';
}

function insertEvent(db: Kysely<any>, type: string) {
  return db.insertInto('events').values({ id: newId(), type, data: '{}', created_at: new Date().toISOString() }).execute();
}

for (const kind of STORE_KINDS) {
  describe(`the events type check (${kind})`, () => {
    const current = useStore(kind);

    it('takes every event type and refuses any other, in the database itself', async () => {
      const { db } = current().store;
      for (const type of EVENT_TYPES) await insertEvent(db, type);
      for (const type of ['plan_exploded', 'PLAN_STARTED', 'plan_started ', '']) {
        await assert.rejects(insertEvent(db, type), /events_type_check/, `${JSON.stringify(type)} was taken`);
      }
    });

    it('is a chain of equalities, not a list', async () => {
      const check = await typeCheck(current().store.db, kind);
      assert.match(check, /intention_formed/);
      assert.doesNotMatch(check, kind === 'sqlite' ? /"type" in \(/ : /ANY \(ARRAY/);
    });

    if (kind === 'sqlite') {
      it('builds no lookup table for each row it inserts', async () => {
        // An IN list inside a CHECK is compiled into the insert loop as a temporary table filled
        // anew for every row (OpenEphemeral), which cost 4.2 µs a row; the equalities need none.
        const { rows } = await sql<{ opcode: string }>`explain insert into events (id, type, data, created_at) values ('a', 'plan_started', '{}', 'now'), ('b', 'plan_started', '{}', 'now')`.execute(
          current().store.db,
        );
        assert.ok(rows.some((row) => row.opcode === 'Insert'));
        assert.deepEqual(
          rows.filter((row) => row.opcode === 'OpenEphemeral'),
          [],
        );
      });

      it('rebuilds the table all or nothing', async () => {
        // A refresh that cannot copy the log (an event of a type the new check refuses) fails
        // half-way; nothing of it may stay, or no later refresh would find the table it expects.
        const { store } = current();
        const db = store.db;
        await store.events.append({ type: 'findings_observed', data: {} });
        const before = await typeCheck(db, kind);
        const count = async () =>
          Number(
            (
              await db
                .selectFrom('events')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const rows = await count();
        await assert.rejects(
          refreshEventTypeCheck(
            db,
            kind,
            EVENT_TYPES.filter((t) => t !== 'findings_observed'),
          ),
          /events_type_check/,
        );
        const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name like 'events%'`.execute(db);
        assert.deepEqual(
          tables.rows.map((r) => r.name),
          ['events'],
        );
        assert.equal(await typeCheck(db, kind), before);
        assert.equal(await count(), rows);
        await refreshEventTypeCheck(db, kind);
        assert.equal(await count(), rows);
      });
    }
  });

  describe(`migration 0013 on an older database (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it("replaces the list with the equalities, keeping the log's rows and seqs", async () => {
      const { store } = current();
      const db = store.db;
      // 0001 writes the check as a list; every later refresh of it now writes the equalities.
      await migrateTo(db, kind, '0001_initial');
      assert.match(await typeCheck(db, kind), kind === 'sqlite' ? /"type" in \(/ : /ANY \(ARRAY/);
      await insertEvent(db, 'plan_started');
      await insertEvent(db, 'tool_executed');
      const before = await db.selectFrom('events').select(['seq', 'id', 'type']).orderBy('seq').execute();

      assert.ok((await migrateToLatest(db, kind)).includes('0013_event_type_equalities'));
      assert.doesNotMatch(await typeCheck(db, kind), kind === 'sqlite' ? /"type" in \(/ : /ANY \(ARRAY/);
      assert.deepEqual(await db.selectFrom('events').select(['seq', 'id', 'type']).orderBy('seq').execute(), before);
      await assert.rejects(insertEvent(db, 'plan_exploded'), /events_type_check/);
      const next = await store.events.append({ type: 'plan_aborted', data: {} });
      assert.ok(next.seq > Number(before.at(-1)!.seq));
    });
  });
}
