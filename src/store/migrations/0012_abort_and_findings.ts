// The event types of stopping a plan on an abort condition (`plan_aborted`) and of a summary's
// findings re-entering the mind (`findings_observed`). Abort conditions themselves need no
// column: they stay in plans.abort_conditions, now as conditions rather than bare words (old
// rows' words read back as display_only). Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { refreshEventTypeCheck } from './event-type-check.ts';

export function abortAndFindings(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await refreshEventTypeCheck(db, kind);
    },
  };
}
