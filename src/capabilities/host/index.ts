// The host capabilities' implementations, built from one command runner and one proc root.

import type { CapabilityImplementation } from '../implementation.ts';
import { hostDiskUsageImplementation } from './host-disk-usage.ts';
import type { StatfsFunction } from './host-disk-usage.ts';
import { hostMemoryStatusImplementation } from './host-memory-status.ts';
import { hostProcessListImplementation } from './host-process-list.ts';
import { logsQueryImplementation } from './logs-query.ts';
import { DEFAULT_PROC_ROOT } from './proc-files.ts';
import type { CommandRunner } from './runner.ts';
import { serviceRestartImplementation } from './service-restart.ts';
import { serviceStatusImplementation } from './service-status.ts';

export interface HostImplementationOptions {
  /** Runs systemctl and journalctl; `execFileRunner()` on a real host, a fake or simulated one in tests. */
  runner: CommandRunner;
  /** Where /proc is; a fixture tree in tests. */
  procRoot?: string;
  /** statfs for host.disk.usage; replaceable only so tests can feed fixture numbers. */
  statfs?: StatfsFunction;
}

export function hostImplementations({ runner, procRoot = DEFAULT_PROC_ROOT, statfs }: HostImplementationOptions): Record<string, CapabilityImplementation> {
  return {
    'service.status': serviceStatusImplementation({ runner }),
    'service.restart': serviceRestartImplementation({ runner }),
    'logs.query': logsQueryImplementation({ runner }),
    'host.disk.usage': hostDiskUsageImplementation(statfs ? { procRoot, statfs } : { procRoot }),
    'host.memory.status': hostMemoryStatusImplementation({ procRoot }),
    'host.process.list': hostProcessListImplementation({ procRoot }),
  };
}

export { execFileRunner, fakeRunner, commandResult, DEFAULT_PROGRAMS, HOST_ENVIRONMENT } from './runner.ts';
export type { CommandRunner, CommandResult, FakeRunner, HostCommand, RunOptions } from './runner.ts';
export { mask, LineMasker, MARKERS } from './masking.ts';
