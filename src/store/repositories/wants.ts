// Wants: what a mind's intentions are formed for (docs/mind.md, "Wants and dreams"). A want is
// open until an intention formed for it cannot be planned; it is then suppressed, once, by a
// conditional update.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { WantOrigin, WantStatus } from '../../core/vocabulary.ts';
import type { WantsTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';

export interface WantRecord {
  id: string;
  mindId: string;
  statement: string;
  origin: WantOrigin;
  status: WantStatus;
  /** Why it was suppressed; empty while open. */
  reason: string;
  intentionId: string | null;
  planId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewWant {
  mindId: string;
  statement: string;
  origin: WantOrigin;
  status?: WantStatus;
  reason?: string;
  intentionId?: string | null;
  planId?: string | null;
}

export class WantRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewWant): Promise<WantRecord> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const row = await db
      .insertInto('wants')
      .values({
        id: newId(),
        mind_id: input.mindId,
        statement: input.statement,
        origin: input.origin,
        status: input.status ?? 'open',
        reason: input.reason ?? '',
        intention_id: input.intentionId ?? null,
        plan_id: input.planId ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<WantRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('wants').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** The want an intention was formed for, if one was recorded. */
  async getByIntention(intentionId: string): Promise<WantRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('wants').selectAll().where('intention_id', '=', intentionId).orderBy('id').executeTakeFirst();
    return row && this.#decode(row);
  }

  /** The mind's suppressed wants stating exactly `statement` (a dream may not raise them again). */
  async findSuppressed(mindId: string, statement: string): Promise<WantRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('wants').selectAll().where('mind_id', '=', mindId).where('status', '=', 'suppressed').where('statement', '=', statement).orderBy('id').executeTakeFirst();
    return row && this.#decode(row);
  }

  /** open → suppressed with the reason; undefined when it was not open. */
  async suppress(id: string, reason: string): Promise<WantRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('wants')
      .set({ status: 'suppressed', reason, updated_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /** One page of a mind's wants, newest first, keyed on the (time-ordered) id. */
  async listPage(mindId: string, options: { status?: WantStatus; beforeId?: string; limit: number }): Promise<WantRecord[]> {
    let query = this.#ctx.db.selectFrom('wants').selectAll().where('mind_id', '=', mindId);
    if (options.status !== undefined) query = query.where('status', '=', options.status);
    if (options.beforeId !== undefined) query = query.where('id', '<', options.beforeId);
    const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  #decode(row: Selectable<WantsTable>): WantRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      mindId: row.mind_id,
      statement: row.statement,
      origin: row.origin,
      status: row.status,
      reason: row.reason,
      intentionId: row.intention_id,
      planId: row.plan_id,
      createdAt: codec.readTime(row.created_at),
      updatedAt: codec.readTime(row.updated_at),
    };
  }
}
