// The closed set of capabilities Praxis ships, one module each (definition, implementation
// factory, simulated-host example). Adding a capability means writing its module beside these
// and naming it here; the registry and the implementations are both built from this list, so
// nothing can be added while running and no definition can lack its implementation.

import type { CapabilityModule } from '../module.ts';
import { browserLinks } from './browser-links.ts';
import { browserNavigate } from './browser-navigate.ts';
import { browserRead } from './browser-read.ts';
import { hostDiskUsage } from './host-disk-usage.ts';
import { hostMemoryStatus } from './host-memory-status.ts';
import { hostProcessList } from './host-process-list.ts';
import { logsQuery } from './logs-query.ts';
import { serviceRestart } from './service-restart.ts';
import { serviceStatus } from './service-status.ts';

export const CATALOGUE: readonly CapabilityModule[] = Object.freeze([
  serviceStatus,
  serviceRestart,
  logsQuery,
  hostDiskUsage,
  hostMemoryStatus,
  hostProcessList,
  browserNavigate,
  browserRead,
  browserLinks,
]);

/** The built-in definitions, in catalogue order. */
export const BUILTIN_CAPABILITIES = Object.freeze(CATALOGUE.map((module) => module.definition));
