import type { CapabilityModule } from '../module.ts';
import { objectSchema, unitParam, unitTarget } from './params.ts';

export const serviceStatus: CapabilityModule = {
  definition: {
    name: 'service.status',
    description: "Reads a systemd unit's load, active and sub state, when it entered that state and its main process id.",
    readOnly: true,
    idempotent: true,
    timeoutSeconds: 10,
    paramsSchema: objectSchema({ unit: unitParam }, ['unit']),
    target: unitTarget,
    locked: false,
    cost: { wall_seconds: 1, network_ops: 0, money: 0 },
    observes: ['unit', 'load_state', 'active_state', 'sub_state', 'since', 'main_pid'],
  },
  async implement(environment) {
    const { serviceStatusImplementation } = await import('../host/service-status.ts');
    return serviceStatusImplementation({ runner: await environment.runner() });
  },
  example: (host) => {
    host.setUnit('example.service', { active_state: 'active', sub_state: 'running', main_pid: 812, since: '2026-12-01T08:00:00Z' });
    return { unit: 'example.service' };
  },
};
