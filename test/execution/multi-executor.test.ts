// Duplicate executors in one process: two Executor loops over one store race over many plans.
// Every move is a conditional update, so each step is moved to completed by exactly one of them
// and every non-idempotent write runs exactly once (it is claimed before it acts). A read acts
// before its move, so two executors racing for it may both read; the loser's read is still
// recorded under the step's origin, and only the winner's is the step's outcome.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep, step, untilPlansClose } from './support.ts';

const PLANS = 30;

for (const kind of STORE_KINDS) {
  describe(`two executors in one process (${kind})`, () => {
    const current = useStore(kind);

    it(`run each step of ${PLANS} plans exactly once`, async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      await w.allow('test.write');
      const plans = [];
      for (let i = 0; i < PLANS; i += 1) {
        const { plan } = await w.plan(
          draftOf([
            readStep('A', 'test.read', { name: `a${i}` }),
            step('B', { kind: 'capability', capability: 'test.write', params: { name: `b${i}` }, depends_on: ['A'] }),
            readStep('C', 'test.read', { name: `c${i}` }, { depends_on: ['A'] }),
          ]),
        );
        plans.push(plan);
      }
      const one = w.executor({ intervalMs: 5, concurrency: 3, batch: 20 });
      const two = w.executor({ intervalMs: 5, concurrency: 3, batch: 20 });
      one.start();
      two.start();
      try {
        await untilPlansClose(w);
      } finally {
        await Promise.all([one.stop(), two.stop()]);
      }
      assert.equal(one.running || two.running, false);
      assert.deepEqual(w.errors, []);
      const writes = w.log.calls.filter((c) => c.capability === 'test.write').map((c) => String(c.params.name));
      assert.equal(writes.length, PLANS, 'every write ran once');
      assert.equal(new Set(writes).size, PLANS);
      const events = await w.store.events.list({ mindId: w.mind.id, limit: 10_000 });
      for (const plan of plans) {
        const stored = await w.store.plans.get(plan.id);
        assert.equal(stored?.status, 'completed');
        for (const s of stored!.steps) {
          assert.equal(s.status, 'completed');
          const completions = events.filter((e) => e.type === 'plan_step_completed' && e.stepId === s.id);
          assert.equal(completions.length, 1, `${s.key} of plan ${plan.id} was completed by one executor`);
          const records = await w.store.executions.listByOrigin(`plan_step:${s.id}`);
          if (s.key === 'B') assert.equal(records.length, 1, `the write of plan ${plan.id} ran once`);
          else assert.ok(records.length >= 1 && records.length <= 2, `${s.key} of plan ${plan.id} was read once, or twice by racing executors`);
          assert.ok(
            records.some((r) => r.id === s.executionId),
            'the step names the execution that completed it',
          );
        }
      }
      const finishers = new Set(events.filter((e) => e.type === 'plan_step_completed').map((e) => e.data.executor));
      assert.ok(finishers.size >= 1);
    });

    it('two executors that both find a write ready and both ask for approval leave one request: the one its step waits on', async () => {
      // Both read the precondition before either moves the step: a barrier of two reads.
      let arrived = 0;
      let bothArrived: () => void = () => {};
      const barrier = new Promise<void>((resolve) => (bothArrived = resolve));
      const w = await makeWorld(current(), {
        implementations: {
          'test.read': async (params) => {
            if (params.name !== 'probe') return { observation: { name: String(params.name), value: 'up' }, summary: 'read' };
            arrived += 1;
            if (arrived === 2) bothArrived();
            await barrier;
            return { observation: { name: String(params.name), value: 'down' }, summary: 'read' };
          },
          'test.write': async (params) => ({ observation: { name: String(params.name), value: 'written' }, summary: 'written' }),
        },
      });
      await w.allow('test.read');
      const precondition = { capability: 'test.read', params: { name: 'probe' }, field: 'value', comparison: 'exists' as const };
      // Started, with the write ready: a pass of one round runs the first step and promotes the write.
      const { plan } = await w.plan(
        draftOf([readStep('A', 'test.read', { name: 'first' }), step('W', { kind: 'capability', capability: 'test.write', params: { name: 'target' }, precondition, depends_on: ['A'] })]),
      );
      const stepId = plan.steps.find((s) => s.key === 'W')!.id;
      await w.executor({ rounds: 1 }).tick();
      assert.equal((await w.store.steps.get(stepId))?.status, 'ready');
      await Promise.all([w.executor().tick(), w.executor().tick()]);
      assert.equal(arrived, 2, 'both executors read the precondition');
      const waiting = (await w.store.steps.get(stepId))!;
      assert.equal(waiting.status, 'awaiting_approval');
      const requests = await w.store.approvals.listByOrigin(`plan_step:${stepId}`);
      assert.deepEqual(
        requests.map((r) => r.id),
        [waiting.approvalId],
        'only the request the step waits on was raised',
      );
      const events = await w.store.events.list({ mindId: w.mind.id, limit: 1000 });
      assert.deepEqual(
        events.filter((e) => e.type === 'approval_requested' || e.type === 'tool_requested').map((e) => e.data.approval_id),
        [waiting.approvalId, waiting.approvalId],
        'and only its events',
      );
      assert.equal(events.filter((e) => e.type === 'policy_decision' && e.data.origin === `plan_step:${stepId}`).length, 2, 'both decisions stay traceable by origin');
      assert.deepEqual(w.errors, []);
    });
  });
}
