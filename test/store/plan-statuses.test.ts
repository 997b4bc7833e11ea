// The light read settling checks plans with (executorQueries.planStatuses): one row a plan, with
// its status, its intention's and its steps' statuses in position order, whatever order the steps
// moved in. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { stepStatusList } from '../../src/store/index.ts';
import { seedPlan } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`the plans' statuses at a glance (${kind})`, () => {
    const current = useStore(kind);

    it("lists each plan's steps in position order, as the plan's own reading would", async () => {
      const { store } = current();
      const one = await seedPlan(store);
      const two = await seedPlan(store);
      // Moved out of position order: the last step first.
      const [a, b, , d] = one.plan.steps;
      await store.steps.move('promote', d!.id, 'pending');
      await store.steps.move('promote', a!.id, 'pending');
      await store.steps.move('complete', a!.id, 'ready', { result: null });
      await store.steps.move('cancel', b!.id, 'pending', { statusReason: 'test' });
      await store.plans.transition(two.plan.id, 'validated', 'executing');

      const statuses = await store.executorQueries.planStatuses([one.plan.id, two.plan.id, one.plan.id, newId()]);
      assert.deepEqual([...statuses.keys()].sort(), [one.plan.id, two.plan.id].sort(), 'each known plan once; an unknown one absent');
      const reread = (await store.plans.get(one.plan.id))!;
      assert.equal(statuses.get(one.plan.id)?.steps, stepStatusList(reread.steps));
      assert.equal(statuses.get(one.plan.id)?.steps, 'completed,cancelled,pending,ready');
      assert.equal(statuses.get(one.plan.id)?.plan, 'validated');
      assert.equal(statuses.get(one.plan.id)?.intention, one.intention.status);
      assert.equal(statuses.get(two.plan.id)?.plan, 'executing');
      assert.equal(statuses.get(two.plan.id)?.steps, stepStatusList(two.plan.steps));
    });
  });
}
