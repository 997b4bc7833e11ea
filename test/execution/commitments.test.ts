import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { planIntention } from '../../src/drafting/plan-intention.ts';
import { takeCommitment } from '../../src/mind/commitments.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { eventTypes, makeWorld, stepsOf, type World } from './support.ts';

const UNIT = 'payments-api.service';

for (const kind of STORE_KINDS) {
  describe(`a commitment taken while a plan runs (${kind})`, () => {
    const current = useStore(kind);
    const worlds: World[] = [];
    after(() => worlds.forEach((w) => w.host?.remove()));

    async function restartIntention() {
      const w = await makeWorld(current(), { simulated: true });
      worlds.push(w);
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 1 } });
      await w.allow('service.restart');
      const formed = await formIntention(w.store, { mindId: w.mind.id, means: { capability: 'service.restart', target: UNIT, params: { unit: UNIT } }, origin: 'operator' });
      assert.ok(formed.ok);
      const planning = { registry: w.registry };
      const first = await planIntention(w.store, planning, formed.intention.id);
      assert.equal(first.status, 'planned');
      const restarts = () => w.host!.calls().filter((c) => c.program === 'systemctl' && c.argv[0] === 'restart').length;
      return { w, intentionId: formed.intention.id, executor: w.executor({ planning }), restarts };
    }

    it('replans under it before the bound step runs, may reuse the strategy, and the step then asks', async () => {
      const { w, intentionId, executor, restarts } = await restartIntention();
      w.advance(1);
      const taken = await takeCommitment(w.store, { mindId: w.mind.id, capability: 'service.restart', targetPattern: 'payments-*', reason: 'change freeze' });
      assert.ok(taken.ok);

      await executor.drain();
      const plans = await w.store.plans.listByIntention(intentionId);
      assert.equal(plans.length, 2);
      const [old, next] = plans;
      assert.equal(old!.status, 'superseded');
      assert.equal(old!.supersededBy, next!.id);
      assert.equal(next!.strategy, old!.strategy, 'the same strategy may serve under the new constraint');
      assert.deepEqual(await stepsOf(w.store, old!.id), { P1: 'cancelled', V1: 'cancelled' });
      assert.equal((await stepsOf(w.store, next!.id)).P1, 'awaiting_approval');
      assert.equal(restarts(), 0, 'nothing ran under the old plan');
      const reconsideration = (await w.store.events.list({ intentionId, limit: 500 })).find((e) => e.type === 'reconsideration');
      assert.match(JSON.stringify(reconsideration?.data), /commitment_added/);
      assert.ok((await eventTypes(w.store, { intentionId })).includes('plan_replanned'));
    });

    it('leaves a plan alone when the commitment binds none of its remaining steps', async () => {
      const { w, intentionId, executor, restarts } = await restartIntention();
      w.advance(1);
      const taken = await takeCommitment(w.store, { mindId: w.mind.id, capability: 'service.restart', targetPattern: 'search-*', reason: 'other team' });
      assert.ok(taken.ok);
      await executor.drain();
      assert.equal((await w.store.plans.listByIntention(intentionId)).length, 1);
      assert.equal(restarts(), 1);
    });
  });
}
