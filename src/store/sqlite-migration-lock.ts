// Migrations of one SQLite file, one process at a time. Kysely's migrator takes no lock on SQLite
// (it counts on the file having one connection), yet several processes open the same file (a
// daemon and the CLI, two commands started together on a new store, or on one left behind by an
// upgrade), and each migrates it as it opens: both ran a migration, and one failed on what the
// other had made ("table minds already exists", a duplicate migration row), or a migration that
// changes rows would have been applied twice. The migrations cannot run inside one transaction
// of the store itself (a table rebuild switches foreign keys off, which SQLite ignores inside a
// transaction), so the lock is a file of its own beside the store (`<store>-migrating`), held
// with an exclusive SQLite lock while migrating. The operating system releases it when its
// holder exits, however it exits. The file stays: removing it while another process waits on it
// would let a third take a lock on a new file.

import BetterSqlite3 from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPrivately } from './private-file.ts';

/** How long a process waits for another one's migrations to finish before it gives up. */
export const MIGRATION_LOCK_WAIT_MS = 10 * 60_000;
const RETRY_MS = 50;

export function migrationLockPath(storePath: string): string {
  return `${storePath}-migrating`;
}

/**
 * Runs `work` holding the migration lock of the SQLite store at `storePath`, waiting (without
 * blocking the event loop) while another process holds it.
 */
export async function withSqliteMigrationLock<T>(storePath: string, work: () => Promise<T>, waitMs = MIGRATION_LOCK_WAIT_MS): Promise<T> {
  // No busy timeout: the driver's default (5 s) waited inside `begin exclusive`, blocking the event
  // loop (signals, timers) for as long; a refusal at once and the sleep below keep it turning.
  // Empty, but made private like the store beside it rather than with the umask.
  createPrivately(migrationLockPath(storePath));
  const lock = new BetterSqlite3(migrationLockPath(storePath), { timeout: 0 });
  try {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        lock.exec('begin exclusive');
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
        if (Date.now() >= deadline) throw new Error(`another process has been migrating ${storePath} for over ${Math.round(waitMs / 1000)} s; try again once it has finished`);
        await sleep(RETRY_MS);
      }
    }
    return await work();
  } finally {
    lock.close();
  }
}
