// A crash in the middle of a migration leaves the store as it was before that migration, and
// the next open applies it whole. On SQLite the migrator ran each statement on its own: killed
// between 0017's drop of the due index and its creation, the store had no due index and no
// record of 0017, and every later open failed on the drop ("no such index"). (PostgreSQL's
// migrations always ran in a transaction; the crash is a process's, so only SQLite's file is
// exercised here.)

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateTo, MIGRATION_TABLE, migrationsFor } from '../../src/store/migrations/index.ts';
import { openStore, type StoreConfig } from '../../src/store/index.ts';
import { programArgs } from '../support/programs.ts';

function migrateAndDieAfter(config: StoreConfig, pattern: string): Promise<{ signal: NodeJS.Signals | null; output: string }> {
  const child = spawn(process.execPath, [...programArgs(new URL('../support/migration-killer.ts', import.meta.url)), JSON.stringify(config), pattern], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, output })));
}

describe('a crash in the middle of a migration (sqlite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'praxis-migration-crash-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the migration unapplied, and the next open applies it', async () => {
    const config: StoreConfig = { kind: 'sqlite', path: join(dir, 'store.db') };
    const names = Object.keys(migrationsFor('sqlite'));
    // 0017 is the migration a crash once broke; the ones after it apply on the same open.
    const killedOne = '0017_due_order';
    const before = names[names.indexOf(killedOne) - 1]!;
    // A store one migration behind, as an upgrade finds it (empty: the crash falls between two
    // statements of the migration, whatever the rows).
    const old = await openStore(config);
    await migrateTo(old.db, 'sqlite', before);
    await old.close();

    const killed = await migrateAndDieAfter(config, '^drop index "plan_steps_due_idx"');
    assert.equal(killed.signal, 'SIGKILL', killed.output);

    const store = await openStore(config);
    try {
      const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(store.db);
      assert.equal(applied.rows.at(-1)?.name, before, 'the killed migration is not recorded');
      const dueIndex = await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and name = 'plan_steps_due_idx'`.execute(store.db);
      assert.equal(dueIndex.rows.length, 1, 'the due index the killed migration dropped is still there');
      assert.doesNotMatch(dueIndex.rows[0]!.sql, /next_run_at", "id"|next_run_at, id/, 'and it is the index as it was before the migration');

      assert.deepEqual(await store.migrate(), names.slice(names.indexOf(killedOne)));
      const after = await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and name = 'plan_steps_due_idx'`.execute(store.db);
      // As 0017 made it, then led by the host (0019).
      assert.match(after.rows[0]!.sql.replace(/"/g, ''), /\(host, status, next_run_at, id\)/);
      const foreignKeys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
      assert.equal(foreignKeys.rows[0]?.foreign_keys, 1, 'foreign keys are enforced again after migrating');
    } finally {
      await store.close();
    }
  });
});
