// The due index orders each status's steps by due time and then by id: (status, next_run_at, id),
// where it was (status, next_run_at). The executor takes due work in a fixed order (steps whose
// time has come, soonest first; then ready steps, oldest first; then steps whose operator has
// answered: ExecutorQueryRepository.dueSteps), and with the id in the index each of those reads
// is a walk of the index that stops at the pass's batch. Before, the index gave no order within
// a status, so every pass sorted every due step to take a batch of them: 3,000 ready steps cost
// SQLite 10 ms and PostgreSQL 20 ms a pass, growing with the backlog. Its predicate
// (dueIndexPredicate) is the one the queries repeat on SQLite (equalities, as migration 0016 left
// it); on PostgreSQL it excludes every other status, which the queries' list of due statuses
// implies without being implied by it, so that PostgreSQL keeps the list as a condition of the
// index. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { dueIndexPredicate } from '../vocabulary-sql.ts';

export function dueOrder(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('plan_steps_due_idx').execute();
      await db.schema.createIndex('plan_steps_due_idx').on('plan_steps').columns(['status', 'next_run_at', 'id']).where(dueIndexPredicate(kind)).execute();
    },
  };
}
