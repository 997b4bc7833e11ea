// Wants (docs/mind.md, "Wants and dreams"): what a mind's intentions are formed for. A dream may
// leave open wants; an intention that could not be planned when it was fresh leaves its want
// suppressed. Also the event types of wants and of forked and imported minds. Forward-only.

import type { Kysely, Migration } from 'kysely';
import { WANT_ORIGINS, WANT_STATUSES } from '../../core/vocabulary.ts';
import type { StoreKind } from '../codec.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { columnTypesFor } from './column-types.ts';
import { refreshEventTypeCheck } from './event-type-check.ts';

export function wants(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const t = columnTypesFor(kind);
      await db.schema
        .createTable('wants')
        .addColumn('id', t.id, (c) => c.primaryKey())
        .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
        .addColumn('statement', 'text', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
        // Why it is suppressed (an intention reason such as no_possible_plan); empty while open.
        .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
        // The intention formed for it, and the dream's draft plan for it, when there is one.
        .addColumn('intention_id', t.id, (c) => c.references('intentions.id'))
        .addColumn('plan_id', t.id, (c) => c.references('plans.id'))
        .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
        .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
        .addCheckConstraint('wants_origin_check', oneOf('origin', WANT_ORIGINS))
        .addCheckConstraint('wants_status_check', oneOf('status', WANT_STATUSES))
        .execute();
      await db.schema.createIndex('wants_mind_idx').on('wants').columns(['mind_id', 'status']).execute();
      await db.schema.createIndex('wants_intention_idx').on('wants').column('intention_id').execute();
      await refreshEventTypeCheck(db, kind);
    },
  };
}
