// Capabilities that exist only in tests, with implementations that count their calls, so
// every policy path can be exercised without touching a host.

import type { CapabilityDefinition } from '../../src/capabilities/definition.ts';
import { CapabilityError, type CapabilityImplementations } from '../../src/capabilities/implementation.ts';
import { createRegistry } from '../../src/capabilities/registry.ts';
import type { JsonObject } from '../../src/core/plan.ts';

const paramsSchema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9.-]+$' }, level: { type: 'integer', minimum: 0, maximum: 10 } },
  required: ['name'],
  additionalProperties: false,
};

function definition(name: string, over: Partial<CapabilityDefinition>): CapabilityDefinition {
  return {
    name,
    description: `test capability ${name}`,
    readOnly: true,
    idempotent: true,
    timeoutSeconds: 2,
    paramsSchema,
    target: (params: JsonObject) => String(params.name),
    locked: false,
    cost: { wall_seconds: 1, network_ops: 0, money: 0 },
    observes: ['name', 'value'],
    ...over,
  };
}

export const testRegistry = createRegistry([
  definition('test.read', {}),
  definition('test.write', { readOnly: false, idempotent: false }),
  definition('test.flaky', { readOnly: true, idempotent: true }),
  definition('test.locked', { locked: true }),
  definition('test.unimplemented', {}),
]);

export interface CallLog {
  calls: { capability: string; params: JsonObject }[];
}

export function testImplementations(log: CallLog): CapabilityImplementations {
  const record = (capability: string) => async (params: JsonObject) => {
    log.calls.push({ capability, params });
    return { observation: { name: params.name as string, value: `${capability} done` }, summary: `${capability} on ${String(params.name)}` };
  };
  return {
    'test.read': record('test.read'),
    'test.write': record('test.write'),
    'test.locked': record('test.locked'),
    'test.flaky': async (params) => {
      log.calls.push({ capability: 'test.flaky', params });
      throw new CapabilityError('unavailable', 'the test service is unavailable', true);
    },
  };
}
