// Whether opening a store created it, as the CLI and the daemon announce it: true for a
// database that held no Praxis store (a new SQLite file, a PostgreSQL database never migrated),
// false when the same one is opened again; and which migrations opening it applied.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, it } from 'node:test';
import { openAndMigrate } from '../../src/daemon/store-notice.ts';
import { migrateTo, FIRST_MIGRATION, holdsPraxisStore, MIGRATION_TABLE, migrationsFor } from '../../src/store/migrations/index.ts';
import { InputError } from '../../src/core/errors.ts';
import { sql } from 'kysely';
import { maintenanceUrl, STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`opening a store says whether it created it (${kind})`, () => {
    // An unmigrated place: an empty database (PostgreSQL), or a file not there yet (SQLite).
    const current = useStore(kind, { migrate: false });

    it('created the first time, not the second; the schema is there after the first', async () => {
      const { config, store: bare } = current();
      if (kind === 'sqlite') await bare.close();
      const first = await openAndMigrate(config);
      try {
        assert.equal(first.created, true);
        assert.deepEqual(first.applied, Object.keys(migrationsFor(kind)), 'every migration, in order');
        assert.ok(first.seconds >= 0);
        const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(first.store.db);
        assert.equal(applied.rows[0]?.name, FIRST_MIGRATION);
      } finally {
        await first.store.close();
      }
      const again = await openAndMigrate(config);
      try {
        assert.equal(again.created, false);
        assert.deepEqual(again.applied, []);
      } finally {
        await again.store.close();
      }
    });
  });

  describe(`a command that creates no store refuses a place without one (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it('no_store, with nothing written there; with mustHold off it creates the store', async () => {
      const { config, store: bare } = current();
      // SQLite: the test store made an empty file (as `touch` would); PostgreSQL: an empty database.
      await assert.rejects(openAndMigrate(config, { mustHold: true }), (error: unknown) => {
        assert.ok(error instanceof InputError);
        assert.equal(error.problems[0]?.code, 'no_store');
        assert.match(error.problems[0]?.message ?? '', new RegExp(`there is no Praxis store at ${kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL'}`));
        return true;
      });
      assert.equal(await holdsPraxisStore(bare.db), false, 'no migration table was made');
      const made = await openAndMigrate(config);
      try {
        assert.equal(made.created, true);
        assert.equal(await holdsPraxisStore(made.store.db), true);
      } finally {
        await made.store.close();
      }
      const opened = await openAndMigrate(config, { mustHold: true });
      await opened.store.close();
      assert.equal(opened.created, false);
    });
  });

  if (kind === 'postgres') {
    it('a database that is not there is no store (exit 2); a server that does not answer is a failure, not "no store"', async () => {
      const url = new URL(maintenanceUrl());
      url.pathname = `/praxis_missing_${Date.now()}`;
      await assert.rejects(openAndMigrate({ kind: 'postgres', url: url.toString() }, { mustHold: true }), (error: unknown) => error instanceof InputError && error.problems[0]?.code === 'no_store');
      // Port 1 on loopback: the connection is refused at once.
      await assert.rejects(openAndMigrate({ kind: 'postgres', url: 'postgres://postgres@127.0.0.1:1/praxis' }, { mustHold: true }), (error: unknown) => {
        assert.ok(!(error instanceof InputError), `a failure to reach the server, not ${String(error)}`);
        assert.match(String((error as Error).message), /ECONNREFUSED/);
        return true;
      });
    });
  }

  if (kind === 'sqlite') {
    it("a refusal leaves another program's SQLite file byte for byte as it was (not turned to WAL)", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'praxis-no-store-'));
      try {
        const path = join(dir, 'other.db');
        const other = new BetterSqlite3(path);
        other.exec("create table notes (id integer primary key, text text); insert into notes (text) values ('kept')");
        other.close();
        const before = readFileSync(path);
        await assert.rejects(openAndMigrate({ kind: 'sqlite', path }, { mustHold: true }), (error: unknown) => error instanceof InputError && error.problems[0]?.code === 'no_store');
        assert.ok(readFileSync(path).equals(before), 'the file is unchanged');
        assert.deepEqual(readdirSync(dir), ['other.db'], 'no -wal or -shm file');
        const reopened = new BetterSqlite3(path, { readonly: true });
        assert.equal(reopened.pragma('journal_mode', { simple: true }), 'delete');
        reopened.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  describe(`opening an older store names the migrations it applied (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it('an upgrade applies, and reports, only what the store lacked', async () => {
      const { config, store: bare } = current();
      // A store one migration behind, whichever migration is the newest.
      const names = Object.keys(migrationsFor(kind));
      await migrateTo(bare.db, kind, names.at(-2)!);
      if (kind === 'sqlite') await bare.close();
      const opened = await openAndMigrate(config);
      try {
        assert.equal(opened.created, false);
        assert.deepEqual(opened.applied, [names.at(-1)]);
      } finally {
        await opened.store.close();
      }
    });
  });
}
