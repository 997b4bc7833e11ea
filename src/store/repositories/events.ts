// The append-only event log. `seq` orders it; readers resume from the last seq they saw.

import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import { sql } from 'kysely';
import { AUDIT_EVENT_TYPES, EventTypes, WAKE_EVENT_TYPES, type EventType } from '../../core/vocabulary.ts';
import type { Database, EventsTable } from '../schema.ts';
import { chunksFor, insertRows, insertStatement } from '../row-table.ts';
import { callRowAt, expandRow, idCandidates, MOST_EVENTS_A_ROW, spanOf, storedTypesFor, type StoredEventType, type StoredRecord } from '../call-rows.ts';
import { isAuditEvent } from '../vocabulary-sql.ts';
import type { Clock } from '../../core/clock.ts';
import type { Codec, StoreKind } from '../codec.ts';
import type { RepositoryContext } from './context.ts';

const AUDIT_TYPES: ReadonlySet<EventType> = new Set(AUDIT_EVENT_TYPES);

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
  /** Only events up to this seq: as far as a reader knows no earlier seq is still in flight (src/bus/log-horizon.ts). */
  throughSeq?: number;
  /** Only events before this seq, for reading on towards older ones (with `newestFirst`). */
  beforeSeq?: number;
  /** Newest first instead of oldest first: a timeline's tail. */
  newestFirst?: boolean;
  limit?: number;
}

/**
 * What a waking event says to whoever wakes: its type, and for an approval the request's id, its
 * mind and its origin (`approval_approved:<id>:<mind id>:<origin>`, or `approval_approved:<id>`
 * when the event names no mind or origin), so the executor serving the mind can perform that one
 * action at once instead of looking at everything due, reading what it needs in one round.
 */
export function wakeReason(event: NewEvent): string {
  const approvalId = event.data?.approval_id;
  if (event.type !== 'approval_approved' || typeof approvalId !== 'string') return event.type;
  const origin = event.data?.origin;
  return event.mindId && typeof origin === 'string' ? `${event.type}:${approvalId}:${event.mindId}:${origin}` : `${event.type}:${approvalId}`;
}

/** NOTIFY on `channel` once per reason. */
export function notifyQuery(channel: string, reasons: readonly string[]) {
  return sql`select pg_notify(${channel}, r) from (values ${sql.join(reasons.map((r) => sql`(${r})`))}) as reasons (r)`;
}

/** The distinct wake-up reasons of the waking events among `events`. */
export function wakeReasons(events: readonly NewEvent[]): string[] {
  return [...new Set(events.filter((event) => WAKE_EVENT_TYPES.has(event.type)).map(wakeReason))];
}

/** An event as written: its values encoded for the store. */
export type EventRow = {
  id: string;
  type: EventType;
  mind_id: string | null;
  intention_id: string | null;
  plan_id: string | null;
  step_id: string | null;
  data: string;
  created_at: string;
};

/** The columns of an event row, with PostgreSQL's types (row-table.ts). */
export const EVENT_COLUMNS = { id: 'uuid', type: 'text', mind_id: 'uuid', intention_id: 'uuid', plan_id: 'uuid', step_id: 'uuid', data: 'jsonb', created_at: 'timestamptz' } as const;

/** A row of `events` as stored: an event's, or a call row holding several (call-rows.ts). */
export type StoredRow = Omit<EventRow, 'type'> & { type: StoredEventType };

/** The rows of `events` as written, refusing an unknown type before anything is written or queued. */
export function eventRows(codec: Codec, clock: Clock, events: readonly NewEvent[]): EventRow[] {
  refuseUnknownTypes(events);
  const at = codec.time(clock.now());
  return events.map((event) => eventRow(at, event, event.type, codec.json(event.data ?? {})));
}

/**
 * The rows `events` are stored as: on SQLite, each call's decision, authorisation and outcome
 * written in a row (and the completed step's move after them) as one call row (call-rows.ts), its
 * data their data objects in order; elsewhere, as eventRows.
 */
export function storedRows(codec: Codec, clock: Clock, events: readonly NewEvent[]): StoredRow[] {
  if (codec.kind !== 'sqlite') return eventRows(codec, clock, events);
  refuseUnknownTypes(events);
  const at = codec.time(clock.now());
  const rows: StoredRow[] = [];
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i]!;
    const call = callRowAt(events, i);
    if (!call) {
      rows.push(eventRow(at, event, event.type, codec.json(event.data ?? {})));
      continue;
    }
    const span = spanOf(call);
    // Each part encoded as its own event's data would be, so a part reads back as it was.
    let data = '[';
    for (let part = 0; part < span; part += 1) data += (part > 0 ? ',' : '') + codec.json(events[i + part]!.data ?? {});
    const last = events[i + span - 1]!;
    rows.push({
      // The outcome's id, which its writer may have chosen (a prediction cites it).
      id: events[i + 2]!.id ?? newId(),
      type: call,
      mind_id: event.mindId ?? null,
      intention_id: event.intentionId ?? null,
      plan_id: last.planId ?? null,
      step_id: last.stepId ?? null,
      data: `${data}]`,
      created_at: at,
    });
    i += span - 1;
  }
  return rows;
}

function refuseUnknownTypes(events: readonly NewEvent[]): void {
  for (const event of events) {
    if (!EventTypes.has(event.type)) throw new TypeError(`unknown event type: ${String(event.type)}`);
  }
}

function eventRow<T extends StoredEventType>(at: string, event: NewEvent, type: T, data: string) {
  return {
    id: event.id ?? newId(),
    type,
    mind_id: event.mindId ?? null,
    intention_id: event.intentionId ?? null,
    plan_id: event.planId ?? null,
    step_id: event.stepId ?? null,
    data,
    created_at: at,
  };
}

/**
 * The stored rows holding the events matching `query`, oldest first unless it asks for the newest
 * first (EventRepository.list; exported to test its plan). On SQLite a call row (call-rows.ts)
 * holds up to four events, at its seq and those just before it, so the read asks for every call
 * row holding a wanted type, reaches three seqs further towards the newer end, and takes four rows
 * more than the limit: one row at the older end and three at the newer may hold none of the events
 * wanted, and the reader drops what lies outside (list).
 */
export function eventsQuery(db: Kysely<Database>, kind: StoreKind, query: EventQuery) {
  const reach = kind === 'sqlite' ? MOST_EVENTS_A_ROW - 1 : 0;
  const audit = query.types !== undefined && query.types.length > 0 && query.types.every((type) => AUDIT_TYPES.has(type));
  let select = db.selectFrom('events').selectAll();
  if (query.mindId !== undefined) {
    // An agent's audit trail: SQLite would rather walk the mind's whole log by its index than the
    // few audit events by theirs (it keeps no statistics to know better); a unary plus keeps it
    // off the mind's index. PostgreSQL chooses by its statistics.
    const mind = audit && kind === 'sqlite' ? sql<string>`+${sql.ref('mind_id')}` : sql<string>`${sql.ref('mind_id')}`;
    select = select.where(mind, '=', query.mindId);
  }
  if (query.intentionId !== undefined) select = select.where('intention_id', '=', query.intentionId);
  if (query.planId !== undefined) select = select.where('plan_id', '=', query.planId);
  if (query.types !== undefined) {
    select = select.where('type', 'in', kind === 'sqlite' ? storedTypesFor(query.types, query.planId !== undefined) : [...query.types]);
    // Audit events only: their index serves when its predicate is repeated as written.
    if (audit) select = select.where(isAuditEvent());
  }
  if (query.afterSeq !== undefined) select = select.where('seq', '>', query.afterSeq);
  if (query.throughSeq !== undefined) select = select.where('seq', '<=', query.throughSeq + reach);
  if (query.beforeSeq !== undefined) select = select.where('seq', '<', query.beforeSeq + reach);
  return select.orderBy('seq', query.newestFirst ? 'desc' : 'asc').limit((query.limit ?? 100) + (reach > 0 ? reach + 1 : 0));
}

export class EventRepository {
  readonly #ctx: RepositoryContext;
  /**
   * Inside a transaction, appendMany only queues its rows, and they are inserted together when
   * the transaction is about to commit (flush), or before anything reads the log or appends one
   * event with its seq: a unit of work that records in several places (a step's move, the plan
   * it completes, its intention, the procedure it leaves) writes one insert, not one per place.
   * Order is kept: rows are inserted in the order they were appended.
   */
  readonly #queued: { rows: StoredRow[]; reasons: Set<string> } | null;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
    this.#queued = ctx.db.isTransaction ? { rows: [], reasons: new Set() } : null;
  }

  async append(event: NewEvent): Promise<EventRecord> {
    await this.flush();
    const [row] = eventRows(this.#ctx.codec, this.#ctx.clock, [event]);
    const { db, codec } = this.#ctx;
    // Only the seq is read back: the rest is what was written.
    const { seq } = await db.insertInto('events').values(row!).returning('seq').executeTakeFirstOrThrow();
    await this.#notify(wakeReasons([event]));
    return { seq: codec.readInt(seq), ...this.#record(row!), data: event.data ?? {} };
  }

  /**
   * Appends several events in the order given (their seqs follow it). A record of an act is
   * several facts at once (the policy decision, the authorisation, the execution, the step's
   * move), and a pass of the executor writes those of all its steps together: one statement on
   * PostgreSQL, one per chunk on SQLite (row-table.ts), and one wake-up per reason however many
   * events carry it. Inside a transaction the rows wait for its commit (see #queued). Nothing is
   * read back.
   */
  async appendMany(events: readonly NewEvent[]): Promise<void> {
    const rows = storedRows(this.#ctx.codec, this.#ctx.clock, events);
    const reasons = wakeReasons(events);
    if (this.#queued) {
      this.#queued.rows.push(...rows);
      for (const reason of reasons) this.#queued.reasons.add(reason);
      return;
    }
    await this.#insert(rows, reasons);
  }

  /** Inserts what this transaction's appendMany queued; the store calls it before committing. */
  async flush(): Promise<void> {
    if (!this.#queued || this.#queued.rows.length === 0) return;
    const reasons = [...this.#queued.reasons];
    this.#queued.reasons.clear();
    await this.#insert(this.#queued.rows.splice(0), reasons);
  }

  async #insert(rows: readonly StoredRow[], reasons: readonly string[]): Promise<void> {
    if (rows.length === 0) return;
    const { db, codec, wakeChannel } = this.#ctx;
    if (codec.kind === 'sqlite' && rows.some((row) => spanOf(row.type) > 1)) {
      await insertSpanningRows(db, rows);
      await this.#notify(reasons);
      return;
    }
    if (wakeChannel && reasons.length > 0) {
      // The rows and their NOTIFY in one statement: a batch that wakes others is one round trip.
      await sql`with written as (${insertStatement(codec.kind, 'events', EVENT_COLUMNS, rows)}) ${notifyQuery(wakeChannel, reasons)}`.execute(db);
      for (const reason of reasons) this.#ctx.wake(reason);
      return;
    }
    await insertRows(db, codec.kind, 'events', EVENT_COLUMNS, rows);
    await this.#notify(reasons);
  }

  /** Wakes whoever waits for `reasons`: in this process at once or at commit, elsewhere over NOTIFY. */
  async #notify(reasons: readonly string[]): Promise<void> {
    if (reasons.length === 0) return;
    // NOTIFY is transactional: other processes hear it when (and only if) this commits. A
    // wake-up is not data: readers always re-read the store, so one per reason is enough.
    if (this.#ctx.wakeChannel) {
      await notifyQuery(this.#ctx.wakeChannel, reasons).execute(this.#ctx.db);
    }
    for (const reason of reasons) this.#ctx.wake(reason);
  }

  #record(row: EventRow): Omit<EventRecord, 'seq' | 'data'> {
    return { id: row.id, type: row.type, mindId: row.mind_id, intentionId: row.intention_id, planId: row.plan_id, stepId: row.step_id, createdAt: this.#ctx.codec.readTime(row.created_at) };
  }

  /** Oldest first. */
  async list(query: EventQuery = {}): Promise<EventRecord[]> {
    await this.flush();
    if (query.types !== undefined && query.types.length === 0) return [];
    const rows = await eventsQuery(this.#ctx.db, this.#ctx.codec.kind, query).execute();
    // The rows' events, less those a call row holds beside the ones asked for (eventsQuery).
    const limit = query.limit ?? 100;
    const types = query.types && new Set(query.types);
    const events: EventRecord[] = [];
    for (const row of rows) {
      for (const event of expandRow(this.#decode(row), query.newestFirst)) {
        if (events.length === limit) return events;
        if (types && !types.has(event.type)) continue;
        if (query.planId !== undefined && event.planId !== query.planId) continue;
        if (query.afterSeq !== undefined && event.seq <= query.afterSeq) continue;
        if (query.throughSeq !== undefined && event.seq > query.throughSeq) continue;
        if (query.beforeSeq !== undefined && event.seq >= query.beforeSeq) continue;
        events.push(event);
      }
    }
    return events;
  }

  async get(id: string): Promise<EventRecord | undefined> {
    await this.flush();
    const { db, codec } = this.#ctx;
    if (codec.kind !== 'sqlite') {
      const row = await db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
      return row && (this.#decode(row) as EventRecord);
    }
    // The event may be any of a call row's (call-rows.ts, partId).
    const rows = await db.selectFrom('events').selectAll().where('id', 'in', idCandidates(id)).execute();
    for (const row of rows) {
      const found = expandRow(this.#decode(row)).find((event) => event.id === id);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * True when every seq of the log is visible by the time any later one is, so a reader needs no
   * horizon (src/bus/log-horizon.ts): SQLite, where one writer at a time takes seqs under its
   * write lock, and the counter it takes them from rolls back with its transaction. False on
   * PostgreSQL, whose writers take seqs side by side and commit them in either order.
   */
  get seqsVisibleInOrder(): boolean {
    return this.#ctx.codec.kind === 'sqlite';
  }

  /**
   * The seqs of the log after `afterSeq`, oldest first, at most `limit`, whatever events they
   * are: what a reader of a narrowed view of the log checks for seqs still in flight before it
   * moves past them (src/bus/log-horizon.ts). Reads the primary key alone on PostgreSQL.
   */
  async seqsAfter(afterSeq: number, limit: number): Promise<number[]> {
    // SQLite's rows may hold several seqs each (call-rows.ts): their types say how many.
    if (this.#ctx.codec.kind === 'sqlite') return (await this.seqTimesAfter(afterSeq, limit)).map((entry) => entry.seq);
    await this.flush();
    const rows = await this.#ctx.db.selectFrom('events').select('seq').where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
    return rows.map((row) => this.#ctx.codec.readInt(row.seq));
  }

  /**
   * The seqs of the log after `afterSeq` with when their events were written, oldest first, at
   * most `limit`: what a live reader looks at as it starts, to tell a seq still in flight from a
   * rolled-back one (src/bus/log-horizon.ts, openingPlace).
   */
  async seqTimesAfter(afterSeq: number, limit: number): Promise<{ seq: number; createdAt: Date }[]> {
    await this.flush();
    const { db, codec } = this.#ctx;
    // One row more: the first may be a call row whose earlier seqs were already passed.
    const rows = await db
      .selectFrom('events')
      .select(['seq', 'type', 'created_at'])
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
    const seqs: { seq: number; createdAt: Date }[] = [];
    for (const row of rows) {
      const last = codec.readInt(row.seq);
      const createdAt = codec.readTime(row.created_at);
      for (let seq = last - spanOf(row.type) + 1; seq <= last; seq += 1) {
        if (seq > afterSeq && seqs.length < limit) seqs.push({ seq, createdAt });
      }
    }
    return seqs;
  }

  /** The seq of the newest event, 0 when the log is empty: where a live reader starts. */
  async latestSeq(): Promise<number> {
    await this.flush();
    const { latest } = await this.#ctx.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('seq').as('latest'))
      .executeTakeFirstOrThrow();
    return latest === null || latest === undefined ? 0 : this.#ctx.codec.readInt(latest);
  }

  #decode(row: Selectable<EventsTable>): StoredRecord {
    const { codec } = this.#ctx;
    return {
      seq: codec.readInt(row.seq),
      id: row.id,
      type: row.type,
      mindId: row.mind_id,
      intentionId: row.intention_id,
      planId: row.plan_id,
      stepId: row.step_id,
      data: codec.readJson<unknown>(row.data),
      createdAt: codec.readTime(row.created_at),
    };
  }
}

/**
 * Inserts rows among which are call rows, on SQLite: every row's seq written explicitly, each
 * after the previous row's last, counted from the log's high-water mark (`sqlite_sequence`, which
 * AUTOINCREMENT keeps at the largest seq ever taken and updates only when the statement ends, so
 * every row of one statement reads the same mark). An insert takes the write lock before it reads
 * anything (and every transaction begins IMMEDIATE, sqlite-dialect.ts), so no other writer takes
 * a seq in between.
 */
async function insertSpanningRows(db: Kysely<Database>, rows: readonly StoredRow[]): Promise<void> {
  // The columns in the order each row's values are given below.
  const head = `insert into "events" ("seq", "id", "type", "mind_id", "intention_id", "plan_id", "step_id", "data", "created_at") select mark.seq + v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8, v.column9 from (select coalesce((select seq from sqlite_sequence where name = 'events'), 0) as seq) as mark, (values `;
  const tuple = '(?, ?, ?, ?, ?, ?, ?, ?, ?)';
  for (const chunk of chunksFor('sqlite', rows)) {
    const values: unknown[] = [];
    let offset = 0;
    for (const row of chunk) {
      offset += spanOf(row.type);
      values.push(offset, row.id, row.type, row.mind_id, row.intention_id, row.plan_id, row.step_id, row.data, row.created_at);
    }
    await db.executeQuery(CompiledQuery.raw(`${head}${new Array(chunk.length).fill(tuple).join(', ')}) as v`, values));
  }
}
