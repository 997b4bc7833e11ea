// An executor that stalls after claiming a write (here: inside the precondition check) and
// loses its claim to recovery must not act when it wakes up: the write-ahead record may only
// be written under a lease that is still its own.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Executor } from '../../src/execution/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, type CallLog } from '../support/test-capabilities.ts';
import { draftOf, makeWorld, step, stepsOf } from './support.ts';

for (const kind of STORE_KINDS) {
  describe(`a claim lost before acting (${kind})`, () => {
    const current = useStore(kind);

    it('is not acted on: the write never runs and recovery’s verdict stands', async () => {
      const calls: CallLog = { calls: [] };
      const base = testImplementations(calls);
      let rescuer: Executor | undefined;
      let stalled = false;
      const w = await makeWorld(current(), {
        implementations: {
          ...base,
          // The precondition's read: the first time, the executor "stalls" past its lease and
          // another executor recovers the step meanwhile.
          'test.read': async (params, context) => {
            if (!stalled) {
              stalled = true;
              w.advance(3600);
              await rescuer!.drain();
            }
            return base['test.read']!(params, context);
          },
        },
      });
      await w.allow('test.write');
      await w.allow('test.read');
      const { plan } = await w.plan(
        draftOf([
          step('W1', {
            kind: 'capability',
            capability: 'test.write',
            params: { name: 'alpha' },
            precondition: { capability: 'test.read', params: { name: 'alpha' }, field: 'name', comparison: 'equals', value: 'alpha' },
          }),
        ]),
      );
      rescuer = w.executor();
      await w.executor().drain();

      assert.equal(calls.calls.filter((c) => c.capability === 'test.write').length, 0, 'the write never ran');
      assert.deepEqual(await stepsOf(w.store, plan.id), { W1: 'blocked' });
      const w1 = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal((await w.store.executions.listByOrigin(`plan_step:${w1.id}`)).length, 0, 'no write-ahead record for an action that did not happen');
    });
  });
}
