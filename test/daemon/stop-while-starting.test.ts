// A stop asked while `praxis serve` starts (a service manager stopping it during a long migration)
// waits for the start to finish, then stops cleanly with exit 0. The process used to die at once
// (exit 143), in the middle of migrations SQLite runs without one transaction around them.
// Deterministic: the test holds the store's migration lock, so the daemon waits in its start
// until the test lets it go, and the signal is sent once the daemon has opened the lock file.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { migrationLockPath } from '../../src/store/sqlite-migration-lock.ts';
import { openStore } from '../../src/store/store.ts';
import { BIN, ROOT } from './process.ts';

/** Whether process `pid` has `path` open. */
function holdsOpen(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

describe('praxis serve stopped while it starts', () => {
  it('finishes its migrations and its start, then stops with exit 0', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'praxis-stop-start-'));
    const db = join(dir, 'store.db');
    const lock = new BetterSqlite3(migrationLockPath(db));
    lock.exec('begin exclusive');
    let released = false;
    try {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--console', 'none', '--db', db, '--log-format', 'json'], {
        cwd: ROOT,
        env: { ...process.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      // Waiting on the lock: it has opened the lock file (its handlers are installed before).
      const deadline = Date.now() + 30_000;
      while (!holdsOpen(child.pid!, migrationLockPath(db)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(holdsOpen(child.pid!, migrationLockPath(db)), `the daemon never reached its migrations: ${stderr}`);
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(child.exitCode, null, `it exited during its start: ${stderr}`);
      lock.exec('commit');
      lock.close();
      released = true;
      const end = await exited;
      assert.deepEqual(end, { code: 0, signal: null }, stderr);
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => (JSON.parse(l) as { event?: string }).event);
      assert.ok(events.includes('stop_requested_during_start'), stdout);
      assert.ok(events.indexOf('stop_requested_during_start') < events.indexOf('store_ready'), `asked while it waited to migrate: ${JSON.stringify(events)}`);
      // Whole: every migration applied.
      const store = await openStore({ kind: 'sqlite', path: db });
      try {
        assert.deepEqual(await store.migrate(), [], 'nothing left to migrate');
      } finally {
        await store.close();
      }
    } finally {
      if (!released) lock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
