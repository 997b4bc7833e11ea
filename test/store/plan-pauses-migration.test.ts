// Migration 0010 on a database made before it: plans gain their pause columns (an existing plan
// reads back unpaused), the live-plans index is rebuilt to cover the running statuses `waiting`
// and `awaiting_approval`, and the events table's type check takes the pause and status events.
// Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { EVENT_TYPES } from '../../src/core/vocabulary.ts';
import { refreshEventTypeCheck } from '../../src/store/migrations/event-type-check.ts';
import { migrateTo, migrateToLatest } from '../../src/store/migrations/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const NEW_TYPES = ['plan_waiting', 'plan_awaiting_approval', 'plan_paused', 'plan_resumed', 'mind_paused', 'mind_resumed'];
const IDS = {
  mind: '00000000-0000-7000-8000-00000000000a',
  intention: '00000000-0000-7000-8000-00000000000b',
  plan: '00000000-0000-7000-8000-00000000000c',
};

for (const kind of STORE_KINDS) {
  describe(`migration 0010 on an older database (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it('adds the pause beside existing plans, rebuilds the live-plans index and takes the new event types', async () => {
      const { store } = current();
      const db = store.db;
      await migrateTo(db, kind, '0009_event_consumers');
      await refreshEventTypeCheck(
        db,
        kind,
        EVENT_TYPES.filter((t) => !NEW_TYPES.includes(t)),
      );
      const at = '2026-01-01T00:00:00.000Z';
      await sql`insert into minds (id, name, created_at, updated_at) values (${IDS.mind}, 'old-mind', ${at}, ${at})`.execute(db);
      await sql`insert into intentions (id, mind_id, objective, origin, created_at, updated_at) values (${IDS.intention}, ${IDS.mind}, 'old', 'operator', ${at}, ${at})`.execute(db);
      await sql`insert into plans (id, mind_id, intention_id, objective, origin, status, created_at, updated_at) values (${IDS.plan}, ${IDS.mind}, ${IDS.intention}, 'old plan', 'operator', 'executing', ${at}, ${at})`.execute(
        db,
      );
      await assert.rejects(store.events.append({ type: 'plan_paused', data: {} }), /check|constraint/i);

      assert.ok((await migrateToLatest(db, kind)).includes('0010_plan_pauses'));
      const plan = await store.plans.get(IDS.plan);
      assert.deepEqual([plan?.status, plan?.pause], ['executing', null]);
      for (const type of NEW_TYPES) await store.events.append({ type: type as never, mindId: IDS.mind, data: {} });
      const [paused] = await store.plans.pause([IDS.plan], { by: 'alice', reason: 'after the upgrade' });
      assert.equal(paused?.pause?.by, 'alice');

      const definition =
        kind === 'sqlite'
          ? await sql<{ def: string }>`select sql as def from sqlite_master where type = 'index' and name = 'plans_live_idx'`.execute(db)
          : await sql<{ def: string }>`select indexdef as def from pg_indexes where schemaname = current_schema() and indexname = 'plans_live_idx'`.execute(db);
      const text = definition.rows[0]?.def ?? '';
      for (const status of ['validated', 'executing', 'waiting', 'awaiting_approval', 'replanning']) assert.match(text, new RegExp(`'${status}'`), `${status} in the index predicate`);
    });
  });
}
