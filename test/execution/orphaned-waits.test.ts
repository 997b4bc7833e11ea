import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, step, stepsOf } from './support.ts';

for (const kind of STORE_KINDS) {
  describe(`waits left behind by a closed plan (${kind})`, () => {
    const current = useStore(kind);

    it('are cancelled and their approval withdrawn, so nobody approves an action no plan runs', async () => {
      const w = await makeWorld(current());
      // A write that asks: the step ends up waiting for an operator.
      const { plan } = await w.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha' } })]));
      const executor = w.executor();
      await executor.drain();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_approval');
      assert.ok(waiting.approvalId && waiting.intentionId);

      // The plan closes underneath it, as when a replan superseded it while the step was mid-invocation.
      assert.equal((await w.store.plans.get(plan.id))?.status, 'awaiting_approval');
      assert.ok(await w.store.plans.transition(plan.id, 'awaiting_approval', 'superseded', { statusReason: 'replanned' }));
      await executor.drain();

      assert.deepEqual(await stepsOf(w.store, plan.id), { W1: 'cancelled' });
      assert.equal((await w.store.approvals.get(waiting.approvalId!))?.status, 'withdrawn');
      assert.equal((await w.store.intentions.get(waiting.intentionId!))?.status, 'abandoned');
      const late = await w.service.approve(waiting.approvalId!, 'alice');
      assert.equal(late.status === 'refused' && late.code, 'not_pending');
      assert.equal(w.log.calls.length, 0);
      assert.deepEqual(w.errors, []);
    });
  });
}
