// A capability call's decision, authorisation and outcome, appended together, are stored on SQLite
// as one call row (src/store/call-rows.ts) and read back as the three events they were: each with
// a seq and an id of its own, found by type, by id and by any cursor, pages ending anywhere. On
// PostgreSQL they stay three rows, read the same way. Both stores, and an executor's steps.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import type { EventRecord, NewEvent } from '../../src/store/repositories/events.ts';
import { EVENT_TYPES } from '../../src/core/vocabulary.ts';
import { refreshEventTypeCheck } from '../../src/store/migrations/event-type-check.ts';
import { migrateTo, migrateToLatest } from '../../src/store/migrations/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep } from '../execution/support.ts';

function callOf(mindId: string, intentionId: string, origin: string, outcome: 'tool_executed' | 'tool_failed' = 'tool_executed'): NewEvent[] {
  const common = { mindId, intentionId };
  return [
    { ...common, type: 'policy_decision', data: { origin, capability: 'service.status', target: 'nginx', decision: 'allow', source: 'default', reason: 'reads are allowed' } },
    { ...common, type: 'tool_authorised', data: { origin, capability: 'service.status', target: 'nginx', source: 'default', grant_id: null } },
    { ...common, id: newId(), type: outcome, data: { origin, capability: 'service.status', target: 'nginx', execution_id: newId(), summary: 'nginx is active' } },
  ];
}

/** The types of one mind's rows as stored, oldest first. */
async function storedTypes(db: Kysely<any>, mindId: string): Promise<string[]> {
  const { rows } = await sql<{ type: string }>`select type from events where mind_id = ${mindId} order by seq`.execute(db);
  return rows.map((row) => row.type);
}

/** Every event of the log, read `limit` at a time from oldest to newest. */
async function pagedForward(list: (afterSeq: number | undefined) => Promise<EventRecord[]>): Promise<EventRecord[]> {
  const all: EventRecord[] = [];
  for (let afterSeq: number | undefined; ; ) {
    const page = await list(afterSeq);
    if (page.length === 0) return all;
    all.push(...page);
    afterSeq = page.at(-1)!.seq;
  }
}

for (const kind of STORE_KINDS) {
  describe(`a capability call's events in the log (${kind})`, () => {
    const current = useStore(kind);

    it('are stored as one row on SQLite, three on PostgreSQL, and read back as the three events in order', async () => {
      const { store } = current();
      const mind = newId();
      const intention = newId();
      const call = callOf(mind, intention, 'plan_step:s1');
      await store.transaction(async (tx) => {
        await tx.events.appendMany([...call, { type: 'plan_step_completed', mindId: mind, intentionId: intention, planId: newId(), data: { step_key: 'A' } }]);
      });
      assert.deepEqual(
        await storedTypes(store.db, mind),
        kind === 'sqlite' ? ['tool_call_executed', 'plan_step_completed'] : ['policy_decision', 'tool_authorised', 'tool_executed', 'plan_step_completed'],
      );
      const events = await store.events.list();
      assert.deepEqual(
        events.map((e) => e.type),
        ['policy_decision', 'tool_authorised', 'tool_executed', 'plan_step_completed'],
      );
      const first = events[0]!.seq;
      assert.deepEqual(
        events.map((e) => e.seq),
        [first, first + 1, first + 2, first + 3],
        'one seq an event, none skipped',
      );
      assert.equal(new Set(events.map((e) => e.id)).size, 4, 'one id an event');
      assert.equal(events[2]!.id, call[2]!.id, 'the outcome keeps the id its writer chose (a prediction cites it)');
      for (const [i, event] of events.slice(0, 3).entries()) {
        assert.deepEqual(event.data, call[i]!.data);
        assert.equal(event.mindId, mind);
        assert.equal(event.intentionId, intention);
        assert.equal(event.planId, null);
      }
      for (const event of events) assert.deepEqual(await store.events.get(event.id), event, `found by its id: ${event.type}`);
      assert.equal(await store.events.get(newId()), undefined);
      assert.equal(await store.events.latestSeq(), first + 3);
      assert.deepEqual(await store.events.seqsAfter(first, 10), [first + 1, first + 2, first + 3]);
      // The next event takes the next seq, whichever way it is written.
      const next = await store.events.append({ type: 'plan_started', planId: newId() });
      assert.equal(next.seq, first + 4);
    });

    it('are found by type, cursor and limit exactly as separate events would be, pages ending anywhere', async () => {
      const { store } = current();
      const mind = newId();
      const intention = newId();
      await store.transaction(async (tx) => {
        for (let i = 0; i < 5; i += 1) {
          await tx.events.appendMany([...callOf(mind, intention, `plan_step:${i}`, i === 3 ? 'tool_failed' : 'tool_executed'), { type: 'plan_step_completed', mindId: mind, intentionId: intention }]);
        }
      });
      const all = await store.events.list({ mindId: mind, limit: 1000 });
      assert.equal(all.length, 20);
      for (let i = 1; i < all.length; i += 1) assert.equal(all[i]!.seq, all[i - 1]!.seq + 1);
      for (const limit of [1, 2, 3, 4, 7]) {
        const forward = await pagedForward((afterSeq) => store.events.list({ intentionId: intention, limit, ...(afterSeq !== undefined ? { afterSeq } : {}) }));
        assert.deepEqual(
          forward.map((e) => e.seq),
          all.map((e) => e.seq),
          `pages of ${limit}`,
        );
        const backward: EventRecord[] = [];
        for (let beforeSeq: number | undefined; ; ) {
          const page = await store.events.list({ mindId: mind, newestFirst: true, limit, ...(beforeSeq !== undefined ? { beforeSeq } : {}) });
          if (page.length === 0) break;
          backward.push(...page);
          beforeSeq = page.at(-1)!.seq;
        }
        assert.deepEqual(
          backward.map((e) => e.seq),
          all.map((e) => e.seq).reverse(),
          `newest first, pages of ${limit}`,
        );
      }
      for (const types of [['tool_authorised'], ['tool_failed'], ['policy_decision', 'tool_executed'], ['plan_step_completed', 'tool_authorised']] as const) {
        const expected = all.filter((e) => (types as readonly string[]).includes(e.type));
        assert.deepEqual(await store.events.list({ mindId: mind, types, limit: 1000 }), expected, types.join());
        const paged = await pagedForward((afterSeq) => store.events.list({ mindId: mind, types, limit: 2, ...(afterSeq !== undefined ? { afterSeq } : {}) }));
        assert.deepEqual(paged, expected, `${types.join()} in pages of 2`);
      }
      // A horizon that falls inside a call: the events up to it, and none after.
      const through = all[6]!.seq;
      assert.deepEqual(await store.events.list({ mindId: mind, afterSeq: all[0]!.seq, throughSeq: through }), all.slice(1, 7));
      assert.deepEqual(await store.events.list({ mindId: mind, afterSeq: all[4]!.seq, throughSeq: all[5]!.seq }), [all[5]]);
    });

    it("take the completed step's move into the row when it follows its call, and a plan's read keeps only the move", async () => {
      const { store } = current();
      const mind = newId();
      const intention = newId();
      const plan = newId();
      const moves: NewEvent[] = [];
      const written: NewEvent[] = [];
      for (let i = 0; i < 4; i += 1) {
        const stepId = newId();
        const move: NewEvent = { type: i === 2 ? 'plan_step_failed' : 'plan_step_completed', mindId: mind, intentionId: intention, planId: plan, stepId, data: { key: `S${i}`, attempt: 1 } };
        moves.push(move);
        written.push(...callOf(mind, intention, `plan_step:${stepId}`), move);
      }
      // A move that follows another step's call stays a row of its own.
      const stray: NewEvent = { type: 'plan_step_completed', mindId: mind, intentionId: intention, planId: plan, stepId: newId(), data: { key: 'stray' } };
      written.push(...callOf(mind, intention, `plan_step:${newId()}`), stray);
      moves.push(stray);
      await store.transaction((tx) => tx.events.appendMany(written));
      const stored = await storedTypes(store.db, mind);
      assert.deepEqual(
        stored,
        kind === 'sqlite'
          ? ['tool_call_step_completed', 'tool_call_step_completed', 'tool_call_executed', 'plan_step_failed', 'tool_call_step_completed', 'tool_call_executed', 'plan_step_completed']
          : written.map((e) => e.type),
      );
      const all = await store.events.list({ mindId: mind, limit: 1000 });
      assert.deepEqual(
        all.map((e) => e.type),
        written.map((e) => e.type),
      );
      for (const [i, event] of all.entries()) {
        assert.equal(event.planId, written[i]!.planId ?? null, `${i}: plan`);
        assert.equal(event.stepId, written[i]!.stepId ?? null, `${i}: step`);
        assert.deepEqual(event.data, written[i]!.data);
        assert.deepEqual(await store.events.get(event.id), event);
      }
      for (const limit of [1, 2, 3]) {
        const planEvents = await pagedForward((afterSeq) => store.events.list({ planId: plan, limit, ...(afterSeq !== undefined ? { afterSeq } : {}) }));
        assert.deepEqual(
          planEvents.map((e) => e.data),
          moves.map((m) => m.data),
          `the plan's events in pages of ${limit}`,
        );
      }
      assert.deepEqual(
        (await store.events.list({ mindId: mind, types: ['plan_step_completed'] })).map((e) => e.stepId),
        moves.filter((m) => m.type === 'plan_step_completed').map((m) => m.stepId),
      );
      // A plan's read for a call's type finds nothing of the calls (they name no plan), and still
      // fills its page with what it does ask for.
      // More of the plan's completed calls than a page's margin (four rows), then the one it wants.
      for (let i = 0; i < 8; i += 1) {
        const stepId = newId();
        await store.events.appendMany([...callOf(mind, intention, `plan_step:${stepId}`), { type: 'plan_step_completed', mindId: mind, intentionId: intention, planId: plan, stepId }]);
      }
      const later: NewEvent = { type: 'plan_step_started', mindId: mind, intentionId: intention, planId: plan, stepId: newId(), data: { key: 'later' } };
      await store.events.appendMany([later]);
      assert.deepEqual(
        (await store.events.list({ planId: plan, types: ['tool_executed', 'plan_step_started'], limit: 1 })).map((e) => e.data),
        [later.data],
      );
      assert.deepEqual(await store.events.list({ planId: plan, limit: 0 }), []);
    });

    it('are not folded when they are not one call: a refusal, another origin, an id chosen for the decision', async () => {
      const { store } = current();
      const mind = newId();
      const intention = newId();
      const otherOrigin = callOf(mind, intention, 'plan_step:a');
      otherOrigin[2] = { ...otherOrigin[2]!, data: { ...otherOrigin[2]!.data, origin: 'plan_step:b' } };
      const chosen = callOf(mind, intention, 'invoke:c');
      chosen[0] = { ...chosen[0]!, id: newId() };
      const refused: NewEvent = { type: 'policy_decision', mindId: mind, intentionId: intention, data: { origin: 'invoke:d', decision: 'deny' } };
      await store.events.appendMany([...otherOrigin, ...chosen, refused, ...callOf(mind, newId(), 'invoke:e')]);
      const stored = await storedTypes(store.db, mind);
      assert.equal(stored.filter((type) => type.startsWith('tool_call_')).length, kind === 'sqlite' ? 1 : 0, stored.join());
      assert.equal(stored.length, kind === 'sqlite' ? 8 : 10);
      const events = await store.events.list({ mindId: mind, limit: 100 });
      assert.equal(events.length, 10);
      assert.equal(events[3]!.id, chosen[0]!.id);
    });

    it('leave the seqs of a rolled-back call to the next writer', async () => {
      const { store } = current();
      const before = await store.events.latestSeq();
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.events.appendMany(callOf(newId(), newId(), 'invoke:x'));
          await tx.events.flush();
          throw new Error('abandoned');
        }),
        /abandoned/,
      );
      const mind = newId();
      await store.events.appendMany(callOf(mind, newId(), 'invoke:y'));
      const events = await store.events.list({ mindId: mind });
      assert.equal(events.length, 3);
      // SQLite takes its seqs back with the rollback; PostgreSQL's sequence does not.
      if (kind === 'sqlite')
        assert.deepEqual(
          events.map((e) => e.seq),
          [before + 1, before + 2, before + 3],
        );
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`migration 0021 on a log written before it (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it("admits call rows, keeping the log's rows and seqs, and the next call follows them", async () => {
      const { store } = current();
      // Untyped: the test writes a type the check refuses.
      const db = store.db as unknown as Kysely<any>;
      await migrateTo(store.db, kind, '0020_startable_order');
      // The check as the code before 0021 wrote it (later code writes every check with the call rows).
      await refreshEventTypeCheck(db, kind, EVENT_TYPES);
      const mind = newId();
      const row = (type: string) => ({ id: newId(), type, mind_id: mind, data: '{}', created_at: new Date().toISOString() });
      await db
        .insertInto('events')
        .values([row('policy_decision'), row('tool_authorised'), row('tool_executed')])
        .execute();
      await assert.rejects(db.insertInto('events').values(row('tool_call_executed')).execute(), /events_type_check/);
      const before = await db.selectFrom('events').select(['seq', 'id', 'type']).orderBy('seq').execute();

      assert.deepEqual(await migrateToLatest(store.db, kind), ['0021_call_rows']);
      assert.deepEqual(await db.selectFrom('events').select(['seq', 'id', 'type']).orderBy('seq').execute(), before);
      await store.events.appendMany(callOf(mind, newId(), 'invoke:after'));
      const events = await store.events.list({ mindId: mind });
      const last = Number(before.at(-1)!.seq);
      assert.deepEqual(
        events.map((e) => e.type),
        ['policy_decision', 'tool_authorised', 'tool_executed', 'policy_decision', 'tool_authorised', 'tool_executed'],
      );
      const first = kind === 'sqlite' ? last + 1 : events[3]!.seq; // PostgreSQL's refused insert above took a seq
      assert.ok(first > last);
      assert.deepEqual(
        events.slice(3).map((e) => e.seq),
        [first, first + 1, first + 2],
      );
      assert.deepEqual(await storedTypes(db, mind), [...before.map((r) => r.type), ...(kind === 'sqlite' ? ['tool_call_executed'] : ['policy_decision', 'tool_authorised', 'tool_executed'])]);
      await assert.rejects(db.insertInto('events').values(row('tool_call_exploded')).execute(), /events_type_check/);
    });
  });
}

describe("an executor's read-only steps (sqlite)", () => {
  const current = useStore('sqlite');

  it('store each step, its call and its move, as one row and tell the same facts as before', async () => {
    const w = await makeWorld(current());
    await w.allow('test.read');
    const { plan } = await w.plan(draftOf([readStep('A'), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] })]));
    const executor = w.executor();
    for (let pass = 0; pass < 6; pass += 1) await executor.tick();
    assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
    const stored = await storedTypes(w.store.db, plan.mindId);
    assert.deepEqual(stored, ['plan_started', 'tool_call_step_completed', 'tool_call_step_completed', 'plan_completed', 'intention_fulfilled', 'procedural_memory_recorded']);
    const told = await w.store.events.list({ mindId: plan.mindId, limit: 1000 });
    for (const type of ['policy_decision', 'tool_authorised', 'tool_executed', 'plan_step_completed'] as const) assert.equal(told.filter((e) => e.type === type).length, 2, type);
    const steps = new Map(plan.steps.map((step) => [step.id, step.key]));
    for (const event of told.filter((e) => e.type === 'tool_executed')) {
      assert.match(String(event.data.origin), /^plan_step:/);
      assert.equal(event.planId, null, 'a call names no plan');
    }
    for (const event of told.filter((e) => e.type === 'plan_step_completed')) {
      assert.equal(event.planId, plan.id);
      assert.equal(event.data.key, steps.get(event.stepId!));
    }
    // The plan's own events: the moves, not the calls.
    assert.deepEqual(
      (await w.store.events.list({ planId: plan.id })).map((e) => e.type),
      ['plan_started', 'plan_step_completed', 'plan_step_completed', 'plan_completed', 'procedural_memory_recorded'],
    );
    const seqs = told.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      [...new Set(seqs)].sort((a, b) => a - b),
      'seqs unique and in order',
    );
  });
});
