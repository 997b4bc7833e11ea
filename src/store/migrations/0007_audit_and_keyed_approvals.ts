// Keyed approval digests and the audit trail (docs/security.md). Approval requests gain
// `author_named_by`: who named the author of a request raised without one (that operator may not
// approve it either). The events table's type check learns the audit and tamper events. Digests
// already stored keep their unkeyed `sha256:` form: a daemon with a secret refuses them with
// `unkeyed_digest` when they are decided or performed, since nothing here can re-key them (the
// secret never reaches the database) and nothing should vouch for them. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { refreshEventTypeCheck } from './event-type-check.ts';

export function auditAndKeyedApprovals(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('approval_requests')
        .addColumn('author_named_by', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await refreshEventTypeCheck(db, kind);
    },
  };
}
