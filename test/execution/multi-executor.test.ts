// Duplicate executors in one process: two Executor loops over one store race over many plans.
// Claims are conditional updates, so every step runs exactly once, which the execution records
// (one per step origin) and the implementations' own call log both show.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep, step } from './support.ts';

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
      const deadline = Date.now() + 60_000;
      try {
        for (;;) {
          const open = await w.store.plans.listByMind(w.mind.id, { status: ['validated', 'executing'], limit: 1 });
          if (open.length === 0) break;
          assert.ok(Date.now() < deadline, 'the plans finish within a minute');
          await sleep(20);
        }
      } finally {
        await Promise.all([one.stop(), two.stop()]);
      }
      assert.equal(one.running || two.running, false);
      assert.deepEqual(w.errors, []);
      assert.equal(w.log.calls.length, PLANS * 3, 'every step ran once');
      for (const plan of plans) {
        const stored = await w.store.plans.get(plan.id);
        assert.equal(stored?.status, 'completed');
        for (const s of stored!.steps) {
          assert.equal(s.status, 'completed');
          assert.equal((await w.store.executions.listByOrigin(`plan_step:${s.id}`)).length, 1, `${s.key} of plan ${plan.id} ran once`);
        }
      }
      const starters = new Set((await w.store.events.list({ mindId: w.mind.id, limit: 5000 })).filter((e) => e.type === 'plan_step_started').map((e) => e.data.executor));
      assert.ok(starters.size >= 1);
    });
  });
}
