// A Kysely for PostgreSQL with no server behind it: for tests that only compile queries (the SQL
// text a template or a statement name is made from), never run them.

import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { Database } from '../../src/store/schema.ts';

export function compileOnlyPostgres(): Kysely<Database> {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (on) => new PostgresIntrospector(on),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}
