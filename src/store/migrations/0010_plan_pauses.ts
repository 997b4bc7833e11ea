// Pausing plans (docs/executor.md, "Pausing a plan"), and the plan statuses `waiting` and
// `awaiting_approval` joining the executor's live plans. A pause is not a plan status (the
// status vocabulary is the specification's): it is recorded beside the status, as when, by whom
// and why, and the executor leaves a paused plan's steps alone. The live-plans index is rebuilt
// because its predicate now names the two statuses a started plan may show while it waits. The
// events table's type check learns plan_waiting, plan_awaiting_approval, plan_paused,
// plan_resumed, mind_paused and mind_resumed.
// Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { LIVE_PLAN_STATUSES } from '../repositories/executor-queries.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { columnTypesFor } from './column-types.ts';
import { refreshEventTypeCheck } from './event-type-check.ts';

export function planPauses(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const t = columnTypesFor(kind);
      // Null while the plan is not paused.
      await db.schema.alterTable('plans').addColumn('paused_at', t.time).execute();
      await db.schema
        .alterTable('plans')
        .addColumn('paused_by', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('plans')
        .addColumn('pause_reason', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.dropIndex('plans_live_idx').execute();
      await db.schema.createIndex('plans_live_idx').on('plans').columns(['status', 'updated_at']).where(oneOf('status', LIVE_PLAN_STATUSES)).execute();
      await refreshEventTypeCheck(db, kind);
    },
  };
}
