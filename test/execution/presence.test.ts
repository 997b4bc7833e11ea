// An executor on PostgreSQL holds its presence while its loop runs (src/store/presence.ts):
// it claims nothing before the lock is held, since a claim made without it could be taken over
// by an executor on another host that finds the lock free, and it lets the lock go only once it
// has stopped, with nothing of its own in hand.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newExecutorName } from '../../src/execution/claimants.ts';
import { useStore } from '../support/stores.ts';
import { until } from '../support/until.ts';
import { draftOf, makeWorld, step } from './support.ts';

describe("an executor's presence (postgres)", () => {
  const current = useStore('postgres');

  it('claims nothing until its presence is held, then runs what is due; lets it go once stopped', async () => {
    const w = await makeWorld(current());
    await w.allow('test.read');
    const { plan } = await w.plan(draftOf([step('R', { kind: 'capability', capability: 'test.read', params: { name: 'probe' } })]));
    const stepId = plan.steps[0]!.id;
    const name = newExecutorName('web-9');
    // The executor's own earlier session, not yet ended by the server, still holds its key.
    const earlier = w.store.presence.hold(name);
    await earlier.whenHeld();
    const warnings: string[] = [];
    const executor = w.executor({ name, intervalMs: 50, log: { debug() {}, error: (m) => w.errors.push(m), warn: (m) => warnings.push(m) } });
    executor.start();
    try {
      await until(async () => warnings.some((m) => m.includes('claiming nothing until it does')), 'the executor to say why it waits');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await w.store.steps.get(stepId))?.status, 'pending', 'nothing is started or claimed without presence');
      assert.equal((await w.store.plans.get(plan.id))?.status, 'validated');
      assert.equal(executor.ticks, 0, 'no pass ran');
      await earlier.release();
      await until(async () => (await w.store.steps.get(stepId))?.status === 'completed', 'the step to run once the presence is held');
      assert.deepEqual(await w.store.presence.absent([name]), [], 'held while the loop runs');
      assert.ok(
        warnings.some((m) => m.includes('presence again')),
        `the executor says it claims again: ${warnings.join('; ')}`,
      );
    } finally {
      await earlier.release();
      await executor.stop();
    }
    assert.deepEqual(await w.store.presence.absent([name]), [name], 'let go on stop');
    assert.deepEqual(w.errors, []);
  });
});
