// Where each consumer of the event log stands (webhook notifications, traces). One daemon at a
// time follows the log for a consumer: it holds the cursor under a lease it renews while it
// works, and moves the seq only with a conditional update naming itself and the seq it read, so
// a daemon that lost its lease, or two racing ones, can never move it twice or backwards.

import type { RepositoryContext } from './context.ts';

export interface EventCursor {
  consumer: string;
  /** Every event up to this seq has been handled. */
  seq: number;
  holder: string;
  leaseUntil: Date | null;
}

export class EventCursorRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /**
   * Creates the cursor at `startSeq` if it does not exist yet (a consumer configured on a store
   * with history starts from now, not from the beginning); an existing one is left as it is.
   */
  async ensure(consumer: string, startSeq: number): Promise<void> {
    const { db, codec, clock } = this.#ctx;
    await db
      .insertInto('event_cursors')
      .values({ consumer, seq: startSeq, holder: '', lease_until: null, updated_at: codec.time(clock.now()) })
      .onConflict((oc) => oc.column('consumer').doNothing())
      .execute();
  }

  /**
   * Takes or renews the cursor for `holder` until `leaseUntil`: granted when nobody holds it,
   * when `holder` already does, or when the holder's lease has run out. Undefined otherwise.
   */
  async hold(consumer: string, holder: string, leaseUntil: Date): Promise<EventCursor | undefined> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const row = await db
      .updateTable('event_cursors')
      .set({ holder, lease_until: codec.time(leaseUntil), updated_at: now })
      .where('consumer', '=', consumer)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('holder', '=', ''), eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
      .returningAll()
      .executeTakeFirst();
    return row && { consumer: row.consumer, seq: codec.readInt(row.seq), holder: row.holder, leaseUntil: codec.readTimeOrNull(row.lease_until) };
  }

  /** from → to, only while `holder` holds the cursor and it is still at `from`. */
  async advance(consumer: string, holder: string, from: number, to: number): Promise<boolean> {
    const { db, codec, clock } = this.#ctx;
    const result = await db
      .updateTable('event_cursors')
      .set({ seq: to, updated_at: codec.time(clock.now()) })
      .where('consumer', '=', consumer)
      .where('holder', '=', holder)
      .where('seq', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Lets another daemon take the cursor at once (a clean stop). */
  async release(consumer: string, holder: string): Promise<void> {
    const { db, codec, clock } = this.#ctx;
    await db
      .updateTable('event_cursors')
      .set({ holder: '', lease_until: null, updated_at: codec.time(clock.now()) })
      .where('consumer', '=', consumer)
      .where('holder', '=', holder)
      .execute();
  }

  async get(consumer: string): Promise<EventCursor | undefined> {
    const { db, codec } = this.#ctx;
    const row = await db.selectFrom('event_cursors').selectAll().where('consumer', '=', consumer).executeTakeFirst();
    return row && { consumer: row.consumer, seq: codec.readInt(row.seq), holder: row.holder, leaseUntil: codec.readTimeOrNull(row.lease_until) };
  }
}
