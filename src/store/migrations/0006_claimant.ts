// Who holds a step's claim: the executor's name (`host:pid:suffix`). The lease stays the
// backstop for recovery; the claimant lets a claim whose executor is known to be gone (its
// process has exited on this host, or its PostgreSQL presence lock was released when its
// session died) be taken over at once instead of after the whole lease. Empty when no executor
// holds the step. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';

export function claimant(_kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('plan_steps')
        .addColumn('claimed_by', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
    },
  };
}
