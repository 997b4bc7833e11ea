// service.restart: asks systemd to queue a restart of one unit and returns as soon as the job
// is accepted. It never reports the unit as healthy: the restart may still be running, or may
// fail later; only a later service.status observation can tell. A failure of the restart is
// never marked safe to retry, because a restart may have been queued before the failure showed.
// Before it, the unit, what it triggers and what its start pulls in are read (restart-reach.ts):
// a restart that would change the whole host's state is refused there, and a failure of those
// reads is safe to retry, since nothing has been asked of systemd yet.

import type { JsonObject } from '../../core/plan.ts';
import type { CapabilityImplementation } from '../implementation.ts';
import { checkRestartableUnit } from '../unit-name.ts';
import { CapabilityError } from '../implementation.ts';
import { commandFailure } from './failures.ts';
import { checkRestartReach, REACH_READ_TIMEOUT_MS } from './restart-reach.ts';
import type { CommandRunner } from './runner.ts';

export const SERVICE_RESTART_TIMEOUT_MS = 60_000;
export const RESTART_REQUESTED = 'restart requested (health not yet verified)';

export interface RestartRequested extends JsonObject {
  unit: string;
  requested: true;
  message: string;
}

export interface ServiceRestartOptions {
  runner: CommandRunner;
  /** For the restart request itself. */
  timeoutMs?: number;
  /** For each read of a unit before it (restart-reach.ts). */
  readTimeoutMs?: number;
}

export function serviceRestartImplementation({ runner, timeoutMs = SERVICE_RESTART_TIMEOUT_MS, readTimeoutMs = REACH_READ_TIMEOUT_MS }: ServiceRestartOptions): CapabilityImplementation {
  return async (params, { signal }) => {
    const problem = checkRestartableUnit(params.unit);
    if (problem !== null) throw new CapabilityError('invalid_params', `unit: ${problem}`, false);
    const unit = params.unit as string;
    await checkRestartReach(runner, unit, { signal, timeoutMs: readTimeoutMs });
    const result = await runner.run({ program: 'systemctl', operation: 'restart', unit }, { signal, timeoutMs });
    if (result.exitCode !== 0) throw commandFailure('requesting the restart', result, false);
    const observation: RestartRequested = { unit, requested: true, message: RESTART_REQUESTED };
    return { observation, summary: `${unit}: ${RESTART_REQUESTED}` };
  };
}
