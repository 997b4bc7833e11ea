// Dreams and wants over HTTP, on both stores: an agent records a dream for its own mind; its
// wants and draft are listed; a dream with a draft that is not a plan is a 400 that stores
// nothing; another agent's mind is not found.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draftOf, readStep } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld } from './support.ts';

for (const kind of STORE_KINDS) {
  describe(`dreams and wants over HTTP (${kind})`, () => {
    const store = useStore(kind);

    it('records a dream for the agent’s own mind and lists its wants', async () => {
      const { call, world, other, app } = await makeApiWorld(store());
      try {
        const mind = world.mind.name;
        const dream = await call('agent', 'POST', `/api/v1/minds/${mind}/dreams`, { wants: ['keep svc healthy'], drafts: [draftOf([readStep('a')], { objective: 'read a at night' })] });
        assert.equal(dream.status, 201, JSON.stringify(dream.body));
        assert.equal(dream.body.drafts[0].valid, true);
        const wants = await call('viewer', 'GET', `/api/v1/minds/${mind}/wants`);
        assert.deepEqual(
          wants.body.items.map((w: { statement: string; origin: string; status: string }) => [w.statement, w.origin, w.status]),
          [
            ['read a at night', 'dream', 'open'],
            ['keep svc healthy', 'dream', 'open'],
          ],
        );
        const plan = await call('viewer', 'GET', `/api/v1/plans/${dream.body.drafts[0].plan_id}`);
        assert.deepEqual([plan.body.plan.origin, plan.body.plan.status], ['dream', 'draft']);
        assert.equal((await call('viewer', 'GET', `/api/v1/minds/${mind}/wants?status=suppressed`)).body.items.length, 0);

        const broken = await call('agent', 'POST', `/api/v1/minds/${mind}/dreams`, { wants: ['more'], drafts: [42] });
        assert.equal(broken.status, 400);
        assert.equal(broken.body.error.problems[0].path, 'body.drafts[0]');
        assert.equal((await call('viewer', 'GET', `/api/v1/minds/${mind}/wants`)).body.items.length, 2);
        assert.equal((await call('agent', 'POST', `/api/v1/minds/${other.name}/dreams`, { wants: ['x'] })).status, 404);
        assert.equal((await call('viewer', 'POST', `/api/v1/minds/${mind}/dreams`, { wants: ['x'] })).status, 403);
      } finally {
        await app.close();
      }
    });
  });
}
