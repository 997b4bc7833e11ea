// Minds: the agents whose intentions Praxis serves.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { MindStatus } from '../../core/vocabulary.ts';
import type { MindsTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';
import type { Codec } from '../codec.ts';

export interface MindRecord {
  id: string;
  name: string;
  status: MindStatus;
  /** A sandbox mind plans but never acts. */
  sandbox: boolean;
  /** The host this mind is bound to; null means any daemon may execute it. */
  host: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewMind {
  name: string;
  host?: string | null;
  sandbox?: boolean;
}

export class MindRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewMind): Promise<MindRecord> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const row = await db
      .insertInto('minds')
      .values({
        id: newId(),
        name: input.name,
        status: 'active',
        sandbox: codec.bool(input.sandbox ?? false),
        host: input.host ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<MindRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('minds').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Takes the mind's row lock for the rest of the caller's transaction, so that writers deciding
   * from what the mind holds (its beliefs, its policy rules) take turns. On PostgreSQL the row is
   * locked FOR NO KEY UPDATE: writers of this lock wait for each other, but not for the KEY SHARE
   * locks every insert referencing the mind takes (an execution, an event). FOR UPDATE conflicted
   * with those: two executor batches that had each inserted rows of the mind and then asked for
   * it deadlocked. On SQLite nothing is done: every transaction begins IMMEDIATE and holds the
   * write lock from its first statement already.
   */
  async lockForUpdate(id: string): Promise<void> {
    if (this.#ctx.codec.kind !== 'postgres') return;
    await this.#ctx.db.selectFrom('minds').select('id').where('id', '=', id).forNoKeyUpdate().execute();
  }

  async getByName(name: string): Promise<MindRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('minds').selectAll().where('name', '=', name).executeTakeFirst();
    return row && this.#decode(row);
  }

  async list(): Promise<MindRecord[]> {
    const rows = await this.#ctx.db.selectFrom('minds').selectAll().orderBy('name').execute();
    return rows.map((row) => this.#decode(row));
  }

  /** One page of minds by name, starting after `afterName`: names are unique, so they key the page. */
  async listPage(options: { afterName?: string; limit: number }): Promise<MindRecord[]> {
    let query = this.#ctx.db.selectFrom('minds').selectAll();
    if (options.afterName !== undefined) query = query.where('name', '>', options.afterName);
    const rows = await query.orderBy('name').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  /** Returns the updated mind, or undefined when there is no such mind. */
  async setStatus(id: string, status: MindStatus): Promise<MindRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('minds')
      .set({ status, updated_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  #decode(row: Selectable<MindsTable>): MindRecord {
    return decodeMind(row, this.#ctx.codec);
  }
}

/** A row of `minds` as its record. */
export function decodeMind(row: Selectable<MindsTable>, codec: Codec): MindRecord {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    sandbox: codec.readBool(row.sandbox),
    host: row.host,
    createdAt: codec.readTime(row.created_at),
    updatedAt: codec.readTime(row.updated_at),
  };
}
