// The loop and the operator's levers: a running executor is woken at once by an event that can
// unblock work (its interval here is an hour, so nothing else could move the plan); stop()
// leaves nothing claimed; quiescing a forked mind's inherited work blocks it until released.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CapabilityImplementations } from '../../src/capabilities/implementation.ts';
import type { JsonObject } from '../../src/core/plan.ts';
import { quiesceMind } from '../../src/execution/quiesce.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations } from '../support/test-capabilities.ts';
import { draftOf, makeWorld, readStep, step, stepsOf } from './support.ts';

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `gave up waiting for: ${what}`);
    await sleep(10);
  }
}

for (const kind of STORE_KINDS) {
  describe(`executor loop (${kind})`, () => {
    const current = useStore(kind);

    it('is woken by a waking event instead of waiting for its interval, and stops with nothing left claimed', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      // What the observer sees of the approved step's claim: its status then, and whether the act had run.
      const claims: { approval: string; status: string; actedBefore: boolean }[] = [];
      const executor = w.executor({
        intervalMs: 3_600_000,
        observer: { approvalClaimed: (approval, claimed) => claims.push({ approval: approval.id, status: claimed.status, actedBefore: w.log.calls.some((c) => c.capability === 'test.write') }) },
      });
      executor.start();
      try {
        await until(async () => executor.ticks >= 1, 'the first tick');
        // The loop now sleeps for an hour unless something wakes it.
        const { plan, intention } = await w.plan(draftOf([readStep('A')]));
        await w.store.events.append({ type: 'plan_validated', mindId: w.mind.id, intentionId: intention.id, planId: plan.id });
        await until(async () => (await w.store.plans.get(plan.id))?.status === 'completed', 'the plan to complete');

        // An approval decided elsewhere wakes it too.
        const { plan: write } = await w.plan(draftOf([step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } })]));
        await w.store.events.append({ type: 'plan_validated', mindId: w.mind.id, planId: write.id });
        await until(async () => (await stepsOf(w.store, write.id)).W === 'awaiting_approval', 'the approval request');
        const approvalId = (await w.store.plans.get(write.id))!.steps[0]!.approvalId!;
        await w.service.approve(approvalId, 'alice');
        await until(async () => (await stepsOf(w.store, write.id)).W === 'completed', 'the approved step to complete');
        // The wake-up named the approval: the claim was reported once it committed, before the act.
        assert.deepEqual(claims, [{ approval: approvalId, status: 'executing', actedBefore: false }]);
      } finally {
        await executor.stop();
      }
      assert.equal(executor.running, false);
      const claimed = await w.store.executorQueries.dueSteps({ now: new Date('2999-01-01T00:00:00Z'), host: null, limit: 10 });
      assert.deepEqual(
        claimed.filter((s) => s.status === 'executing'),
        [],
      );
      assert.deepEqual(w.errors, []);
    });

    it('performs an approval at once, while its pass is still busy acting on another step', async () => {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const calls: { capability: string; params: JsonObject }[] = [];
      const base = testImplementations({ calls });
      // A read that hangs until the test lets it go: the pass acting on it cannot end before.
      let slowStarted = false;
      const implementations: CapabilityImplementations = {
        ...base,
        'test.read': async (params, context) => {
          if (params.name !== 'slow') return base['test.read']!(params, context);
          slowStarted = true;
          await held;
          return base['test.read']!(params, context);
        },
      };
      const w = await makeWorld(current(), { implementations });
      await w.allow('test.read');
      const executor = w.executor({ intervalMs: 3_600_000 });
      executor.start();
      try {
        const { plan: write } = await w.plan(draftOf([step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } })]));
        await w.store.events.append({ type: 'plan_validated', mindId: w.mind.id, planId: write.id });
        await until(async () => (await stepsOf(w.store, write.id)).W === 'awaiting_approval', 'the approval request');
        const { plan: slow } = await w.plan(draftOf([readStep('S', 'test.read', { name: 'slow' })]));
        await w.store.events.append({ type: 'plan_validated', mindId: w.mind.id, planId: slow.id });
        // A read acts before it moves: the step stays ready while the implementation hangs.
        await until(async () => slowStarted, 'the slow read to start');
        const approvalId = (await w.store.plans.get(write.id))!.steps[0]!.approvalId!;
        await w.service.approve(approvalId, 'alice');
        // The pass is stuck on the slow read; the approved write runs regardless.
        await until(async () => (await stepsOf(w.store, write.id)).W === 'completed', 'the approved step to complete');
        assert.equal((await stepsOf(w.store, slow.id)).S, 'ready', 'the slow read is still acting');
        release();
        await until(async () => (await stepsOf(w.store, slow.id)).S === 'completed', 'the slow read to complete');
      } finally {
        release();
        await executor.stop();
      }
      assert.deepEqual(w.errors, []);
    });

    it("takes an approval's wake-up as a hint: a request it misnames is read and performed as stored, once", async () => {
      const w = await makeWorld(current());
      const executor = w.executor({});
      const { plan: write } = await w.plan(draftOf([step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } })]));
      const { plan: other } = await w.plan(draftOf([step('X', { kind: 'capability', capability: 'test.write', params: { name: 'x' } })]));
      await executor.drain();
      assert.equal((await stepsOf(w.store, write.id)).W, 'awaiting_approval');
      const approvalId = (await w.store.plans.get(write.id))!.steps[0]!.approvalId!;
      await w.service.approve(approvalId, 'alice');

      // The wake-up names the other plan's step: that step is not the request's, so nothing of it moves.
      const otherStep = (await w.store.plans.get(other.id))!.steps[0]!;
      assert.equal(await executor.performApproval(approvalId, { mindId: w.mind.id, origin: `plan_step:${otherStep.id}` }), true);
      assert.equal((await stepsOf(w.store, write.id)).W, 'completed');
      assert.equal((await stepsOf(w.store, other.id)).X, 'awaiting_approval');
      assert.deepEqual(
        w.log.calls.map((c) => c.params.name),
        ['w'],
      );
      // Named rightly, an approval already performed is not performed again.
      const writeStep = (await w.store.plans.get(write.id))!.steps[0]!;
      assert.equal(await executor.performApproval(approvalId, { mindId: w.mind.id, origin: `plan_step:${writeStep.id}` }), false);
      assert.equal(w.log.calls.length, 1);
      assert.deepEqual(w.errors, []);
    });

    it('quiesces a forked mind: open steps blocked with their approval ids cleared, plans blocked, intentions suspended', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan, intention } = await w.plan(
        draftOf([step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } }), readStep('R', 'test.read', { name: 'r' }, { depends_on: ['W'] })]),
      );
      const executor = w.executor();
      await executor.drain();
      assert.equal((await stepsOf(w.store, plan.id)).W, 'awaiting_approval');
      const done = await quiesceMind(w.store, w.mind.id);
      assert.deepEqual(done, { plans: 1, steps: 2, intentions: 2 });
      const blocked = await w.store.plans.get(plan.id);
      assert.equal(blocked?.status, 'blocked');
      assert.ok(blocked!.steps.every((s) => s.status === 'blocked' && s.approvalId === null && s.requestId === null));
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'suspended');
      await executor.drain();
      assert.equal(w.log.calls.length, 0, 'nothing inherited moves on its own');
    });
  });
}
