import type { CapabilityModule } from '../module.ts';
import { objectSchema, restartableUnitParam, unitTarget } from './params.ts';

/**
 * Asks systemd to restart a unit. Reports that the restart was requested, never that the unit
 * is healthy: that takes a later observation. Not idempotent, so never retried blindly.
 */
export const serviceRestart: CapabilityModule = {
  definition: {
    name: 'service.restart',
    description: 'Requests a restart of one systemd unit; whether it came back healthy is for a later status check to observe.',
    readOnly: false,
    idempotent: false,
    timeoutSeconds: 120,
    paramsSchema: objectSchema({ unit: restartableUnitParam }, ['unit']),
    target: unitTarget,
    locked: false,
    cost: { wall_seconds: 5, network_ops: 0, money: 0 },
    observes: ['unit', 'requested', 'message'],
  },
  async implement(environment) {
    const { serviceRestartImplementation } = await import('../host/service-restart.ts');
    return serviceRestartImplementation({ runner: await environment.runner() });
  },
  example: (host) => {
    host.setUnit('example.service', { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active' } });
    return { unit: 'example.service' };
  },
};
