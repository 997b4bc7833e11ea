import type { CapabilityDefinition } from '../definition.ts';
import { objectSchema } from './params.ts';

export const hostMemoryStatus: CapabilityDefinition = {
  name: 'host.memory.status',
  description: 'Reports memory and swap totals and use of the host.',
  readOnly: true,
  idempotent: true,
  timeoutSeconds: 5,
  paramsSchema: objectSchema({}),
  target: () => 'host',
  locked: false,
  cost: { wall_seconds: 1, network_ops: 0, money: 0 },
  observes: ['total_bytes', 'available_bytes', 'used_percent', 'swap_total_bytes', 'swap_used_bytes'],
};
