// The events' indexes by mind, intention and plan hold only the events that name one
// (`... is not null`). Every reader asks for one mind, intention or plan by equality, which
// implies the column is not null, so both stores still use these indexes for every query they
// served; the rows that name none were never found through them. A capability call's records
// (policy decision, authorisation, execution) name no plan: two thirds of a read-only step's
// entries in the plan index were such rows, written on every step and never read. Forward-only.

import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import type { StoreKind } from '../codec.ts';

const INDEXES = [
  ['events_mind_idx', 'mind_id'],
  ['events_intention_idx', 'intention_id'],
  ['events_plan_idx', 'plan_id'],
] as const;

export function partialEventIndexes(_kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const [name, column] of INDEXES) {
        await db.schema.dropIndex(name).ifExists().execute();
        await db.schema.createIndex(name).on('events').columns([column, 'seq']).where(sql.ref(column), 'is not', null).execute();
      }
    },
  };
}
