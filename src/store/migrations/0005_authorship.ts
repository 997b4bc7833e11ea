// Who authored an intention or a plan: the operator (or agent) whose token submitted it. The
// executor passes a plan's author on with every action it asks for, so the author can never be
// the one who approves it. Empty for work Praxis formed itself. Forward-only.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';

export function authorship(_kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const table of ['intentions', 'plans']) {
        await db.schema
          .alterTable(table)
          .addColumn('authored_by', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      }
    },
  };
}
