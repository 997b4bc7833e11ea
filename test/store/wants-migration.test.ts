// Migration 0008 on a database made before it: the wants table appears, and the events table's
// type check (built by 0001 from the vocabulary of its day) is rebuilt to take the new event
// types, keeping its rows, sequence and indexes. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { EVENT_TYPES } from '../../src/core/vocabulary.ts';
import { refreshEventTypeCheck } from '../../src/store/migrations/event-type-check.ts';
import { migrateTo, migrateToLatest } from '../../src/store/migrations/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const NEW_TYPES = ['mind_forked', 'mind_imported', 'want_recorded', 'want_suppressed'];

for (const kind of STORE_KINDS) {
  describe(`migration 0008 on an older database (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it('rebuilds the events type check to take the new types, keeping rows, sequence and indexes', async () => {
      const { store } = current();
      const db = store.db;
      await migrateTo(db, kind, '0006_claimant');
      // The check as a database created before 0008 had it.
      await refreshEventTypeCheck(
        db,
        kind,
        EVENT_TYPES.filter((t) => !NEW_TYPES.includes(t)),
      );
      const before = await store.events.append({ type: 'operator_note', data: { note: 'kept' } });
      await assert.rejects(store.events.append({ type: 'mind_forked', data: {} }), /check|constraint/i);

      // 0007 and any later migration run too; 0008 is the one that matters here.
      assert.ok((await migrateToLatest(db, kind)).includes('0008_wants'));
      const forked = await store.events.append({ type: 'mind_forked', data: { from: 'a' } });
      assert.ok(Number(forked.seq) > Number(before.seq), 'the sequence continues');
      assert.deepEqual((await store.events.get(before.id))?.data, { note: 'kept' });
      await assert.rejects(
        sql`insert into events (id, type, data, created_at) values (${'00000000-0000-7000-8000-000000000001'}, 'no_such_type', '{}', '2026-01-01T00:00:00Z')`.execute(db),
        /check|constraint/i,
      );
      const indexes =
        kind === 'sqlite'
          ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'events'`.execute(db)
          : await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'events'`.execute(db);
      const names = indexes.rows.map((r) => r.name);
      for (const name of ['events_mind_idx', 'events_plan_idx', 'events_intention_idx']) assert.ok(names.includes(name), `${name} kept`);
      const wants = await sql<{ n: number }>`select count(*) as n from wants`.execute(db);
      assert.equal(Number(wants.rows[0]!.n), 0);
    });
  });
}
