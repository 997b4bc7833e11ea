// The events table's type check admits the call rows' types (call-rows.ts): on SQLite a capability
// call's decision, authorisation and outcome are stored as one row of type `tool_call_executed` or
// `tool_call_failed`, read back as its three events. PostgreSQL never writes them, but takes the
// same check so both stores keep one definition. On SQLite this rebuilds the table once
// (event-type-check.ts). Rows written before keep their form; readers read both. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { refreshEventTypeCheck } from './event-type-check.ts';

export function callRows(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await refreshEventTypeCheck(db, kind);
    },
  };
}
