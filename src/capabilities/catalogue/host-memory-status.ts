import type { CapabilityModule } from '../module.ts';
import { objectSchema } from './params.ts';

export const hostMemoryStatus: CapabilityModule = {
  definition: {
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
  },
  async implement(environment) {
    const { hostMemoryStatusImplementation } = await import('../host/host-memory-status.ts');
    return hostMemoryStatusImplementation({ procRoot: environment.procRoot });
  },
  // Reads only: on a simulated host it reads the machine's own /proc.
  example: () => ({}),
};
