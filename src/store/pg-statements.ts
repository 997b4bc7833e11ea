// Named prepared statements for the PostgreSQL store.
//
// Kysely's driver sends every query unnamed: the server parses and plans the same SQL again on
// every call. The executor runs a few hundred query shapes over and over (a step's claim, the
// reads an approval's wake-up makes, a pass's batch statements), so the pool handed to Kysely
// names each distinct SQL text once and pg prepares it once per connection; later calls only bind
// and execute. PostgreSQL then also keeps a statement's plan once it sees a generic plan costs no
// more than the custom ones.
//
// A text whose shape depends on how many values it carries runs unnamed: Kysely writes an
// `in (...)` list with one parameter per value and a multi-row insert with one row of parameters
// per row, so such a statement comes as many texts as batch sizes, and each named text holds
// memory in every server session that ran it. (The store's large batches go as arrays through
// `unnest`, whose text does not vary; row-table.ts.) The number of names is bounded as well;
// texts beyond it run unnamed, as before.
//
// A prepared statement's result columns are fixed when it is prepared: a migration that changes a
// table's columns must run before the statements that read it (the store migrates when it opens).

import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** An `in` list of more than one parameter, or a second row of values: a text per batch size. */
const VARIABLE_SHAPE = /\bin \(\$\d+, \$|\), \(\$\d+/;

/** Distinct texts named in a process; later ones run unnamed. */
export const NAMED_STATEMENT_LIMIT = 200;

/** Names for SQL texts, shared by every connection of a pool (a name is per connection on the server). */
export class StatementNames {
  readonly #names = new Map<string, string>();
  constructor(readonly limit = NAMED_STATEMENT_LIMIT) {}

  /** The name for this text, or undefined when it runs unnamed. */
  nameFor(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < this.limit && !VARIABLE_SHAPE.test(text)) {
      name = `praxis_${this.#names.size + 1}`;
      this.#names.set(text, name);
    }
    return name;
  }

  get size(): number {
    return this.#names.size;
  }
}

/** The pool Kysely is given: pg's, with each eligible text sent as a named prepared statement. */
export function withNamedStatements(pool: pg.Pool, names = new StatementNames()): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query: ((sqlOrCursor: unknown, parameters?: readonly unknown[]) => {
          // A text without parameters goes by the simple protocol, in one message: a transaction's
          // begin and commit, a migration's DDL. There is no plan to keep.
          if (typeof sqlOrCursor === 'string' && parameters && parameters.length > 0) {
            const name = names.nameFor(sqlOrCursor);
            if (name) return client.query({ name, text: sqlOrCursor, values: [...parameters] });
          }
          return client.query(sqlOrCursor as string, parameters as unknown[]);
        }) as unknown as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(destroy),
      };
    },
    end: () => pool.end(),
  };
}
