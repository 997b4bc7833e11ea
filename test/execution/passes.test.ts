// One executor running passes side by side (ExecutorOptions.passes): while more is due than one
// pass takes, extra passes run other due steps at the same time, and since they leave each
// other's steps and plans alone, every step, reads included, runs exactly once.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CapabilityImplementation } from '../../src/capabilities/implementation.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, type CallLog } from '../support/test-capabilities.ts';
import { draftOf, makeWorld, readStep, step, untilPlansClose } from './support.ts';

const PLANS = 24;

for (const kind of STORE_KINDS) {
  describe(`passes side by side in one executor (${kind})`, () => {
    const current = useStore(kind);

    it(`share ${PLANS} plans between them and run every step once`, async () => {
      // Reads that take a while, counting how many run at once: with one step at a time per pass
      // (concurrency 1), two at once can only come from two passes.
      const log: CallLog = { calls: [] };
      const base = testImplementations(log);
      let running = 0;
      let most = 0;
      const slowRead: CapabilityImplementation = async (params, context) => {
        running += 1;
        most = Math.max(most, running);
        try {
          await sleep(10);
          return await base['test.read']!(params, context);
        } finally {
          running -= 1;
        }
      };
      const w = await makeWorld(current(), { implementations: { ...base, 'test.read': slowRead } });
      await w.allow('test.read');
      await w.allow('test.write');
      const plans = [];
      for (let i = 0; i < PLANS; i += 1) {
        const draft = draftOf([
          readStep('A', 'test.read', { name: `a${i}` }),
          step('B', { kind: 'capability', capability: 'test.write', params: { name: `b${i}` }, depends_on: ['A'] }),
          readStep('C', 'test.read', { name: `c${i}` }, { depends_on: ['A'] }),
        ]);
        plans.push((await w.plan(draft)).plan);
      }
      const executor = w.executor({ intervalMs: 5, concurrency: 1, batch: 4, passes: 3 });
      executor.start();
      try {
        await untilPlansClose(w);
      } finally {
        await executor.stop();
      }
      assert.deepEqual(w.errors, []);
      assert.ok(most >= 2, `passes ran side by side (at most ${most} read at once)`);
      const names = log.calls.map((c) => String(c.params.name));
      assert.equal(names.length, PLANS * 3, 'every step acted once: no read was repeated by a second pass');
      assert.equal(new Set(names).size, PLANS * 3);
      for (const plan of plans) {
        const stored = await w.store.plans.get(plan.id);
        assert.equal(stored?.status, 'completed');
        for (const s of stored!.steps) {
          assert.equal(s.status, 'completed');
          const records = await w.store.executions.listByOrigin(`plan_step:${s.id}`);
          assert.deepEqual(
            records.map((r) => r.id),
            [s.executionId],
            `${s.key} of plan ${plan.id} has the one execution that completed it`,
          );
        }
      }
    });

    it('refuses a number of passes that is not a whole number from 1 to 8', async () => {
      const w = await makeWorld(current());
      for (const passes of [0, 1.5, 9, Number.NaN]) assert.throws(() => w.executor({ passes }), { name: 'RangeError', message: /passes must be a whole number from 1 to 8/ });
    });
  });
}
