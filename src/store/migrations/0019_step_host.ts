// Each step carries the host its mind is bound to (`plan_steps.host`, null for a mind bound to
// none), and the due index leads with it: (host, status, next_run_at, id). A daemon advances the
// minds bound to its host and the unbound ones, and before this its reads of due work walked the
// due index of every host's steps, joining each to its mind to throw the other hosts' away: a
// daemon of host B walked host A's whole backlog on every pass (11 ms on SQLite and 7 ms on
// PostgreSQL a read with 20,000 of A's steps ready, growing with them; bench/run.ts,
// due_read_ratio_other_host). Now each read walks only its own host's part of the index and the
// unbound part (ExecutorQueryRepository).
//
// A mind's host is written when the mind is made and never changed, so the copy on its steps
// stays true; steps are written with it (PlanRepository.create, MindBundleRepository.write).
// Existing steps of bound minds get it here. Forward-only; a second run (its record lost) adds the
// column only if it is missing and rebuilds the index the same way.

import { sql, type Kysely, type Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { dueIndexPredicate } from '../vocabulary-sql.ts';

export function stepHost(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const present =
        kind === 'postgres'
          ? sql`select 1 from information_schema.columns where table_schema = current_schema() and table_name = 'plan_steps' and column_name = 'host'`
          : sql`select 1 from pragma_table_info('plan_steps') where name = 'host'`;
      if ((await present.execute(db)).rows.length === 0) await db.schema.alterTable('plan_steps').addColumn('host', 'text').execute();
      await sql`update plan_steps set host = (select m.host from minds m where m.id = plan_steps.mind_id) where mind_id in (select id from minds where host is not null)`.execute(db);
      await db.schema.dropIndex('plan_steps_due_idx').ifExists().execute();
      await db.schema.createIndex('plan_steps_due_idx').on('plan_steps').columns(['host', 'status', 'next_run_at', 'id']).where(dueIndexPredicate(kind)).execute();
    },
  };
}
