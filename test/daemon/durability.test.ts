// Commits are durable on a store the daemon opens: SQLite at synchronous=FULL (WAL's usual
// NORMAL could lose a committed claim or write-ahead row on power loss) and PostgreSQL with
// synchronous_commit on, whatever the server's default. Read back from the daemon's own store.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadDaemonConfig } from '../../src/daemon/config.ts';
import { startDaemon } from '../../src/daemon/serve.ts';
import { openStore } from '../../src/store/index.ts';
import { BACKSTOP_PAGES } from '../../src/store/sqlite-checkpoints.ts';
import { STORE_KINDS, openTestStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`the daemon's store commits durably (${kind})`, () => {
    it(kind === 'sqlite' ? 'runs SQLite with synchronous=FULL' : 'runs PostgreSQL with synchronous_commit on', { timeout: 30_000 }, async () => {
      const place = await openTestStore(kind);
      const where = place.config.kind === 'sqlite' ? place.config.path : place.config.url;
      const config = loadDaemonConfig({ db: where, port: '0', logLevel: 'silent', console: 'none' }, {});
      const daemon = await startDaemon({ config });
      try {
        if (kind === 'sqlite') {
          const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(daemon.store.db);
          assert.equal(rows[0]?.synchronous, 2, 'synchronous = FULL (2)');
          // Its checkpoints run on a thread of their own; the writer's own is only the backstop.
          const autocheckpoint = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(daemon.store.db);
          assert.equal(autocheckpoint.rows[0]?.wal_autocheckpoint, BACKSTOP_PAGES);
        } else {
          // The server here defaults to on as well, so the session setting is read from where the
          // connection set it: its startup options, as pg_settings reports their source.
          const { rows } = await sql<{ setting: string; source: string }>`select setting, source from pg_settings where name = 'synchronous_commit'`.execute(daemon.store.db);
          assert.equal(rows[0]?.setting, 'on');
          assert.equal(rows[0]?.source, 'client', 'set by the store for its own connections');
        }
      } finally {
        await daemon.stop('test');
        await place.dispose();
      }
    });
  });
}

describe('a PostgreSQL URL with startup options of its own', () => {
  it("keeps them beside the store's, which win: commits stay durable on every connection", { timeout: 30_000 }, async () => {
    const place = await openTestStore('postgres');
    if (place.config.kind !== 'postgres') throw new Error('a PostgreSQL store was asked for');
    const url = new URL(place.config.url);
    url.searchParams.set('options', '-c synchronous_commit=off -c statement_timeout=4321');
    const store = await openStore({ ...place.config, url: url.toString() });
    const settings = sql<{ name: string; setting: string }>`select name, setting from pg_settings where name in ('synchronous_commit', 'statement_timeout', 'plan_cache_mode') order by name`;
    try {
      assert.deepEqual((await settings.execute(store.db)).rows, [
        { name: 'plan_cache_mode', setting: 'auto' },
        { name: 'statement_timeout', setting: '4321' },
        { name: 'synchronous_commit', setting: 'on' },
      ]);
      assert.deepEqual((await settings.execute(store.approvalDb)).rows, [
        { name: 'plan_cache_mode', setting: 'force_generic_plan' },
        { name: 'statement_timeout', setting: '4321' },
        { name: 'synchronous_commit', setting: 'on' },
      ]);
      // The executor's reads of the due index run on connections of their own, planned generically.
      assert.deepEqual((await settings.execute(store.dueReadDb)).rows, [
        { name: 'plan_cache_mode', setting: 'force_generic_plan' },
        { name: 'statement_timeout', setting: '4321' },
        { name: 'synchronous_commit', setting: 'on' },
      ]);
    } finally {
      await store.close();
      await place.dispose();
    }
  });
});
