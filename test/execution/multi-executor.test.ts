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
  });
}
