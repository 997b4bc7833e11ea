// Files of a SQLite store are readable by their owner only, whatever the umask: the store holds
// every approval, observation and token hash, and under the usual umask 022 it was
// world-readable (0644, in a 0755 `.praxis/`).

import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` empty with mode 0600 (and its missing directories 0700) unless it exists; an
 * existing file or directory keeps the mode its owner gave it.
 */
export function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
