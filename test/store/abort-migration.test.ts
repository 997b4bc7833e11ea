// Migration 0012 on a database made before it: the events type check takes plan_aborted and
// findings_observed, and a plan stored with abort conditions as bare words (as every plan was
// before they were evaluated) reads back with them as display_only conditions. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { EVENT_TYPES } from '../../src/core/vocabulary.ts';
import { refreshEventTypeCheck } from '../../src/store/migrations/event-type-check.ts';
import { migrateTo, migrateToLatest } from '../../src/store/migrations/index.ts';
import { passingValidation, sampleDraft } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const NEW_TYPES = ['plan_aborted', 'findings_observed'];

for (const kind of STORE_KINDS) {
  describe(`migration 0012 on an older database (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it('takes the new event types; words stored before read back as display_only', async () => {
      const { store } = current();
      const db = store.db;
      await migrateTo(db, kind, '0010_plan_pauses');
      await refreshEventTypeCheck(
        db,
        kind,
        EVENT_TYPES.filter((t) => !NEW_TYPES.includes(t)),
      );
      await assert.rejects(store.events.append({ type: 'plan_aborted', data: {} }), /check|constraint/i);

      // This build's repositories write a step's host (migration 0019, which adds the column only
      // where it is missing): the column is there ahead of its time, so the plan can be written.
      await sql`alter table plan_steps add column host text`.execute(db);
      const mind = await store.minds.create({ name: 'older', host: null });
      const intention = await store.intentions.create({ mindId: mind.id, objective: 'o', origin: 'operator', requireApproval: false, means: null, beliefId: null, authoredBy: 'a' });
      const plan = await store.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft: sampleDraft(), validation: passingValidation(), status: 'validated' });
      // As a plan was stored before abort conditions were evaluated: a list of words.
      await sql`update plans set abort_conditions = ${JSON.stringify(['the disk is full'])} where id = ${plan.id}`.execute(db);

      assert.ok((await migrateToLatest(db, kind)).includes('0012_abort_and_findings'));
      const aborted = await store.events.append({ type: 'plan_aborted', planId: plan.id, data: { because: 'x' } });
      assert.equal(aborted.type, 'plan_aborted');
      await store.events.append({ type: 'findings_observed', data: { summary: 'no findings' } });
      assert.deepEqual((await store.plans.get(plan.id))?.abortConditions, [{ when: 'display_only', statement: 'the disk is full' }]);
    });
  });
}
