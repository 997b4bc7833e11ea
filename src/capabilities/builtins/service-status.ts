import type { CapabilityDefinition } from '../definition.ts';
import { objectSchema, unitParam, unitTarget } from './params.ts';

export const serviceStatus: CapabilityDefinition = {
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
};
