// Predictions: what a step expected, waiting to be resolved by observation. A prediction leaves
// `open` once, by a conditional UPDATE, as confirmed, refuted or expired.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { PredictionStatus } from '../../core/vocabulary.ts';
import type { PredictionsTable } from '../schema.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { asList, type RepositoryContext } from './context.ts';

export type ResolvedPredictionStatus = Exclude<PredictionStatus, 'open'>;

export interface PredictionRecord {
  id: string;
  mindId: string;
  intentionId: string | null;
  planId: string | null;
  stepId: string | null;
  /** The belief the prediction tests; a refutation weakens it. */
  beliefId: string | null;
  executionId: string | null;
  /** The event of the action the prediction follows from (its `tool_executed`). */
  eventId: string | null;
  statement: string;
  /** How it is checked: the expectation's check and window, as JSON. */
  verification: JsonObject;
  confidence: number;
  windowOpensAt: Date;
  windowClosesAt: Date;
  status: PredictionStatus;
  outcome: JsonObject | null;
  resolvedAt: Date | null;
  createdAt: Date;
}

export interface NewPrediction {
  mindId: string;
  intentionId?: string | null;
  planId?: string | null;
  stepId?: string | null;
  beliefId?: string | null;
  executionId?: string | null;
  eventId?: string | null;
  statement: string;
  verification: JsonObject;
  confidence: number;
  windowOpensAt: Date;
  windowClosesAt: Date;
}

export interface PredictionListOptions {
  status?: PredictionStatus | readonly PredictionStatus[];
  limit?: number;
}

export class PredictionRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewPrediction): Promise<PredictionRecord> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .insertInto('predictions')
      .values({
        id: newId(),
        mind_id: input.mindId,
        intention_id: input.intentionId ?? null,
        plan_id: input.planId ?? null,
        step_id: input.stepId ?? null,
        belief_id: input.beliefId ?? null,
        execution_id: input.executionId ?? null,
        event_id: input.eventId ?? null,
        statement: input.statement,
        verification: codec.json(input.verification),
        confidence: input.confidence,
        window_opens_at: codec.time(input.windowOpensAt),
        window_closes_at: codec.time(input.windowClosesAt),
        status: 'open',
        outcome: null,
        resolved_at: null,
        created_at: codec.time(clock.now()),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<PredictionRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('predictions').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Oldest first; every match unless given a limit. */
  async listByMind(mindId: string, options: PredictionListOptions = {}): Promise<PredictionRecord[]> {
    let query = this.#ctx.db.selectFrom('predictions').selectAll().where('mind_id', '=', mindId);
    if (options.status !== undefined) query = query.where('status', 'in', asList(options.status));
    query = query.orderBy('created_at').orderBy('id');
    if (options.limit !== undefined) query = query.limit(options.limit);
    const rows = await query.execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * Open predictions whose window closed before `now`, soonest closed first. The condition
   * repeats the predicate of `predictions_open_idx` so both stores use that partial index.
   */
  async listOverdue(now: Date, limit = 100): Promise<PredictionRecord[]> {
    const { db, codec } = this.#ctx;
    const rows = await db
      .selectFrom('predictions')
      .selectAll()
      .where(oneOf('status', ['open']))
      .where('window_closes_at', '<', codec.time(now))
      .orderBy('window_closes_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * open → `to`, once. With `closesNoEarlierThan`, only while the window has not closed before
   * that instant (a late observation cannot confirm). Returns the resolved prediction, or
   * undefined when it was no longer open or the guard failed (nothing changed).
   */
  async resolve(id: string, to: ResolvedPredictionStatus, outcome: JsonObject, guard: { closesNoEarlierThan?: Date } = {}): Promise<PredictionRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    let query = db
      .updateTable('predictions')
      .set({ status: to, outcome: codec.json(outcome), resolved_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'open');
    if (guard.closesNoEarlierThan !== undefined) {
      query = query.where('window_closes_at', '>=', codec.time(guard.closesNoEarlierThan));
    }
    const row = await query.returningAll().executeTakeFirst();
    return row && this.#decode(row);
  }

  #decode(row: Selectable<PredictionsTable>): PredictionRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      mindId: row.mind_id,
      intentionId: row.intention_id,
      planId: row.plan_id,
      stepId: row.step_id,
      beliefId: row.belief_id,
      executionId: row.execution_id,
      eventId: row.event_id,
      statement: row.statement,
      verification: codec.readJson<JsonObject>(row.verification),
      confidence: Number(row.confidence),
      windowOpensAt: codec.readTime(row.window_opens_at),
      windowClosesAt: codec.readTime(row.window_closes_at),
      status: row.status,
      outcome: codec.readJsonOrNull<JsonObject>(row.outcome),
      resolvedAt: codec.readTimeOrNull(row.resolved_at),
      createdAt: codec.readTime(row.created_at),
    };
  }
}
