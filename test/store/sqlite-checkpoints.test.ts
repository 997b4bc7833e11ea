// SQLite checkpoints on a thread of their own (src/store/sqlite-checkpoints.ts): a store opened
// with backgroundCheckpoints has its WAL copied into the database file without the writer
// checkpointing, stops the thread when it closes, and hands the checkpoints back to the writer
// if the thread stops on its own.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKSTOP_PAGES, SQLITE_AUTOCHECKPOINT_PAGES, startBackgroundCheckpoints } from '../../src/store/sqlite-checkpoints.ts';

/** Pages the store has (the WAL's included) and the bytes its database file holds. */
async function pagesAndFile(store: Store, path: string): Promise<{ pageBytes: number; fileBytes: number }> {
  const count = await sql<{ page_count: number }>`pragma page_count`.execute(store.db);
  const size = await sql<{ page_size: number }>`pragma page_size`.execute(store.db);
  return { pageBytes: count.rows[0]!.page_count * size.rows[0]!.page_size, fileBytes: statSync(path).size };
}

/** Twenty commits of ten minds and an intention each: a few hundred KB, well under SQLite's own checkpoint. */
async function writeSome(store: Store): Promise<void> {
  for (let batch = 0; batch < 20; batch += 1) {
    await store.transaction(async (tx) => {
      for (let i = 0; i < 10; i += 1) {
        const mind = await tx.minds.create({ name: `mind-${batch}-${i}` });
        await tx.intentions.create({ mindId: mind.id, objective: `keep service ${i} of batch ${batch} running`.repeat(20), origin: 'operator' });
      }
    });
  }
}

describe('SQLite checkpoints in the background', () => {
  const dir = mkdtempSync(join(tmpdir(), 'praxis-checkpoints-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("copies the WAL into the database file soon after commits, which the writer's own checkpoint would not yet have done", { timeout: 30_000 }, async () => {
    const backgroundPath = join(dir, 'background.db');
    const writerPath = join(dir, 'writer.db');
    const background = await openStore({ kind: 'sqlite', path: backgroundPath }, { backgroundCheckpoints: true });
    const writer = await openStore({ kind: 'sqlite', path: writerPath });
    try {
      for (const store of [background, writer]) {
        await store.migrate();
        await writeSome(store);
      }
      const own = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(writer.db);
      assert.equal(own.rows[0]?.wal_autocheckpoint, SQLITE_AUTOCHECKPOINT_PAGES);
      const backstop = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(background.db);
      assert.equal(backstop.rows[0]?.wal_autocheckpoint, BACKSTOP_PAGES, "the writer's own checkpoint is only the backstop");

      const unchecked = await pagesAndFile(writer, writerPath);
      assert.ok(unchecked.fileBytes < unchecked.pageBytes, `without the thread the pages wait in the WAL (${unchecked.fileBytes} of ${unchecked.pageBytes} bytes in the file)`);
      let checked = await pagesAndFile(background, backgroundPath);
      for (let waited = 0; checked.fileBytes < checked.pageBytes && waited < 5000; waited += 50) {
        await sleep(50);
        checked = await pagesAndFile(background, backgroundPath);
      }
      assert.equal(checked.fileBytes, checked.pageBytes, 'with the thread the database file holds every page');
      assert.equal((await background.minds.list()).length, 200);
    } finally {
      await background.close();
      await writer.close();
    }
    assert.equal(existsSync(`${backgroundPath}-wal`), false, 'the thread closed its connection first, so the last to close removed the WAL');
  });

  it('hands the checkpoints back to the writer, with a warning, when the thread stops on its own', { timeout: 30_000 }, async () => {
    const path = join(dir, 'handed-back.db');
    const database = new BetterSqlite3(path);
    database.pragma('journal_mode = WAL');
    const warned = new Promise<Error>((resolve) => {
      const listen = (warning: Error & { code?: string }) => {
        if (warning.code !== 'PRAXIS_SQLITE_CHECKPOINTS') return;
        process.off('warning', listen);
        resolve(warning);
      };
      process.on('warning', listen);
    });
    // The thread is given a directory for the database: it cannot open it, and ends.
    const checkpoints = startBackgroundCheckpoints(database, dir);
    // The thread keeps no process alive (a daemon's server does); this test's wait must.
    const alive = setInterval(() => {}, 1000);
    try {
      const warning = await warned;
      assert.match(warning.message, /SQLite checkpoints in the background stopped \(.+\); the writer takes them again/);
      assert.equal(database.pragma('wal_autocheckpoint', { simple: true }), SQLITE_AUTOCHECKPOINT_PAGES);
      checkpoints.written();
      await checkpoints.stop();
    } finally {
      clearInterval(alive);
      database.close();
    }
  });
});
