// Whether opening a store created it, as the CLI and the daemon announce it: true for a
// database that held no Praxis store (a new SQLite file, a PostgreSQL database never migrated),
// false when the same one is opened again.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openAndMigrate } from '../../src/daemon/store-notice.ts';
import { FIRST_MIGRATION, MIGRATION_TABLE } from '../../src/store/migrations/index.ts';
import { sql } from 'kysely';
import { STORE_KINDS, useStore } from '../support/stores.ts';

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
        const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(first.store.db);
        assert.equal(applied.rows[0]?.name, FIRST_MIGRATION);
      } finally {
        await first.store.close();
      }
      const again = await openAndMigrate(config);
      try {
        assert.equal(again.created, false);
      } finally {
        await again.store.close();
      }
    });
  });
}
