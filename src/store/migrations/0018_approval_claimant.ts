// Who claimed an approved one-off action to perform it: the executor's name (`host:pid:suffix`),
// as `plan_steps.claimed_by` (0006) names a step's claimant. A one-off request has no step and
// no lease, so an executor that died mid-act left its claim to be recovered only once it was
// older than the capability's timeout and the lease margin; with the claimant named, a claim
// whose executor is known to be gone (claimants.ts) is recovered at once.
//
// `claimed_for` is the execution id the claimant claimed it for: the name speaks for the claim
// only while that is still the request's `execution_id`. A daemon of an earlier version sharing
// the store during an upgrade claims and releases requests without knowing these columns, and
// would otherwise leave a gone executor's name on its own live claim, to be taken over while it
// acts. Both empty when no executor claimed it, and on claims made before this migration (those
// keep the age rule). Forward-only; a second run (its record lost) adds only what is missing.

import { sql, type Kysely, type Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';

export function approvalClaimant(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const column of ['claimed_by', 'claimed_for']) {
        const present =
          kind === 'postgres'
            ? sql`select 1 from information_schema.columns where table_schema = current_schema() and table_name = 'approval_requests' and column_name = ${column}`
            : sql`select 1 from pragma_table_info('approval_requests') where name = ${column}`;
        if ((await present.execute(db)).rows.length > 0) continue;
        await db.schema
          .alterTable('approval_requests')
          .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      }
    },
  };
}
