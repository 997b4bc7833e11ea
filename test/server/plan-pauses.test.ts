// Pausing and resuming over HTTP, on both stores: by plan id, through the plan's mind, and a whole
// mind; the plan view shows the pause beside the status and the status names what a running plan
// waits for; the timeline records who paused and why; refusals are typed and change nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draftOf, readStep, step } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld } from './support.ts';

for (const kind of STORE_KINDS) {
  describe(`pausing plans over HTTP (${kind})`, () => {
    const store = useStore(kind);

    it('pauses and resumes a plan, shows it paused and awaiting approval, and records who and why', async () => {
      const { call, world, other, app } = await makeApiWorld(store());
      try {
        const { plan } = await world.plan(draftOf([step('w', { kind: 'capability', capability: 'test.write', params: { name: 'svc' } })]));
        await world.executor().drain();
        const mind = world.mind.name;

        const paused = await call('operator', 'POST', `/api/v1/minds/${mind}/plans/${plan.id}/pause`, { reason: 'change freeze' });
        assert.equal(paused.status, 200, JSON.stringify(paused.body));
        assert.deepEqual([paused.body.plan.status, paused.body.plan.pause.by, paused.body.plan.pause.reason], ['awaiting_approval', 'olga', 'change freeze']);
        const detail = await call('viewer', 'GET', `/api/v1/plans/${plan.id}`);
        assert.equal(detail.body.plan.status, 'awaiting_approval', 'a plan waiting for an operator says so');
        assert.equal(detail.body.plan.pause.by, 'olga');

        // Refusals: typed, and nothing changes.
        const again = await call('operator', 'POST', `/api/v1/plans/${plan.id}/pause`, {});
        assert.deepEqual([again.status, again.body.error.problems[0].code], [409, 'already_paused']);
        assert.equal((await call('operator', 'POST', `/api/v1/minds/${other.name}/plans/${plan.id}/resume`, {})).status, 404);
        assert.equal((await call('viewer', 'POST', `/api/v1/plans/${plan.id}/resume`, {})).status, 403);
        assert.equal((await call('agent', 'POST', `/api/v1/plans/${plan.id}/resume`, {})).status, 403);
        const unknownField = await call('operator', 'POST', `/api/v1/plans/${plan.id}/resume`, { reason: 'x', force: true });
        assert.equal(unknownField.status, 400);
        assert.equal((await world.store.plans.get(plan.id))?.pause?.by, 'olga');

        const resumed = await call('operator', 'POST', `/api/v1/plans/${plan.id}/resume`, { reason: 'freeze over' });
        assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
        assert.equal(resumed.body.plan.pause, null);
        // The plan record, as pausing answers it: no steps in one answer and not the other.
        assert.deepEqual(Object.keys(resumed.body.plan).sort(), Object.keys(paused.body.plan).sort());
        const notPaused = await call('operator', 'POST', `/api/v1/plans/${plan.id}/resume`, {});
        assert.deepEqual([notPaused.status, notPaused.body.error.problems[0].code], [409, 'not_paused']);

        const timeline = await call('viewer', 'GET', `/api/v1/plans/${plan.id}/timeline`);
        const moves = timeline.body.items.filter((e: { type: string }) => ['plan_awaiting_approval', 'plan_paused', 'plan_resumed'].includes(e.type));
        assert.deepEqual(
          moves.map((e: { type: string; data: { operator?: string; reason?: string } }) => [e.type, e.data.operator ?? null, e.data.reason ?? null]),
          [
            ['plan_awaiting_approval', null, 'an open step waits for an operator'],
            ['plan_paused', 'olga', 'change freeze'],
            ['plan_resumed', 'olga', 'freeze over'],
          ],
        );
      } finally {
        await app.close();
      }
    });

    it('pauses and resumes every open plan of a mind', async () => {
      const { call, world, app } = await makeApiWorld(store());
      try {
        await world.allow('test.read');
        const { plan: one } = await world.plan(draftOf([readStep('a')]));
        const { plan: two } = await world.plan(draftOf([readStep('b', 'test.read', { name: 'b' })]));
        const paused = await call('operator', 'POST', `/api/v1/minds/${world.mind.name}/pause`, { reason: 'incident' });
        assert.equal(paused.status, 200, JSON.stringify(paused.body));
        assert.deepEqual(paused.body.plans.map((p: { id: string }) => p.id).sort(), [one.id, two.id].sort());
        await world.executor().drain();
        assert.equal((await world.store.plans.get(one.id))?.status, 'validated');
        const nothing = await call('operator', 'POST', `/api/v1/minds/${world.mind.name}/pause`, {});
        assert.deepEqual([nothing.status, nothing.body.error.problems[0].code], [409, 'nothing_to_pause']);
        store().clock.advance(60);
        const resumed = await call('operator', 'POST', `/api/v1/minds/${world.mind.name}/resume`, {});
        assert.equal(resumed.status, 200);
        // Each plan as the resume left it, not as it was before (its update time was stale).
        for (const answered of resumed.body.plans as { id: string; updatedAt: string; pause: unknown }[]) {
          const stored = (await world.store.plans.get(answered.id))!;
          assert.deepEqual([answered.updatedAt, answered.pause], [stored.updatedAt.toISOString(), null]);
        }
        await world.executor().drain();
        assert.equal((await world.store.plans.get(one.id))?.status, 'completed');
        assert.equal((await world.store.plans.get(two.id))?.status, 'completed');
        const mindTimeline = await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/timeline`);
        assert.deepEqual(
          mindTimeline.body.items.filter((e: { type: string }) => e.type.startsWith('mind_')).map((e: { type: string; data: { operator: string } }) => [e.type, e.data.operator]),
          [
            ['mind_paused', 'olga'],
            ['mind_resumed', 'olga'],
          ],
        );
      } finally {
        await app.close();
      }
    });
  });
}
