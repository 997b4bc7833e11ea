// The closed set of capabilities Praxis ships. Adding one means adding a file here and
// registering it at start-up; nothing can be added while running.

import type { CapabilityDefinition } from '../definition.ts';
import { browserLinks } from './browser-links.ts';
import { browserNavigate } from './browser-navigate.ts';
import { browserRead } from './browser-read.ts';
import { hostDiskUsage } from './host-disk-usage.ts';
import { hostMemoryStatus } from './host-memory-status.ts';
import { hostProcessList } from './host-process-list.ts';
import { logsQuery } from './logs-query.ts';
import { serviceRestart } from './service-restart.ts';
import { serviceStatus } from './service-status.ts';

export const BUILTIN_CAPABILITIES: readonly CapabilityDefinition[] = Object.freeze([
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
