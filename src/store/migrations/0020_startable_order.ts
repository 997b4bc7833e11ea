// Validated plans in the order a pass starts them: `plans_startable_idx` on (created_at, id),
// holding validated plans only. A pass starts the oldest validated plans it may advance
// (startablePlansQuery), and before this both stores found them through the live-plan or the
// mind's index and sorted every validated plan to take a batch: a backlog of queued plans cost a
// sort of all of them on every pass. Now the read walks this index, oldest first, and stops at
// the batch. The query repeats the predicate with the status as a literal, so SQLite (which
// matches a partial index's predicate only against the query's own terms) and PostgreSQL's
// generic plans can use it. Forward-only.

import { sql, type Kysely, type Migration } from 'kysely';

export function startableOrder(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('plans_startable_idx')
        // Created only if missing: a crash after the index and before the migration's record
        // runs the migration again.
        .ifNotExists()
        .on('plans')
        .columns(['created_at', 'id'])
        .where(sql.ref('status'), '=', sql.lit('validated'))
        .execute();
    },
  };
}
