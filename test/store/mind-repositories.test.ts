// Repositories added for the mind model and the model role (migration 0002), on both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addSeconds } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import { passingValidation, sampleDraft, seedPlan } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`mind repositories (${kind})`, () => {
    const current = useStore(kind);

    it('record model calls and read them back identically', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `m-${newId()}` });
      const intention = await store.intentions.create({ mindId: mind.id, objective: 'o', origin: 'operator' });
      const call = await store.llmCalls.record({
        mindId: mind.id,
        intentionId: intention.id,
        model: 'qwen2.5-7b-instruct',
        baseUrl: 'http://127.0.0.1:8080/v1',
        outcome: 'http_error',
        statusCode: 503,
        promptTokens: 1200.4,
        completionTokens: 0,
        latencyMs: 87.6,
        error: 'the model server answered HTTP 503: overloaded',
        // A JSON schema pattern spells \u0000 as text: that is not a NUL and is stored.
        request: { messages: [{ role: 'user', content: 'pattern ^[^\\u0000-\\u001f]+$ ✓' }] },
        response: null,
      });
      assert.deepEqual(call, {
        id: call.id,
        mindId: mind.id,
        intentionId: intention.id,
        role: 'plan',
        model: 'qwen2.5-7b-instruct',
        baseUrl: 'http://127.0.0.1:8080/v1',
        outcome: 'http_error',
        statusCode: 503,
        finishReason: '',
        promptTokens: 1200,
        completionTokens: 0,
        latencyMs: 88,
        error: 'the model server answered HTTP 503: overloaded',
        request: { messages: [{ role: 'user', content: 'pattern ^[^\\u0000-\\u001f]+$ ✓' }] },
        response: null,
        createdAt: clock.now(),
      });
      assert.deepEqual(await store.llmCalls.get(call.id), call);
      assert.deepEqual(await store.llmCalls.listByMind(mind.id), [call]);
      await assert.rejects(store.llmCalls.record({ mindId: mind.id, model: 'm', baseUrl: '', outcome: 'exploded' as 'timeout', latencyMs: 1, request: {} }), /llm_calls_outcome_check/);
      await assert.rejects(store.llmCalls.record({ mindId: mind.id, model: 'm', baseUrl: '', outcome: 'timeout', latencyMs: 1, request: { text: 'a\u0000b' } }), /NUL/);
    });

    it('keep one procedural memory per plan', async () => {
      const { store } = current();
      const { mind, intention, plan } = await seedPlan(store);
      const input = {
        mindId: mind.id,
        intentionId: intention.id,
        planId: plan.id,
        objective: 'nginx serves pages again',
        strategy: 'direct',
        summary: 'To get nginx serving: run service.restart on nginx.service.',
        steps: [{ key: 'restart', does: 'run service.restart on nginx.service' }],
        confidence: 0.6,
        verified: false,
        revision: 1,
      };
      const first = await store.proceduralMemories.record(input);
      assert.equal(first.created, true);
      const second = await store.proceduralMemories.record({ ...input, summary: 'something else' });
      assert.deepEqual(second, { memory: first.memory, created: false });
      assert.deepEqual(await store.proceduralMemories.getByPlan(plan.id), first.memory);
    });

    it('list overdue predictions and resolve one only while open, and confirm only inside the window', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `m-${newId()}` });
      const base = { mindId: mind.id, statement: 's', verification: {}, confidence: 0.7, windowOpensAt: clock.now() };
      const soon = await store.predictions.create({ ...base, windowClosesAt: addSeconds(clock.now(), 10) });
      const later = await store.predictions.create({ ...base, windowClosesAt: addSeconds(clock.now(), 100) });
      clock.advance(30);
      const overdue = (await store.predictions.listOverdue(clock.now())).map((p) => p.id);
      assert.ok(overdue.includes(soon.id) && !overdue.includes(later.id));
      assert.equal(await store.predictions.resolve(soon.id, 'confirmed', {}, { closesNoEarlierThan: clock.now() }), undefined);
      assert.equal((await store.predictions.resolve(later.id, 'confirmed', { ok: true }, { closesNoEarlierThan: clock.now() }))?.status, 'confirmed');
      assert.equal(await store.predictions.resolve(later.id, 'refuted', {}), undefined);
      assert.deepEqual(
        (await store.predictions.listByMind(mind.id, { status: 'confirmed' })).map((p) => p.id),
        [later.id],
      );
    });

    it('resume a parent only once none of its subordinates is open', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `m-${newId()}` });
      const parent = await store.intentions.create({ mindId: mind.id, objective: 'p', origin: 'operator' });
      await store.intentions.transition(parent.id, 'active', 'blocked', 'awaiting_subordinate');
      const a = await store.intentions.create({ mindId: mind.id, parentId: parent.id, objective: 'a', origin: 'subordinate' });
      const b = await store.intentions.create({ mindId: mind.id, parentId: parent.id, objective: 'b', origin: 'subordinate' });
      assert.deepEqual(
        (await store.intentions.listSubordinates(parent.id)).map((i) => i.id),
        [a.id, b.id],
      );
      await store.intentions.transition(a.id, 'active', 'fulfilled', 'completed');
      assert.equal(await store.intentions.resumeWhenSubordinatesClosed(parent.id), undefined);
      await store.intentions.transition(b.id, 'active', 'abandoned', 'cancelled');
      const resumed = await store.intentions.resumeWhenSubordinatesClosed(parent.id);
      assert.equal(resumed?.status, 'active');
      assert.equal(resumed?.reason, '');
      assert.equal(await store.intentions.resumeWhenSubordinatesClosed(parent.id), undefined, 'an active parent is not resumed again');

      // Blocked for another reason (an operator must check an outcome), it stays blocked.
      await store.intentions.transition(parent.id, 'active', 'blocked', 'outcome_unverified');
      assert.equal(await store.intentions.resumeWhenSubordinatesClosed(parent.id), undefined);
      assert.equal((await store.intentions.get(parent.id))?.reason, 'outcome_unverified');
    });

    it("list an intention's plans by revision", async () => {
      const { store, clock } = current();
      const { mind, intention, plan } = await seedPlan(store);
      clock.advance(1);
      const next = await store.plans.create({
        mindId: mind.id,
        intentionId: intention.id,
        origin: 'replan',
        revision: 2,
        supersedes: plan.id,
        draft: sampleDraft(),
        validation: passingValidation(),
        status: 'validated',
      });
      const listed = await store.plans.listByIntention(intention.id);
      assert.deepEqual(
        listed.map((p) => [p.id, p.revision]),
        [
          [plan.id, 1],
          [next.id, 2],
        ],
      );
      assert.equal('steps' in listed[0]!, false, 'listing does not load steps');
      assert.deepEqual(await store.plans.listByIntention(newId()), []);
    });
  });
}
