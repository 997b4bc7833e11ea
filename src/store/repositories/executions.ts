// Tool executions: one row per capability invocation, stored with the origin that caused it.
// For a non-idempotent write the row is written ahead, as `started`, and committed before the
// side effect; `finish` records the outcome afterwards. A crash in between leaves a `started`
// row, which recovery finds by origin and treats as "outcome unknown", never as "not run".

import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { ExecutionStatus } from '../../core/vocabulary.ts';
import type { Database, ToolExecutionsTable } from '../schema.ts';
import { hasOrigin } from '../vocabulary-sql.ts';
import { insertRows } from '../row-table.ts';
import { decodeAction } from './action-columns.ts';
import type { Codec } from '../codec.ts';
import type { RepositoryContext } from './context.ts';

export interface ExecutionRecord {
  id: string;
  mindId: string;
  capability: string;
  target: string;
  params: JsonObject;
  /** What caused it, e.g. `plan_step:<step id>`; empty when nothing recorded did. */
  origin: string;
  correlationId: string;
  evidence: JsonObject;
  approvalId: string | null;
  grantId: string | null;
  status: ExecutionStatus;
  result: JsonObject | null;
  error: string;
  /** The capability said that running it again is harmless (the failure happened before any effect). */
  retrySafe: boolean;
  startedAt: Date;
  finishedAt: Date | null;
  createdAt: Date;
}

export interface NewExecution {
  /** Chosen by the caller when it must name the execution before the row is written (a step's outcome cites it). */
  id?: string;
  mindId: string;
  capability: string;
  target: string;
  params: JsonObject;
  origin: string;
  correlationId: string;
  evidence: JsonObject;
  approvalId?: string | null;
  grantId?: string | null;
}

export type FinishedExecutionStatus = Extract<ExecutionStatus, 'succeeded' | 'failed'>;

export interface ExecutionOutcome {
  status: FinishedExecutionStatus;
  result?: JsonObject | null;
  error?: string;
  retrySafe?: boolean;
}

/**
 * Rows caused by one origin. The `origin <> ''` term repeats the partial index's predicate, so
 * SQLite uses the index too. Exported so tests can ask each planner whether it does.
 */
export function executionsByOriginQuery(db: Kysely<Database>, origin: string) {
  return db.selectFrom('tool_executions').selectAll().where(hasOrigin()).where('origin', '=', origin).orderBy('created_at', 'desc').orderBy('id', 'desc');
}

/** Every column executionRow writes, with PostgreSQL's types (row-table.ts). */
export const EXECUTION_COLUMNS = {
  id: 'uuid',
  mind_id: 'uuid',
  capability: 'text',
  target: 'text',
  params: 'jsonb',
  origin: 'text',
  correlation_id: 'text',
  evidence: 'jsonb',
  approval_id: 'uuid',
  grant_id: 'uuid',
  status: 'text',
  result: 'jsonb',
  error: 'text',
  retry_safe: 'boolean',
  started_at: 'timestamptz',
  finished_at: 'timestamptz',
  created_at: 'timestamptz',
} as const;

/**
 * The row of an execution as written: `started` ahead of its act, or with its outcome. One object
 * literal, the outcome's columns filled in place: the executor writes one a step.
 */
export function executionRow(codec: Codec, input: NewExecution & ({ status: 'started' } | ExecutionOutcome), now: string): Insertable<ToolExecutionsTable> {
  const finished = input.status !== 'started';
  return {
    id: input.id ?? newId(),
    mind_id: input.mindId,
    capability: input.capability,
    target: input.target,
    params: codec.json(input.params),
    origin: input.origin,
    correlation_id: input.correlationId,
    evidence: codec.json(input.evidence),
    approval_id: input.approvalId ?? null,
    grant_id: input.grantId ?? null,
    status: input.status,
    result: finished ? codec.jsonOrNull(input.result) : null,
    error: finished ? (input.error ?? '') : '',
    retry_safe: codec.bool(finished ? (input.retrySafe ?? false) : false),
    started_at: now,
    finished_at: finished ? now : null,
    created_at: now,
  };
}

export class ExecutionRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /**
   * Writes the execution ahead of its side effect, as `started`. Each statement commits on its
   * own unless this repository belongs to a transaction: call it outside one (or commit that
   * transaction) before acting, or a crash would lose the only trace of the attempt.
   */
  async start(input: NewExecution): Promise<ExecutionRecord> {
    return this.#insert(executionRow(this.#ctx.codec, Object.assign({}, input, { status: 'started' as const }), this.#ctx.codec.time(this.#ctx.clock.now())));
  }

  /** Stores an execution that has already finished (a read, or anything not written ahead). */
  async record(input: NewExecution & ExecutionOutcome): Promise<ExecutionRecord> {
    return this.#insert(executionRow(this.#ctx.codec, input, this.#ctx.codec.time(this.#ctx.clock.now())));
  }

  /**
   * Writes several executions in one statement: written-ahead ones as `started`, the others with
   * their outcome. What a batch of steps recorded goes in together, in the caller's transaction.
   */
  async insertMany(inputs: readonly (NewExecution & ({ status: 'started' } | ExecutionOutcome))[]): Promise<void> {
    if (inputs.length === 0) return;
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    await insertRows(
      db,
      codec.kind,
      'tool_executions',
      EXECUTION_COLUMNS,
      inputs.map((input) => executionRow(codec, input, now)),
    );
  }

  /**
   * started → succeeded | failed, stamping finished_at. Undefined when the execution was not
   * `started` any more (already finished, or no such execution): nothing is changed then.
   * Fields left out of the outcome keep their stored values.
   */
  async finish(id: string, outcome: ExecutionOutcome): Promise<ExecutionRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const set: Updateable<ToolExecutionsTable> = { status: outcome.status, finished_at: codec.time(clock.now()) };
    if (outcome.result !== undefined) set.result = codec.jsonOrNull(outcome.result);
    if (outcome.error !== undefined) set.error = outcome.error;
    if (outcome.retrySafe !== undefined) set.retry_safe = codec.bool(outcome.retrySafe);
    const row = await db.updateTable('tool_executions').set(set).where('id', '=', id).where('status', '=', 'started').returningAll().executeTakeFirst();
    return row && this.#decode(row);
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('tool_executions').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Everything one origin caused, newest first; an empty origin matches nothing. */
  async listByOrigin(origin: string): Promise<ExecutionRecord[]> {
    const rows = await executionsByOriginQuery(this.#ctx.db, origin).execute();
    return rows.map((row) => this.#decode(row));
  }

  /** Newest first; every execution unless a limit is given. */
  async listByMind(mindId: string, options: { limit?: number } = {}): Promise<ExecutionRecord[]> {
    let query = this.#ctx.db.selectFrom('tool_executions').selectAll().where('mind_id', '=', mindId).orderBy('created_at', 'desc').orderBy('id', 'desc');
    if (options.limit !== undefined) query = query.limit(options.limit);
    const rows = await query.execute();
    return rows.map((row) => this.#decode(row));
  }

  /** The row of an execution: written ahead as `started`, or finished with its outcome. */
  async #insert(values: Insertable<ToolExecutionsTable>): Promise<ExecutionRecord> {
    const row = await this.#ctx.db.insertInto('tool_executions').values(values).returningAll().executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  #decode(row: Selectable<ToolExecutionsTable>): ExecutionRecord {
    const { codec } = this.#ctx;
    // Added to the record decodeAction made, not spread into a copy (Node 20's slow path: plans.ts, withSteps).
    return Object.assign(decodeAction(row, codec), {
      approvalId: row.approval_id,
      grantId: row.grant_id,
      status: row.status,
      result: codec.readJsonOrNull<JsonObject>(row.result),
      error: row.error,
      retrySafe: codec.readBool(row.retry_safe),
      startedAt: codec.readTime(row.started_at),
      finishedAt: codec.readTimeOrNull(row.finished_at),
      createdAt: codec.readTime(row.created_at),
    });
  }
}
