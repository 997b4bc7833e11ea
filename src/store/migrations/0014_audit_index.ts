// An index of the audit trail's events by seq (`events_audit_idx`, partial: only the audit types).
// The trail asks for a few kinds of rare event across the whole log; without it, its first page
// read every event (a full scan: 50-73 ms on SQLite over 500,000 events, growing with the log).
// The predicate is a chain of equalities, like the type check (migration 0013): as an IN list,
// SQLite would build its lookup table again for every event inserted. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { isAuditEvent } from '../vocabulary-sql.ts';

export function auditIndex(_kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('events_audit_idx').ifNotExists().on('events').column('seq').where(isAuditEvent()).execute();
    },
  };
}
