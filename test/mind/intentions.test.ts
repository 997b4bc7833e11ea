import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { abandonIntention, blockIntention, formIntention, formSubordinate, fulfilIntention, resumeIntention, suspendIntention } from '../../src/mind/intentions.ts';
import { mayAdvance, mayRunOn } from '../../src/mind/minds.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

async function mind(store: Store) {
  return store.minds.create({ name: `ops-${newId()}` });
}

async function eventTypes(store: Store, intentionId: string): Promise<string[]> {
  return (await store.events.list({ intentionId })).map((e) => e.type);
}

describe('minds', () => {
  it('advances only active minds, and bound minds only on their host', () => {
    assert.equal(mayAdvance({ status: 'active' }), true);
    assert.equal(mayAdvance({ status: 'disabled' }), false);
    assert.equal(mayRunOn({ host: null }, 'web-1'), true);
    assert.equal(mayRunOn({ host: 'web-1' }, 'web-1'), true);
    assert.equal(mayRunOn({ host: 'web-1' }, 'web-2'), false);
  });
});

for (const kind of STORE_KINDS) {
  describe(`intentions (${kind})`, () => {
    const current = useStore(kind);

    it('forms an intention from an objective, or from a means alone', async () => {
      const { store, clock } = current();
      const ops = await mind(store);
      const fromObjective = await formIntention(store, { mindId: ops.id, objective: '  investigate nginx.service ', origin: 'operator' });
      assert.equal(fromObjective.ok, true);
      const a = fromObjective.ok ? fromObjective.intention : assert.fail();
      assert.equal(a.objective, 'investigate nginx.service');
      assert.equal(a.means, null);
      assert.equal(a.status, 'active');
      assert.deepEqual(a.createdAt, clock.now());

      const means = { capability: 'service.restart', target: 'atlas-worker.service', params: { unit: 'atlas-worker.service' } };
      const fromMeans = await formIntention(store, { mindId: ops.id, means, origin: 'api', requireApproval: true });
      const b = fromMeans.ok ? fromMeans.intention : assert.fail();
      assert.equal(b.objective, 'run service.restart on atlas-worker.service');
      assert.deepEqual(b.means, means);
      assert.equal(b.requireApproval, true);

      const [formed] = await store.events.list({ intentionId: b.id });
      assert.equal(formed?.type, 'intention_formed');
      assert.deepEqual(formed?.data, { objective: b.objective, origin: 'api', means, require_approval: true });
    });

    it('refuses bad input with typed problems and stores nothing', async () => {
      const { store } = current();
      const ops = await mind(store);
      const empty = await formIntention(store, { mindId: ops.id, origin: 'operator' });
      assert.deepEqual(empty, { ok: false, problems: [{ code: 'missing_objective', path: 'objective', message: 'an intention needs an objective or a means' }] });
      const badMeans = await formIntention(store, { mindId: ops.id, origin: 'x', means: { capability: 'rm -rf', target: '', params: {} } });
      assert.deepEqual(badMeans.ok ? [] : badMeans.problems.map((p) => p.path), ['means.capability']);
      const noMind = await formIntention(store, { mindId: newId(), objective: 'o', origin: 'x' });
      assert.deepEqual(noMind.ok ? '' : noMind.problems[0]!.code, 'unknown_mind');
      const noBelief = await formIntention(store, { mindId: ops.id, objective: 'o', origin: 'x', beliefId: newId() });
      assert.deepEqual(noBelief.ok ? '' : noBelief.problems[0]!.code, 'unknown_belief');
      assert.deepEqual(await store.intentions.listByMind(ops.id), []);
    });

    it('blocks a parent on a subordinate and resumes it when the subordinate is fulfilled', async () => {
      const { store } = current();
      const ops = await mind(store);
      const parent = (await formIntention(store, { mindId: ops.id, objective: 'restart atlas-worker.service', origin: 'operator' })) as { ok: true; intention: { id: string } };
      const formed = await formSubordinate(store, parent.intention.id, { objective: 'obtain approval for service.restart on atlas-worker.service', reason: 'awaiting_approval' });
      assert.ok(formed);
      assert.equal(formed.parent.status, 'blocked');
      assert.equal(formed.parent.reason, 'awaiting_approval');
      assert.equal(formed.subordinate.parentId, parent.intention.id);
      assert.equal(formed.subordinate.status, 'active');

      const done = await fulfilIntention(store, formed.subordinate.id);
      assert.equal(done?.intention.status, 'fulfilled');
      assert.equal(done?.intention.reason, 'completed');
      assert.ok(done?.intention.closedAt);
      assert.equal(done?.resumedParent?.id, parent.intention.id);
      assert.equal(done?.resumedParent?.status, 'active');
      assert.equal(done?.resumedParent?.reason, '');
      assert.deepEqual(await eventTypes(store, parent.intention.id), ['intention_formed', 'intention_blocked', 'intention_resumed']);
      assert.deepEqual(await eventTypes(store, formed.subordinate.id), ['intention_formed', 'intention_fulfilled']);
      assert.equal(await fulfilIntention(store, formed.subordinate.id), undefined, 'a fulfilled intention cannot be fulfilled again');
    });

    it('keeps the parent blocked until its last open subordinate is fulfilled', async () => {
      const { store } = current();
      const ops = await mind(store);
      const parent = await store.intentions.create({ mindId: ops.id, objective: 'investigate nginx.service', origin: 'operator' });
      const first = await formSubordinate(store, parent.id, { objective: 'obtain journal access', reason: 'awaiting_grant' });
      const second = await formSubordinate(store, parent.id, { objective: 'obtain approval for host.process.list', reason: 'awaiting_approval' });
      assert.equal(second?.parent.reason, 'awaiting_approval', 'a blocked parent may be blocked again');
      const one = await fulfilIntention(store, first!.subordinate.id);
      assert.equal(one?.resumedParent, null);
      assert.equal((await store.intentions.get(parent.id))?.status, 'blocked');
      const two = await fulfilIntention(store, second!.subordinate.id);
      assert.equal(two?.resumedParent?.status, 'active');
    });

    it('moves only from the statuses each transition allows, and says so when it did not move', async () => {
      const { store } = current();
      const ops = await mind(store);
      const i = await store.intentions.create({ mindId: ops.id, objective: 'o', origin: 'operator' });
      assert.equal(await resumeIntention(store, i.id), undefined, 'an active intention is not resumed');
      assert.equal((await blockIntention(store, i.id, 'awaiting_approval'))?.status, 'blocked');
      // Blocked already, for another reason: the newer reason is what holds it now (an operator's
      // release resumes an intention held by an unknown outcome).
      assert.equal((await blockIntention(store, i.id, 'outcome_unverified'))?.reason, 'outcome_unverified');
      assert.equal((await suspendIntention(store, i.id, 'budget_exhausted'))?.reason, 'budget_exhausted');
      assert.equal(await blockIntention(store, i.id, 'awaiting_approval'), undefined, 'a suspended intention is not blocked');
      assert.equal((await resumeIntention(store, i.id))?.status, 'active');
      assert.equal((await abandonIntention(store, i.id, 'replan_limit'))?.reason, 'replan_limit');
      assert.equal(await resumeIntention(store, i.id), undefined, 'abandoned is final');
      assert.equal(await blockIntention(store, i.id, 'outcome_unverified'), undefined, 'nor an abandoned one');
      assert.equal(await fulfilIntention(store, i.id), undefined);
      assert.deepEqual(await eventTypes(store, i.id), ['intention_blocked', 'intention_blocked', 'intention_suspended', 'intention_resumed', 'intention_abandoned']);
    });

    it('abandons the open subordinates with their parent', async () => {
      const { store } = current();
      const ops = await mind(store);
      const parent = await store.intentions.create({ mindId: ops.id, objective: 'o', origin: 'operator' });
      const formed = await formSubordinate(store, parent.id, { objective: 'wait for approval', reason: 'awaiting_approval' });
      await abandonIntention(store, parent.id, 'capability_denied');
      const sub = await store.intentions.get(formed!.subordinate.id);
      assert.equal(sub?.status, 'abandoned');
      assert.equal(sub?.reason, 'cancelled');
    });
  });
}
