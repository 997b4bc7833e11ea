// Which work a tick takes on: never drafts, dream plans or a disabled mind's plans; only minds
// bound to the daemon's host or to none; and found through indexes, so closed history does not
// show up in what a tick reads.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { dueStepQueries, plansToSettleQuery, startablePlansQuery } from '../../src/store/repositories/executor-queries.ts';
import { validate } from '../../src/planning/validate.ts';
import { queryPlan } from '../support/query-plan.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep, stepsOf } from './support.ts';

for (const kind of STORE_KINDS) {
  describe(`executor selection (${kind})`, () => {
    const current = useStore(kind);

    it('never starts a draft or a dream plan', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan: dream } = await w.plan(draftOf([readStep('A')]), { origin: 'dream' });
      const draft = draftOf([readStep('A')]);
      const intention = await w.store.intentions.create({ mindId: w.mind.id, objective: 'x', origin: 'operator' });
      const stored = await w.store.plans.create({
        mindId: w.mind.id,
        intentionId: intention.id,
        origin: 'model',
        draft,
        validation: { ...validate(draft, w.registry), valid: false },
        status: 'draft',
      });
      await w.executor().drain();
      assert.equal((await w.store.plans.get(dream.id))?.status, 'validated');
      assert.equal((await w.store.plans.get(stored.id))?.status, 'draft');
      assert.equal(w.log.calls.length, 0);
    });

    it('does not advance the plans of a disabled mind, and picks them up when it is enabled again', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([readStep('A'), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] })]));
      // One round per pass: the first pass runs A only, and B is left for the passes after.
      const executor = w.executor({ rounds: 1 });
      await executor.tick();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'executing');
      await w.store.minds.setStatus(w.mind.id, 'disabled');
      const callsBefore = w.log.calls.length;
      await executor.drain();
      assert.equal(w.log.calls.length, callsBefore, 'nothing more ran while disabled');
      await w.store.minds.setStatus(w.mind.id, 'active');
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { A: 'completed', B: 'completed' });
    });

    it('advances a bound mind only on its own host, and an unbound mind anywhere', async () => {
      const w = await makeWorld(current(), { mindHost: 'host-a' });
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([readStep('A')]));
      const unbound = await w.store.minds.create({ name: `free-${newId()}` });
      await w.store.policyRules.set({ mindId: unbound.id, capability: 'test.read', targetPattern: '*', decision: 'allow', approvers: 1 });
      const { plan: free } = await w.plan(draftOf([readStep('A')]), { mind: unbound });

      await w.executor({ host: null }).drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'validated', 'a daemon with no host leaves bound minds alone');
      assert.equal((await w.store.plans.get(free.id))?.status, 'completed');

      await w.executor({ host: 'host-b' }).drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'validated');
      await w.executor({ host: 'host-a' }).drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
    });

    it('abandons a validated plan whose intention has closed instead of running it', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan, intention } = await w.plan(draftOf([readStep('A')]));
      await w.store.intentions.transition(intention.id, 'active', 'abandoned', 'cancelled');
      await w.executor().drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'abandoned');
      assert.equal(w.log.calls.length, 0);
    });

    it('finds due steps through the partial due index and live plans through the live-plan index', async () => {
      const { store } = current();
      const db = store.db;
      // A store with history: closed plans far outnumber the live ones, as they do in use, and the
      // planner knows it (on empty tables it may pick any index that can serve).
      const w = await makeWorld(current());
      const draft = draftOf([readStep('A')]);
      for (let i = 0; i < 200; i += 1) await w.plan(draft);
      await sql`update plans set status = 'completed'`.execute(db);
      await w.plan(draft);
      await sql`analyze`.execute(db);
      const explain = (compiled: { sql: string; parameters: readonly unknown[] }) => queryPlan(db, kind, compiled);
      const affinity = { host: 'h', limit: 10 };
      const due = dueStepQueries(db, kind, new Date().toISOString(), affinity);
      for (const tier of [due.timed, due.ready, due.polled]) assert.match(await explain(tier().compile()), /plan_steps_due_idx/);
      assert.match(await explain(startablePlansQuery(db, kind, affinity).compile()), /plans_live_idx/);
      assert.match(await explain(plansToSettleQuery(db, kind, affinity).compile()), /plans_live_idx/);
    });

    it('takes a batch of ready steps from a backlog by walking the due index, without sorting the backlog', async () => {
      const { store } = current();
      const db = store.db;
      const w = await makeWorld(current());
      const draft = draftOf([readStep('A')]);
      for (let i = 0; i < 300; i += 1) await w.plan(draft);
      await sql`update plans set status = 'executing'`.execute(db);
      await sql`update plan_steps set status = 'ready'`.execute(db);
      await sql`analyze`.execute(db);
      const due = dueStepQueries(db, kind, new Date().toISOString(), { host: null, limit: 10 });
      const ready = due.ready();
      const plan = await queryPlan(db, kind, ready.compile());
      assert.match(plan, /plan_steps_due_idx/);
      assert.doesNotMatch(plan, kind === 'sqlite' ? /TEMP B-TREE/ : /Sort/, `the index's order is the order asked for: ${plan}`);
      // The steps whose time has come are read one status at a time: counted by ANALYZE, the
      // backlog once made SQLite scan the table for them, and PostgreSQL walked the whole index.
      const timed = await queryPlan(db, kind, due.timed().compile());
      assert.match(timed, kind === 'sqlite' ? /SEARCH plan_steps USING INDEX plan_steps_due_idx \(status=\? AND next_run_at>\? AND next_run_at<\?\)/ : /Index Cond: \(\(status = ANY/, timed);
      const ids = (await ready.execute()).map((row) => row.id);
      assert.equal(ids.length, 10);
      assert.deepEqual(ids, [...ids].sort(), 'oldest first');
    });
  });
}
