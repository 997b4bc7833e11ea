// host.memory.status: memory and swap from /proc/meminfo, in bytes.

import type { JsonObject } from '../../core/plan.ts';
import { CapabilityError } from '../implementation.ts';
import type { CapabilityImplementation } from '../implementation.ts';
import { DEFAULT_PROC_ROOT, percent, readProcFile, throwIfAborted } from './proc-files.ts';

export interface MemoryStatus extends JsonObject {
  total_bytes: number;
  /** Memory available for new work without swapping (MemAvailable). */
  available_bytes: number;
  /** Share of memory not available, 0-100 with one decimal. */
  used_percent: number;
  swap_total_bytes: number;
  swap_used_bytes: number;
}

/** `Key:   value kB` lines as bytes (values without a unit are taken as they are). */
export function parseMeminfo(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+(kB))?\s*$/.exec(line);
    if (!m) continue;
    values.set(m[1]!, Number(m[2]) * (m[3] ? 1024 : 1));
  }
  return values;
}

export function memoryStatus(meminfo: Map<string, number>): MemoryStatus {
  const total = meminfo.get('MemTotal');
  if (total === undefined) throw new CapabilityError('reading_failed', 'meminfo has no MemTotal line', true);
  // Kernels before 3.14 have no MemAvailable; free plus caches is the usual estimate.
  const available = meminfo.get('MemAvailable') ?? (meminfo.get('MemFree') ?? 0) + (meminfo.get('Buffers') ?? 0) + (meminfo.get('Cached') ?? 0);
  const swapTotal = meminfo.get('SwapTotal') ?? 0;
  const swapFree = meminfo.get('SwapFree') ?? swapTotal;
  return {
    total_bytes: total,
    available_bytes: Math.min(available, total),
    used_percent: percent(total - Math.min(available, total), total),
    swap_total_bytes: swapTotal,
    swap_used_bytes: Math.max(0, swapTotal - swapFree),
  };
}

export interface HostReadingOptions {
  procRoot?: string;
}

export function hostMemoryStatusImplementation({ procRoot = DEFAULT_PROC_ROOT }: HostReadingOptions = {}): CapabilityImplementation {
  return async (_params, { signal }) => {
    throwIfAborted(signal);
    const observation = memoryStatus(parseMeminfo(await readProcFile(procRoot, 'meminfo')));
    const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);
    return {
      observation,
      summary: `memory ${observation.used_percent}% used (${gib(observation.available_bytes)} of ${gib(observation.total_bytes)} GiB available)`,
    };
  };
}
