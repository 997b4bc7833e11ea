// Acting on an allowed call (src/capabilities/perform.ts): the implementation's answer, its
// refusal, its failure or its silence past the definition's timeout each become the outcome the
// call's records carry, and no timer outlives the call.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CapabilityDefinition } from '../../src/capabilities/definition.ts';
import { CapabilityError, type CapabilityImplementation } from '../../src/capabilities/implementation.ts';
import { act, allow } from '../../src/capabilities/perform.ts';

function definition(readOnly: boolean, timeoutSeconds = 5): CapabilityDefinition {
  return {
    name: readOnly ? 'probe.read' : 'probe.write',
    description: 'a capability for these tests',
    readOnly,
    idempotent: readOnly,
    timeoutSeconds,
    paramsSchema: { type: 'object' },
    target: () => 'unit',
    locked: false,
    cost: { wall_seconds: 0, network_ops: 0, money: 0 },
    observes: ['value'],
  };
}

function acting(def: CapabilityDefinition, implementation: CapabilityImplementation) {
  const allowed = allow(
    { mindId: 'mind', capability: def.name, params: {}, origin: 'operator:tester' },
    { definition: def, target: 'unit', params: {}, verdict: { decision: 'allow', source: 'rule', approvers: 1, reason: 'allowed by rule' } },
  );
  return act({ [def.name]: implementation }, allowed);
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('acting on an allowed call', () => {
  it("records the implementation's outcome, and clears the call's timer", async () => {
    const before = timers();
    const { result, records } = await acting(definition(true), async () => ({ observation: { value: 1 }, summary: 'one' }));
    assert.equal(result.status, 'executed');
    assert.equal(records.executions[0]?.status, 'succeeded');
    assert.equal(timers(), before, 'no timer left behind');
  });

  it('fails a call past its timeout, aborting the signal the implementation was given; a read may be tried again, a write not', async () => {
    for (const readOnly of [true, false]) {
      let signal: AbortSignal | undefined;
      const started = performance.now();
      const { result, records } = await acting(definition(readOnly, 0.05), (_params, context) => {
        signal = context.signal;
        return new Promise(() => {});
      });
      assert.ok(performance.now() - started >= 45, 'it waited for the timeout');
      assert.deepEqual(result.status === 'failed' && { code: result.code, retrySafe: result.retrySafe }, { code: 'timeout', retrySafe: readOnly });
      assert.equal(signal?.aborted, true);
      const written = readOnly ? records.executions[0]?.status : records.finished[0]?.outcome.status;
      assert.equal(written, 'failed');
    }
  });

  it("keeps a refusal's code, and may try again only what can be repeated", async () => {
    for (const readOnly of [true, false]) {
      const { result } = await acting(definition(readOnly), async () => {
        throw new CapabilityError('unit_not_found', 'no such unit', true);
      });
      assert.deepEqual(result.status === 'failed' && { code: result.code, error: result.error, retrySafe: result.retrySafe }, {
        code: 'unit_not_found',
        error: 'no such unit',
        retrySafe: readOnly,
      });
    }
  });

  it('fails a call whose implementation throws before it answers with a promise, leaving no timer', async () => {
    const before = timers();
    const { result } = await acting(definition(true), () => {
      throw new Error('broken before it began');
    });
    assert.deepEqual(result.status === 'failed' && { code: result.code, error: result.error }, { code: 'capability_error', error: 'broken before it began' });
    assert.equal(timers(), before, 'no timer left behind');
  });
});
