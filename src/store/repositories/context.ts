import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Codec } from '../codec.ts';
import type { Database } from '../schema.ts';

/** What every repository is built from: a connection (or a transaction), the codec and the clock. */
export interface RepositoryContext {
  readonly db: Kysely<Database>;
  /**
   * Where an approval's wake-up reads its scene and claims its step: on PostgreSQL a connection of
   * its own (store.ts APPROVAL_CONNECTION); `db` itself on SQLite and inside a transaction. Only
   * for statements that look rows up by key and commit on their own.
   */
  readonly approvalDb: Kysely<Database>;
  /**
   * Where the executor reads the due index (its due steps and held claims): on
   * PostgreSQL connections of their own that plan each statement once, generically (store.ts
   * DUE_READS_CONNECTION); `db` itself on SQLite and inside a transaction. Only for statements
   * whose every vocabulary is a literal, so that a generic plan can still use partial indexes.
   */
  readonly dueReadDb: Kysely<Database>;
  readonly codec: Codec;
  readonly clock: Clock;
  /**
   * Reports that a waking event was written. Outside a transaction it signals at once; inside
   * one the signal waits for the commit (and is dropped on rollback), so nobody is woken to
   * look for a row they cannot see yet.
   */
  readonly wake: (type: string) => void;
  /** PostgreSQL's NOTIFY channel for cross-process wake-ups; null on SQLite. */
  readonly wakeChannel: string | null;
}

/** Ids bound in one `IN (...)` list: far below SQLite's and PostgreSQL's limits on bound parameters. */
export const IDS_PER_STATEMENT = 500;

/** Runs `work` in a transaction, joining the caller's when there already is one. */
export async function inTransaction<T>(db: Kysely<Database>, work: (tx: Kysely<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute(work);
}

/** `from` as a non-empty list for `status IN (...)`; an empty list would be a caller's bug. */
export function asList<T extends string>(value: T | readonly T[]): T[] {
  const list = typeof value === 'string' ? [value] : [...value];
  if (list.length === 0) throw new TypeError('a conditional transition needs at least one `from` status');
  return list;
}

/** Oldest first, then by id: the order lists use, for rows RETURNING hands back in no order. */
export function byCreation(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
