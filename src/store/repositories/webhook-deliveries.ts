// Outgoing webhook deliveries (docs/notifications.md): one row per event and target, written in
// the transaction that moves the webhooks' event cursor, then sent at least once. A daemon claims
// a due delivery with a conditional update (pending and due, or sending under a lease that ran
// out) before sending it, so with several daemons on one PostgreSQL each attempt is made by one.

import type { ExpressionBuilder, Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { DeliveryStatus } from '../../core/vocabulary.ts';
import type { Database, WebhookDeliveriesTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';

export interface DeliveryRecord {
  id: string;
  target: string;
  eventId: string;
  eventSeq: number;
  topic: string;
  mindId: string | null;
  /** The exact body sent at every attempt. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  leaseUntil: Date | null;
  sentBy: string;
  responseStatus: number | null;
  lastError: string;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
}

export interface NewDelivery {
  target: string;
  eventId: string;
  eventSeq: number;
  topic: string;
  mindId: string | null;
  body: string;
}

/** What one attempt came to. */
export type AttemptOutcome =
  | { status: 'delivered'; responseStatus: number }
  | { status: 'pending'; nextAttemptAt: Date; responseStatus: number | null; error: string }
  | { status: 'failed'; responseStatus: number | null; error: string };

export interface DeliveryListOptions {
  status?: DeliveryStatus;
  target?: string;
  /** Newest first; only deliveries created before this one (paging). */
  before?: string;
  limit?: number;
}

export class WebhookDeliveryRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /** Due at once. A delivery already written for the same event and target is left as it is. */
  async enqueue(deliveries: readonly NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    await db
      .insertInto('webhook_deliveries')
      .values(
        deliveries.map((d) => ({
          id: newId(),
          target: d.target,
          event_id: d.eventId,
          event_seq: d.eventSeq,
          topic: d.topic,
          mind_id: d.mindId,
          body: d.body,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(['event_id', 'target']).doNothing())
      .execute();
  }

  /**
   * Claims up to `limit` due deliveries for `holder` until `leaseUntil`, oldest event first: of
   * one target (`{ target }`), of every target but some (`{ except }`), or of all. A delivery
   * another daemon claimed first is not returned: the update's condition is checked again on the
   * row it locks.
   */
  async claimDue(holder: string, leaseUntil: Date, limit: number, of: { target: string } | { except: readonly string[] } | null = null): Promise<DeliveryRecord[]> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const due = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) => {
      const when = eb.and([eb('next_attempt_at', '<=', now), eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'sending'), eb('lease_until', '<=', now)])])]);
      if (of === null) return when;
      if ('target' in of) return eb.and([when, eb('target', '=', of.target)]);
      return of.except.length === 0 ? when : eb.and([when, eb('target', 'not in', [...of.except])]);
    };
    const candidates = db.selectFrom('webhook_deliveries').select('id').where(due).orderBy('event_seq').orderBy('id').limit(limit);
    const rows = await db
      .updateTable('webhook_deliveries')
      .set({ status: 'sending', sent_by: holder, lease_until: codec.time(leaseUntil), updated_at: now })
      .where('id', 'in', candidates)
      .where(due)
      .returningAll()
      .execute();
    return rows.map((row) => this.#decode(row)).sort((a, b) => a.eventSeq - b.eventSeq || a.target.localeCompare(b.target));
  }

  /** Records an attempt by `holder`, only while its claim is still the one on the row. */
  async recordAttempt(id: string, holder: string, outcome: AttemptOutcome): Promise<boolean> {
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const result = await db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: outcome.status,
        attempts: eb('attempts', '+', 1),
        lease_until: null,
        response_status: outcome.responseStatus,
        last_error: outcome.status === 'delivered' ? '' : outcome.error,
        next_attempt_at: codec.time(outcome.status === 'pending' ? outcome.nextAttemptAt : now),
        delivered_at: outcome.status === 'delivered' ? codec.time(now) : null,
        updated_at: codec.time(now),
      }))
      .where('id', '=', id)
      .where('status', '=', 'sending')
      .where('sent_by', '=', holder)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Newest first. */
  async list(options: DeliveryListOptions = {}): Promise<DeliveryRecord[]> {
    let select = this.#ctx.db.selectFrom('webhook_deliveries').selectAll();
    if (options.status !== undefined) select = select.where('status', '=', options.status);
    if (options.target !== undefined) select = select.where('target', '=', options.target);
    if (options.before !== undefined) {
      const before = await this.get(options.before);
      if (!before) return [];
      const at = this.#ctx.codec.time(before.createdAt);
      select = select.where((eb) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', before.id)])]));
    }
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 50)
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  #decode(row: Selectable<WebhookDeliveriesTable>): DeliveryRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      target: row.target,
      eventId: row.event_id,
      eventSeq: codec.readInt(row.event_seq),
      topic: row.topic,
      mindId: row.mind_id,
      body: row.body,
      status: row.status,
      attempts: codec.readInt(row.attempts),
      nextAttemptAt: codec.readTime(row.next_attempt_at),
      leaseUntil: codec.readTimeOrNull(row.lease_until),
      sentBy: row.sent_by,
      responseStatus: row.response_status === null ? null : codec.readInt(row.response_status),
      lastError: row.last_error,
      createdAt: codec.readTime(row.created_at),
      updatedAt: codec.readTime(row.updated_at),
      deliveredAt: codec.readTimeOrNull(row.delivered_at),
    };
  }
}
