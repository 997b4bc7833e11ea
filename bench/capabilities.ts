// Capabilities that exist only for the benchmark: a trivial read and a trivial write, so what is
// measured is the executor and the store, not a host.

import type { CapabilityDefinition } from '../src/capabilities/definition.ts';
import type { CapabilityImplementations } from '../src/capabilities/implementation.ts';
import { createRegistry } from '../src/capabilities/registry.ts';
import type { JsonObject } from '../src/core/plan.ts';

const paramsSchema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9.-]+$' } },
  required: ['name'],
  additionalProperties: false,
};

function definition(name: string, readOnly: boolean): CapabilityDefinition {
  return {
    name,
    description: `benchmark capability ${name}`,
    readOnly,
    idempotent: readOnly,
    timeoutSeconds: 5,
    paramsSchema,
    target: (params: JsonObject) => String(params.name),
    locked: false,
    cost: { wall_seconds: 0, network_ops: 0, money: 0 },
    observes: ['name', 'value'],
  };
}

export const benchRegistry = createRegistry([definition('bench.read', true), definition('bench.write', false)]);

export const benchImplementations: CapabilityImplementations = {
  'bench.read': async (params) => ({ observation: { name: String(params.name), value: 'ok' }, summary: 'read' }),
  'bench.write': async (params) => ({ observation: { name: String(params.name), value: 'written' }, summary: 'written' }),
};
