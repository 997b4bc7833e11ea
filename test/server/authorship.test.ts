// Four eyes across surfaces: whoever submits a plan or forms an intention through the API is
// recorded as its author and can never approve the actions that serve it; someone else can.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draftOf, step } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld, type ApiWorld } from './support.ts';

async function pendingOf(api: ApiWorld, planId: string): Promise<string> {
  await api.world.executor().drain();
  const waiting = (await api.world.store.plans.get(planId))!.steps[0]!;
  assert.equal(waiting.status, 'awaiting_approval');
  return waiting.approvalId!;
}

for (const kind of STORE_KINDS) {
  describe(`authorship and self-approval (${kind})`, () => {
    const store = useStore(kind);

    it('the operator who submitted a plan cannot approve its write; another operator can', async () => {
      const api = await makeApiWorld(store());
      try {
        const draft = draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'authored' } })]);
        const submitted = await api.call('operator', 'POST', `/api/v1/minds/${api.world.mind.name}/plans`, draft);
        assert.equal(submitted.status, 201, JSON.stringify(submitted.body));
        const plan = await api.world.store.plans.get(submitted.body.plan_id);
        assert.equal(plan?.authoredBy, 'olga');
        assert.equal((await api.world.store.intentions.get(plan!.intentionId))?.authoredBy, 'olga');

        const approvalId = await pendingOf(api, plan!.id);
        assert.equal((await api.world.store.approvals.get(approvalId))?.authoredBy, 'olga');
        const own = await api.call('operator', 'POST', `/api/v1/approvals/${approvalId}/approve`, {});
        assert.equal(own.status, 409, JSON.stringify(own.body));
        assert.equal(own.body.error.problems[0].code, 'self_approval', JSON.stringify(own.body));
        assert.equal(api.world.log.calls.length, 0, 'nothing ran on a refused self-approval');

        const other = await api.call('admin', 'POST', `/api/v1/approvals/${approvalId}/approve`, {});
        assert.equal(other.status, 200, JSON.stringify(other.body));
        await api.world.executor().drain();
        assert.deepEqual(
          api.world.log.calls.map((c) => c.capability),
          ['test.write'],
        );
      } finally {
        await api.app.close();
      }
    });

    it('the operator who formed an intention cannot approve what the planner does for it', async () => {
      const api = await makeApiWorld(store());
      try {
        const formed = await api.call('operator', 'POST', `/api/v1/minds/${api.world.mind.name}/intentions`, {
          means: { capability: 'test.write', params: { name: 'planned' } },
        });
        assert.equal(formed.status, 201, JSON.stringify(formed.body));
        assert.equal(formed.body.intention.authoredBy, 'olga');
        const planId = formed.body.planning.plan_id as string;
        assert.ok(planId, JSON.stringify(formed.body.planning));
        assert.equal((await api.world.store.plans.get(planId))?.authoredBy, 'olga', 'the planned plan carries the intention author');

        const approvalId = await pendingOf(api, planId);
        const own = await api.call('operator', 'POST', `/api/v1/approvals/${approvalId}/approve`, {});
        assert.equal(own.status, 409);
        assert.equal(own.body.error.problems[0].code, 'self_approval', JSON.stringify(own.body));
      } finally {
        await api.app.close();
      }
    });
  });
}
