import type { CapabilityModule } from '../module.ts';
import { MAX_PROCESS_LIMIT, objectSchema } from './params.ts';

/** Lists the busiest processes by name and resource use; command lines are never read. */
export const hostProcessList: CapabilityModule = {
  definition: {
    name: 'host.process.list',
    description: 'Lists the top processes of the host by CPU or memory use, without their command lines.',
    readOnly: true,
    idempotent: true,
    timeoutSeconds: 10,
    paramsSchema: objectSchema({
      sort: { type: 'string', enum: ['cpu', 'memory'] },
      limit: { type: 'integer', minimum: 1, maximum: MAX_PROCESS_LIMIT },
    }),
    target: () => 'host',
    locked: false,
    cost: { wall_seconds: 1, network_ops: 0, money: 0 },
    observes: ['processes', 'count'],
  },
  async implement(environment) {
    const { hostProcessListImplementation } = await import('../host/host-process-list.ts');
    return hostProcessListImplementation({ procRoot: environment.procRoot });
  },
  // Reads only: on a simulated host it reads the machine's own /proc.
  example: () => ({ sort: 'memory', limit: 3 }),
};
