// An executor that stalls before claiming a write (here: inside the precondition check, which is
// read before the claim) while another executor runs the step must not act when it wakes up:
// its claim, which carries the write-ahead record, loses, so neither the record nor the write
// happens.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Executor } from '../../src/execution/executor.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, type CallLog } from '../support/test-capabilities.ts';
import { draftOf, makeWorld, step, stepsOf } from './support.ts';

for (const kind of STORE_KINDS) {
  describe(`a claim lost before acting (${kind})`, () => {
    const current = useStore(kind);

    it('is not acted on: the write runs once, by the executor that won, and leaves one record', async () => {
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

      assert.equal(calls.calls.filter((c) => c.capability === 'test.write').length, 1, 'the write ran once');
      assert.deepEqual(await stepsOf(w.store, plan.id), { W1: 'completed' });
      const w1 = (await w.store.plans.get(plan.id))!.steps[0]!;
      const writes = (await w.store.executions.listByOrigin(`plan_step:${w1.id}`)).filter((e) => e.capability === 'test.write');
      assert.deepEqual(
        writes.map((e) => e.status),
        ['succeeded'],
        'no write-ahead record for the act that did not happen',
      );
      assert.equal(w1.executionId, writes[0]?.id);
    });

    it('a request step whose lease ran out inside its request leaves one open request: the one its step waits on', async () => {
      const w = await makeWorld(current());
      const request = {
        capability: 'test.read',
        target_pattern: 'svc-*',
        duration_seconds: 600,
        max_operations: 5,
        reason: 'to read the services',
        risk: 'little',
        mitigation: 'read only',
        fallback: 'ask again',
      };
      const { plan } = await w.plan(draftOf([step('R', { kind: 'request_capability', spec: { request } })]));
      const stepId = plan.steps[0]!.id;
      // A's request stalls (its call in flight) until released; meanwhile its lease runs out.
      let entered: () => void = () => {};
      const inCall = new Promise<void>((resolve) => (entered = resolve));
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const stalled: typeof w.service.requestCapability = async (input) => {
        entered();
        await gate;
        return w.service.requestCapability(input);
      };
      const stalling = new Proxy(w.service, {
        get: (service, key) => {
          if (key === 'requestCapability') return stalled;
          const value = Reflect.get(service, key, service);
          return typeof value === 'function' ? value.bind(service) : value;
        },
      });
      const first = w.executor({ capabilities: stalling }).tick();
      await inCall;
      w.advance(3600);
      await w.executor().tick();
      release();
      await first;
      const waiting = (await w.store.steps.get(stepId))!;
      assert.equal(waiting.status, 'awaiting_grant');
      const requests = await w.store.capabilityRequests.listByOrigin(`plan_step:${stepId}`);
      assert.equal(requests.length, 2, 'both executors asked');
      assert.deepEqual(
        requests.filter((r) => r.status === 'open').map((r) => r.id),
        [waiting.requestId],
        'the one nothing waits on is withdrawn',
      );
      assert.deepEqual(w.errors, []);
    });
  });
}
