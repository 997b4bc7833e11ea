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
// A prepared statement's result columns are fixed when it is prepared. When a table changes under
// it (another daemon, upgraded, migrated the shared database while this one runs), PostgreSQL
// refuses the statement ("cached plan must not change result type") while re-planning it, before
// it runs; the text is then never named again, and the call is run once more unnamed (safe even
// for a write, which never ran), unless it was inside a transaction, which the error has already
// aborted: that unit of work fails once, and its retry runs unnamed.

import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** An `in` list of more than one parameter, or a second row of values: a text per batch size. */
const VARIABLE_SHAPE = /\bin \(\$\d+, \$|\), \(\$\d+/;

/** Distinct texts named per pool; later ones run unnamed. */
export const NAMED_STATEMENT_LIMIT = 200;

/** Names for SQL texts, shared by every connection of a pool (a name is per connection on the server). */
export class StatementNames {
  readonly #names = new Map<string, string>();
  /** Texts whose prepared statements went stale; they run unnamed from then on. */
  readonly #stale = new Set<string>();
  /** Names given so far, including those of stale texts. */
  #issued = 0;
  constructor(readonly limit = NAMED_STATEMENT_LIMIT) {}

  /** The name for this text, or undefined when it runs unnamed. */
  nameFor(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.#issued < this.limit && !VARIABLE_SHAPE.test(text) && !this.#stale.has(text)) {
      // Never a name given before: a connection may still hold the stale statement under it.
      this.#issued += 1;
      name = `praxis_${this.#issued}`;
      this.#names.set(text, name);
    }
    return name;
  }

  /** This text's statement went stale (its table changed): it runs unnamed from now on. */
  forget(text: string): void {
    this.#names.delete(text);
    this.#stale.add(text);
  }

  get size(): number {
    return this.#names.size;
  }
}

/** PostgreSQL's refusal of a prepared statement whose result columns changed since it was prepared. */
function isStalePlan(error: unknown): boolean {
  return (error as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test((error as Error).message);
}

/** A text that opens or ends a transaction, as Kysely's driver sends them. */
const TRANSACTION_START = /^(begin|start transaction)\b/i;
const TRANSACTION_END = /^(commit|rollback)\b/i;

/** The pool Kysely is given: pg's, with each eligible text sent as a named prepared statement. */
export function withNamedStatements(pool: pg.Pool, names = new StatementNames()): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      // Kysely ends every transaction before it gives the connection back.
      let inTransaction = false;
      return {
        query: ((sqlOrCursor: unknown, parameters?: readonly unknown[]) => {
          if (typeof sqlOrCursor === 'string') {
            if (TRANSACTION_START.test(sqlOrCursor)) inTransaction = true;
            else if (TRANSACTION_END.test(sqlOrCursor)) inTransaction = false;
          }
          // A text without parameters goes by the simple protocol, in one message: a transaction's
          // begin and commit, a migration's DDL. There is no plan to keep.
          if (typeof sqlOrCursor === 'string' && parameters && parameters.length > 0) {
            const text = sqlOrCursor;
            const values = [...parameters];
            const name = names.nameFor(text);
            if (name) {
              return client.query({ name, text, values }).catch((error: unknown) => {
                if (!isStalePlan(error)) throw error;
                names.forget(text);
                if (inTransaction) throw error;
                return client.query(text, values);
              });
            }
          }
          return client.query(sqlOrCursor as string, parameters as unknown[]);
        }) as unknown as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(destroy),
      };
    },
    end: () => pool.end(),
  };
}
