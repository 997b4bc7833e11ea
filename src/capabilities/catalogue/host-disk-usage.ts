import type { JsonObject } from '../../core/plan.ts';
import type { CapabilityModule } from '../module.ts';
import { hostPathParam, objectSchema } from './params.ts';

export const hostDiskUsage: CapabilityModule = {
  definition: {
    name: 'host.disk.usage',
    description: 'Reports file-system usage of the host, or of the file system holding one path.',
    readOnly: true,
    idempotent: true,
    timeoutSeconds: 10,
    paramsSchema: objectSchema({ path: hostPathParam }),
    target: (params: JsonObject) => (typeof params.path === 'string' ? params.path : '/'),
    locked: false,
    cost: { wall_seconds: 1, network_ops: 0, money: 0 },
    observes: ['filesystems', 'path', 'used_percent', 'available_bytes', 'total_bytes'],
  },
  async implement(environment) {
    const { hostDiskUsageImplementation } = await import('../host/host-disk-usage.ts');
    return hostDiskUsageImplementation(environment.statfs ? { procRoot: environment.procRoot, statfs: environment.statfs } : { procRoot: environment.procRoot });
  },
  // Reads only: on a simulated host it reads the machine's own file systems.
  example: () => ({ path: '/' }),
};
