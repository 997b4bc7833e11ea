// Amending an action before approving it (docs/security.md, "Amending before approving").
// Approval requests gain `amendments`: every change an operator made to the action while it was
// pending, in order, each with who, when, why and the action before and after, so the action as
// first raised stays readable beside the one that will run. A plan step's own target and
// parameters are rewritten to the amended action (that is what runs); its action as planned is
// the first amendment's `from`, on the approval it links to. The events table's type check
// learns approval_amended. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { columnTypesFor } from './column-types.ts';
import { refreshEventTypeCheck } from './event-type-check.ts';

export function approvalAmendments(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const t = columnTypesFor(kind);
      await db.schema
        .alterTable('approval_requests')
        .addColumn('amendments', t.json, (c) => c.notNull().defaultTo('[]'))
        .execute();
      await refreshEventTypeCheck(db, kind);
    },
  };
}
