// Wants and dreams, on both stores: a fresh intention nothing can plan is abandoned with its want
// suppressed (a replan that finds nothing is not); a dream leaves open wants and dream-origin
// drafts on suspended intentions, and may not raise a suppressed want again; and the executor,
// driven through its public API, never runs a dream plan, even one marked validated.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { planIntention } from '../../src/drafting/plan-intention.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import { abandonIntention, formIntention } from '../../src/mind/intentions.ts';
import { recordDream } from '../../src/operations/dreams.ts';
import { draftOf, makeWorld, readStep } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const admin = { tokenId: null, operator: 'adam', role: 'admin' as const, mindId: null };

for (const kind of STORE_KINDS) {
  describe(`wants and dreams (${kind})`, () => {
    const current = useStore(kind);

    it('suppresses the want of a fresh intention that cannot be planned, and a dream may not raise it again', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `wanting-${kind}` });
      const formed = await formIntention(store, { mindId: mind.id, objective: 'write a haiku about the moon', origin: 'operator' });
      assert.ok(formed.ok);
      if (!formed.ok) return;
      const planned = await planIntention(store, { registry: builtinRegistry(), model: null }, formed.intention.id);
      assert.equal(planned.status, 'no_possible_plan');
      const [want] = await store.wants.listPage(mind.id, { limit: 10 });
      assert.ok(want);
      assert.deepEqual([want.statement, want.origin, want.status, want.reason, want.intentionId], ['write a haiku about the moon', 'intention', 'suppressed', 'no_possible_plan', formed.intention.id]);
      const told = (await store.events.list({ intentionId: formed.intention.id })).map((e) => e.type);
      assert.deepEqual(told.slice(-2), ['intention_abandoned', 'want_suppressed']);

      const dreamt = await recordDream(store, builtinRegistry(), admin, mind.name, { wants: ['write a haiku about the moon', 'keep the disk below 80%'] });
      assert.deepEqual(dreamt.skipped, [{ statement: 'write a haiku about the moon', why: 'suppressed', want_id: want.id }]);
      assert.deepEqual(
        dreamt.wants.map((w) => w.statement),
        ['keep the disk below 80%'],
      );
      const open = await store.wants.listPage(mind.id, { status: 'open', limit: 10 });
      assert.deepEqual(
        open.map((w) => [w.statement, w.origin]),
        [['keep the disk below 80%', 'dream']],
      );
    });

    it('leaves an intention that had a plan without a suppressed want when it is abandoned for no possible plan', async () => {
      const world = await makeWorld(current());
      const { intention } = await world.plan(draftOf([readStep('a')]));
      await abandonIntention(world.store, intention.id, 'no_possible_plan');
      assert.equal(await world.store.wants.getByIntention(intention.id), undefined);
    });

    it('keeps a dream’s drafts as dream-origin drafts on suspended intentions, and the executor never runs one', async () => {
      const world = await makeWorld(current());
      const { store, registry, mind } = world;
      await world.allow('test.read');
      const draft = draftOf([readStep('a')], { objective: 'look at a before anyone asks' });
      const dreamt = await recordDream(store, registry, admin, mind.name, { drafts: [draft, { ...draft, objective: 'a broken dream', steps: [] }] });
      assert.deepEqual(
        dreamt.drafts.map((d) => [d.valid, d.errors.map((e) => e.code)]),
        [
          [true, []],
          [false, ['no_steps']],
        ],
      );
      const [good] = dreamt.drafts;
      const plan = (await store.plans.get(good!.plan_id))!;
      assert.deepEqual([plan.origin, plan.status], ['dream', 'draft']);
      assert.equal((await store.intentions.get(good!.intention_id))?.status, 'suspended');
      const want = (await store.wants.get(good!.want_id))!;
      assert.deepEqual([want.origin, want.status, want.planId, want.intentionId], ['dream', 'open', plan.id, good!.intention_id]);

      // Even marked validated (no surface can do this: a proposal's origin is ignored), a dream
      // plan is not started, and its intention active does not change that.
      assert.ok(await store.plans.transition(plan.id, 'draft', 'validated'));
      await store.intentions.transition(good!.intention_id, 'suspended', 'active', '');
      const executor = world.executor();
      for (let i = 0; i < 4; i += 1) await executor.tick();
      const after = (await store.plans.get(plan.id))!;
      assert.equal(after.status, 'validated');
      assert.deepEqual(
        after.steps.map((s) => s.status),
        ['pending'],
      );
      assert.deepEqual(world.log.calls, [], 'nothing was invoked');
      assert.deepEqual(world.errors, []);
    });

    it('never lets a submission claim the dream origin: it is ignored and reported', async () => {
      const world = await makeWorld(current());
      const submitted = await submitPlan(world.store, world.registry, { mindId: world.mind.id, input: { ...draftOf([readStep('a')]), origin: 'dream' }, origin: 'model', authoredBy: 'model' });
      assert.ok(submitted.stored);
      if (!submitted.stored) return;
      assert.equal(submitted.plan.origin, 'model');
      assert.ok(submitted.assessment.warnings.some((w) => w.code === 'ignored_provenance_claim' && w.path === 'origin'));
    });

    it('refuses a dream with a draft that is not a plan, storing nothing of it', async () => {
      const world = await makeWorld(current());
      await assert.rejects(
        recordDream(world.store, world.registry, admin, world.mind.name, { wants: ['something'], drafts: ['not a plan'] }),
        (error: Error & { problems?: { code: string; path: string }[] }) => error.problems?.[0]?.path === 'drafts[0]',
      );
      await assert.rejects(recordDream(world.store, world.registry, admin, world.mind.name, {}), /at least one want or draft/);
      assert.deepEqual(await world.store.wants.listPage(world.mind.id, { limit: 10 }), []);
      assert.deepEqual(await world.store.plans.listByMind(world.mind.id), []);
    });
  });
}
