// The append-only event log. `seq` orders it; readers resume from the last seq they saw.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import { sql } from 'kysely';
import { EventTypes, WAKE_EVENT_TYPES, type EventType } from '../../core/vocabulary.ts';
import type { EventsTable } from '../schema.ts';
import { insertRows } from '../row-table.ts';
import type { RepositoryContext } from './context.ts';

export interface EventRecord {
  seq: number;
  id: string;
  type: EventType;
  mindId: string | null;
  intentionId: string | null;
  planId: string | null;
  stepId: string | null;
  data: JsonObject;
  createdAt: Date;
}

export interface NewEvent {
  /**
   * Chosen by the caller when something written in the same unit of work must cite the event
   * (a prediction names the execution event it follows from): appendMany reads nothing back.
   */
  id?: string;
  type: EventType;
  mindId?: string | null;
  intentionId?: string | null;
  planId?: string | null;
  stepId?: string | null;
  data?: JsonObject;
}

/** Filters combine: an event must match every one given. */
export interface EventQuery {
  mindId?: string;
  intentionId?: string;
  planId?: string;
  /** Only events of these types (the audit trail: src/core/vocabulary.ts AUDIT_EVENT_TYPES). */
  types?: readonly EventType[];
  /** Only events after this seq, for resuming a read. */
  afterSeq?: number;
  limit?: number;
}

/**
 * What a waking event says to whoever wakes: its type, and for an approval the request's id
 * (`approval_approved:<id>`), so the executor serving the mind can perform that one action at
 * once instead of looking at everything due.
 */
export function wakeReason(event: NewEvent): string {
  const approvalId = event.data?.approval_id;
  return event.type === 'approval_approved' && typeof approvalId === 'string' ? `${event.type}:${approvalId}` : event.type;
}

/** The columns of an event row, with PostgreSQL's types (row-table.ts). */
const EVENT_COLUMNS = { id: 'uuid', type: 'text', mind_id: 'uuid', intention_id: 'uuid', plan_id: 'uuid', step_id: 'uuid', data: 'jsonb', created_at: 'timestamptz' } as const;

export class EventRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async append(event: NewEvent): Promise<EventRecord> {
    const [record] = await this.#write([event], true);
    return record!;
  }

  /**
   * Appends several events in one statement, in the order given (their seqs follow it). A record
   * of an act is several facts at once (the policy decision, the authorisation, the execution,
   * the step's move), and a pass of the executor writes those of all its steps together: one
   * statement on PostgreSQL, one per chunk on SQLite (row-table.ts), and one wake-up per reason
   * however many events carry it. Nothing is read back.
   */
  async appendMany(events: readonly NewEvent[]): Promise<void> {
    await this.#write(events, false);
  }

  async #write(events: readonly NewEvent[], readBack: boolean): Promise<EventRecord[]> {
    if (events.length === 0) return [];
    for (const event of events) {
      if (!EventTypes.has(event.type)) throw new TypeError(`unknown event type: ${String(event.type)}`);
    }
    const { db, codec, clock } = this.#ctx;
    const at = codec.time(clock.now());
    const values = events.map((event) => ({
      id: event.id ?? newId(),
      type: event.type,
      mind_id: event.mindId ?? null,
      intention_id: event.intentionId ?? null,
      plan_id: event.planId ?? null,
      step_id: event.stepId ?? null,
      data: codec.json(event.data ?? {}),
      created_at: at,
    }));
    // Only the seq is read back, for the one caller that wants the record: the rest is what was written.
    const rows = readBack ? await db.insertInto('events').values(values).returning(['id', 'seq']).execute() : [];
    if (!readBack) await insertRows(db, codec.kind, 'events', EVENT_COLUMNS, values);
    const reasons = [...new Set(events.filter((event) => WAKE_EVENT_TYPES.has(event.type)).map(wakeReason))];
    if (reasons.length > 0) {
      // NOTIFY is transactional: other processes hear it when (and only if) this commits. A
      // wake-up is not data: readers always re-read the store, so one per reason is enough.
      if (this.#ctx.wakeChannel) {
        await sql`select pg_notify(${this.#ctx.wakeChannel}, r) from (values ${sql.join(reasons.map((r) => sql`(${r})`))}) as reasons (r)`.execute(db);
      }
      for (const reason of reasons) this.#ctx.wake(reason);
    }
    const written = new Map(rows.map((row) => [row.id, codec.readInt(row.seq)]));
    const createdAt = codec.readTime(at);
    // RETURNING hands rows back in no promised order; seq is the order they were written in.
    return values
      .map((row, i) => ({
        seq: written.get(row.id)!,
        id: row.id,
        type: row.type,
        mindId: row.mind_id,
        intentionId: row.intention_id,
        planId: row.plan_id,
        stepId: row.step_id,
        data: events[i]!.data ?? {},
        createdAt,
      }))
      .filter((record) => record.seq !== undefined)
      .sort((a, b) => a.seq - b.seq);
  }

  /** Oldest first. */
  async list(query: EventQuery = {}): Promise<EventRecord[]> {
    let select = this.#ctx.db.selectFrom('events').selectAll();
    if (query.mindId !== undefined) select = select.where('mind_id', '=', query.mindId);
    if (query.intentionId !== undefined) select = select.where('intention_id', '=', query.intentionId);
    if (query.planId !== undefined) select = select.where('plan_id', '=', query.planId);
    if (query.types !== undefined) {
      if (query.types.length === 0) return [];
      select = select.where('type', 'in', [...query.types]);
    }
    if (query.afterSeq !== undefined) select = select.where('seq', '>', query.afterSeq);
    const rows = await select
      .orderBy('seq')
      .limit(query.limit ?? 100)
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  async get(id: string): Promise<EventRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** The seq of the newest event, 0 when the log is empty: where a live reader starts. */
  async latestSeq(): Promise<number> {
    const { latest } = await this.#ctx.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('seq').as('latest'))
      .executeTakeFirstOrThrow();
    return latest === null || latest === undefined ? 0 : this.#ctx.codec.readInt(latest);
  }

  #decode(row: Selectable<EventsTable>): EventRecord {
    const { codec } = this.#ctx;
    return {
      seq: codec.readInt(row.seq),
      id: row.id,
      type: row.type,
      mindId: row.mind_id,
      intentionId: row.intention_id,
      planId: row.plan_id,
      stepId: row.step_id,
      data: codec.readJson<JsonObject>(row.data),
      createdAt: codec.readTime(row.created_at),
    };
  }
}
