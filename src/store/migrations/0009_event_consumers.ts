// Consumers of the event log that live in the daemon (docs/notifications.md, docs/traces.md):
// a durable cursor per consumer, held by one daemon at a time under a lease, and the log of
// outgoing webhook deliveries, each claimed by one daemon to send. Forward-only.

import { sql, type Kysely, type Migration } from 'kysely';
import { DELIVERY_STATUSES } from '../../core/vocabulary.ts';
import type { StoreKind } from '../codec.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { columnTypesFor } from './column-types.ts';

export function eventConsumers(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const t = columnTypesFor(kind);
      const seq = kind === 'postgres' ? 'bigint' : 'integer';
      await db.schema
        .createTable('event_cursors')
        .addColumn('consumer', 'text', (c) => c.primaryKey())
        // Every event up to this seq has been handled.
        .addColumn('seq', seq, (c) => c.notNull().defaultTo(0))
        // The daemon following the log for this consumer, until lease_until.
        .addColumn('holder', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('lease_until', t.time)
        .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', t.id, (c) => c.primaryKey())
        // The configured target's name; its URL and secret stay in the configuration.
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('event_id', t.id, (c) => c.notNull())
        .addColumn('event_seq', seq, (c) => c.notNull())
        // What happened, e.g. approval.requested (docs/notifications.md).
        .addColumn('topic', 'text', (c) => c.notNull())
        .addColumn('mind_id', t.id)
        // The exact body sent at every attempt, so a retry is byte for byte the first try.
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', t.time, (c) => c.notNull())
        .addColumn('lease_until', t.time)
        .addColumn('sent_by', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('response_status', 'integer')
        .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
        .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
        .addColumn('delivered_at', t.time)
        .addCheckConstraint('webhook_deliveries_status_check', oneOf('status', DELIVERY_STATUSES))
        // One delivery per event and target, whoever followed the log.
        .addUniqueConstraint('webhook_deliveries_event_target_key', ['event_id', 'target'])
        .execute();
      // Due deliveries (pending ones by their next attempt, and sending ones whose lease ran out).
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['next_attempt_at'])
        .where(sql.ref('status'), 'in', [sql.lit('pending'), sql.lit('sending')])
        .execute();
      await db.schema.createIndex('webhook_deliveries_log_idx').on('webhook_deliveries').columns(['created_at']).execute();
    },
  };
}
