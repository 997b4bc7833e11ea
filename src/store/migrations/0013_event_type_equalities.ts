// The events table's type check rewritten as a chain of equalities (`type = 'a' or type = 'b'
// ...`) in place of `type in (...)`, with the same vocabulary. The test is the same; the cost is
// not. SQLite evaluates an IN list inside a CHECK by building a lookup table of the whole list for
// every row, which made the check alone 4.2 µs of the 6.3 µs an event row took to insert, and the
// executor writes about five events a step. PostgreSQL gets the same form, so both stores hold
// one definition (there it was cheap either way). Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { refreshEventTypeCheck } from './event-type-check.ts';

export function eventTypeEqualities(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await refreshEventTypeCheck(db, kind);
    },
  };
}
