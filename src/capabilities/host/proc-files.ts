// Reading kernel files under /proc (or a fixture tree standing in for it), and the errors that
// mean "this process or file is gone", which a reading skips instead of failing on.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CapabilityError } from '../implementation.ts';

export const DEFAULT_PROC_ROOT = '/proc';

const GONE = new Set(['ENOENT', 'ESRCH', 'EACCES', 'EPERM', 'EINVAL', 'ENOTDIR']);

/** True when a read failed because the thing read vanished or is hidden from us. */
export function isGone(error: unknown): boolean {
  return GONE.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** A proc file's text, or a `reading_failed` CapabilityError (safe to retry). */
export async function readProcFile(procRoot: string, ...parts: string[]): Promise<string> {
  const path = join(procRoot, ...parts);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new CapabilityError('reading_failed', `could not read ${path} (${code})`, true);
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CapabilityError('aborted', 'the reading was cancelled', true);
}

/** A percentage with one decimal; 0 when the whole is 0. */
export function percent(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.round((part / whole) * 1000) / 10;
}
