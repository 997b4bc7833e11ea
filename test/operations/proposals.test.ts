// A model's proposal for an open intention (proposePlanForIntention, MCP's propose_plan) is
// stored only while the intention has no runnable plan, checked where the plan is stored with
// the intention locked: two proposals at once both passed a check made before, and both plans
// ran, acting twice.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../src/access/permissions.ts';
import { Conflict } from '../../src/operations/errors.ts';
import { recordDream } from '../../src/operations/dreams.ts';
import { proposePlanForIntention } from '../../src/operations/plans.ts';
import { draftOf, makeWorld, readStep } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const operator: Principal = { tokenId: null, operator: 'model-one', role: 'admin', mindId: null };

for (const kind of STORE_KINDS) {
  describe(`proposals for one intention (${kind})`, () => {
    const current = useStore(kind);

    it('of two at once, one is stored and the other refused; the one plan acts once', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const intention = await w.store.intentions.create({ mindId: w.mind.id, objective: 'Read a', origin: 'operator' });
      const draft = draftOf([readStep('A')]);
      const outcomes = await Promise.allSettled([0, 1, 2].map(() => proposePlanForIntention(w.store, w.registry, operator, intention.id, draft)));
      const stored = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      assert.equal(stored.length, 1, JSON.stringify(outcomes.map((o) => o.status)));
      for (const error of refused) {
        assert.ok(error instanceof Conflict, String(error));
        assert.equal(error.problems[0]?.code, 'plan_in_progress');
      }
      const plans = await w.store.plans.listByIntention(intention.id);
      assert.deepEqual(
        plans.map((p) => p.status),
        ['validated'],
      );
      await w.executor().drain();
      assert.equal(w.log.calls.length, 1);
      // Once it has ended, another proposal may follow.
      assert.equal((await proposePlanForIntention(w.store, w.registry, operator, intention.id, draft).catch((e: unknown) => e)) instanceof Conflict, true, 'the intention is fulfilled now');
    });

    it("refuses a proposal for a dream's intention, which would never start and block every later one", async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const draft = draftOf([readStep('A')]);
      const dreamt = await recordDream(w.store, w.registry, operator, w.mind.name, { drafts: [draft] });
      const intentionId = dreamt.drafts[0]!.intention_id;
      const error = await proposePlanForIntention(w.store, w.registry, operator, intentionId, draft).catch((e: unknown) => e);
      assert.ok(error instanceof Conflict, String(error));
      assert.equal(error.problems[0]?.code, 'intention_dreamt');
      assert.equal(error.problems[0]?.path, 'intention_id');
      // Nothing was stored beside the dream's own draft, and nothing runs.
      assert.deepEqual(
        (await w.store.plans.listByIntention(intentionId)).map((p) => [p.origin, p.status]),
        [['dream', 'draft']],
      );
      await w.executor().drain();
      assert.equal(w.log.calls.length, 0);
    });
  });
}
