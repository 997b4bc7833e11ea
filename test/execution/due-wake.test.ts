// The loop's sleep follows the work: with the default interval (fifteen seconds, as the
// specification has the executor tick), a step that only time makes due (a wait ending) is acted
// on when it falls due, because the loop sleeps until the store's next due time at the latest.
// The store runs on real time here, since the loop sleeps for real. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/core/clock.ts';
import { DEFAULT_TICK_INTERVAL_MS } from '../../src/execution/executor.ts';
import { DEFAULT_TICK_MS } from '../../src/daemon/config.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep, step, stepsOf } from './support.ts';

/** The system's time, in the shape the test stores take. */
class RealTime extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

for (const kind of STORE_KINDS) {
  describe(`the loop wakes for due work (${kind})`, () => {
    const current = useStore(kind, { clock: new RealTime() });

    it('acts on a wait when it ends, long before the default interval passes', async () => {
      assert.equal(DEFAULT_TICK_MS, DEFAULT_TICK_INTERVAL_MS);
      assert.equal(DEFAULT_TICK_INTERVAL_MS, 15_000);
      const w = await makeWorld(current());
      await w.allow('test.read');
      const executor = w.executor();
      executor.start();
      try {
        const { plan } = await w.plan(draftOf([step('W', { kind: 'wait', spec: { seconds: 1 } }), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['W'] })]));
        await w.store.events.append({ type: 'plan_validated', mindId: w.mind.id, planId: plan.id });
        let waiting = await w.store.plans.get(plan.id);
        for (let i = 0; i < 500 && waiting?.steps[0]?.status !== 'waiting' && waiting?.status !== 'completed'; i += 1) {
          await sleep(10);
          waiting = await w.store.plans.get(plan.id);
        }
        const due = waiting?.steps[0]?.nextRunAt;
        assert.ok(due, 'the wait is scheduled');
        // Nothing wakes the loop from here on: only its timer can bring it back before 15 s.
        const finished = async () => (await w.store.plans.get(plan.id))?.status === 'completed';
        while (!(await finished()) && Date.now() < due.getTime() + 6_000) await sleep(25);
        assert.equal((await w.store.plans.get(plan.id))?.status, 'completed', 'acted on within seconds of the wait ending');
        assert.deepEqual(await stepsOf(w.store, plan.id), { W: 'completed', B: 'completed' });
      } finally {
        await executor.stop();
      }
      assert.deepEqual(w.errors, []);
    });

    it('knows the next due time of the work it may do, and none for a paused plan', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      assert.equal(await w.store.executorQueries.nextDueAt({ now: new Date(), host: null }), null);
      const { plan } = await w.plan(draftOf([step('W', { kind: 'wait', spec: { seconds: 300 } })]));
      await w.executor().drain();
      const scheduled = (await w.store.plans.get(plan.id))!.steps[0]!.nextRunAt!;
      const next = await w.store.executorQueries.nextDueAt({ now: new Date(), host: null });
      assert.equal(next?.getTime(), scheduled.getTime());
      const { pausePlan } = await import('../../src/operations/index.ts');
      await pausePlan(w.store, { tokenId: null, operator: 'alice', role: 'operator', mindId: null }, plan.id);
      assert.equal(await w.store.executorQueries.nextDueAt({ now: new Date(), host: null }), null);
    });
  });
}
