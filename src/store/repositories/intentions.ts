// Intentions: what a mind has committed to bring about, and why it is (not) progressing.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { IntentionReason, IntentionStatus } from '../../core/vocabulary.ts';
import type { IntentionsTable } from '../schema.ts';
import { asList, type RepositoryContext } from './context.ts';
import { chunksFor, isAnyOf } from '../row-table.ts';
import { oneOf } from '../vocabulary-sql.ts';
import type { Codec } from '../codec.ts';

/** The concrete action an intention names, when it names one. */
export interface IntentionMeans {
  capability: string;
  target: string;
  params: JsonObject;
}

export interface IntentionRecord {
  id: string;
  mindId: string;
  /** Set on a subordinate intention: the intention it serves. */
  parentId: string | null;
  objective: string;
  means: IntentionMeans | null;
  beliefId: string | null;
  origin: string;
  /** The operator or agent who formed it through a surface; empty when Praxis formed it. */
  authoredBy: string;
  status: IntentionStatus;
  reason: IntentionReason;
  requireApproval: boolean;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
}

export interface NewIntention {
  mindId: string;
  parentId?: string | null;
  objective: string;
  means?: IntentionMeans | null;
  beliefId?: string | null;
  origin: string;
  authoredBy?: string;
  requireApproval?: boolean;
}

/** Statuses an intention never leaves; reaching one stamps closed_at. */
const CLOSED: readonly IntentionStatus[] = ['fulfilled', 'abandoned'];
/** Statuses of an intention that may still progress. */
const OPEN: IntentionStatus[] = ['active', 'blocked', 'suspended'];
/** Reasons a parent is blocked for while subordinates stand for its waits. */
const WAITING_ON_SUBORDINATES: IntentionReason[] = ['awaiting_approval', 'awaiting_grant', 'awaiting_subordinate'];

export class IntentionRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewIntention): Promise<IntentionRecord> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const row = await db
      .insertInto('intentions')
      .values({
        id: newId(),
        mind_id: input.mindId,
        parent_id: input.parentId ?? null,
        objective: input.objective,
        means: codec.jsonOrNull(input.means),
        belief_id: input.beliefId ?? null,
        origin: input.origin,
        status: 'active',
        reason: '',
        require_approval: codec.bool(input.requireApproval ?? false),
        authored_by: input.authoredBy ?? '',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<IntentionRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('intentions').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * The intention, read inside the caller's transaction so that a second writer deciding from it
   * waits until this one commits: on PostgreSQL its row is locked (FOR UPDATE); on SQLite every
   * transaction begins IMMEDIATE and holds the write lock from its first statement already.
   */
  async getForUpdate(id: string): Promise<IntentionRecord | undefined> {
    let query = this.#ctx.db.selectFrom('intentions').selectAll().where('id', '=', id);
    if (this.#ctx.codec.kind === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * The intention a plan serves, found through the plan in one statement: it can be read side by
   * side with the plan itself instead of after it.
   */
  async getOfPlan(planId: string): Promise<IntentionRecord | undefined> {
    const { db } = this.#ctx;
    const row = await db
      .selectFrom('intentions')
      .selectAll()
      .where('id', '=', (eb) => eb.selectFrom('plans').select('plans.intention_id').where('plans.id', '=', planId))
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /** The intentions of several plans keyed by their own id, in one statement per chunk of plan ids. */
  async getOfPlans(planIds: readonly string[]): Promise<Map<string, IntentionRecord>> {
    const found = new Map<string, IntentionRecord>();
    const unique = [...new Set(planIds)];
    for (const chunk of chunksFor(this.#ctx.codec.kind, unique)) {
      const rows = await this.#ctx.db
        .selectFrom('intentions')
        .selectAll()
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('plans')
            .select('plans.intention_id')
            .where(isAnyOf(this.#ctx.codec.kind, 'plans.id', chunk, 'uuid')),
        )
        .execute();
      for (const row of rows) found.set(row.id, this.#decode(row));
    }
    return found;
  }

  /** Several intentions keyed by id, in one statement per chunk of ids; ids not found are absent. */
  async getMany(ids: readonly string[]): Promise<Map<string, IntentionRecord>> {
    const found = new Map<string, IntentionRecord>();
    const unique = [...new Set(ids)];
    for (const chunk of chunksFor(this.#ctx.codec.kind, unique)) {
      const rows = await this.#ctx.db
        .selectFrom('intentions')
        .selectAll()
        .where(isAnyOf(this.#ctx.codec.kind, 'id', chunk, 'uuid'))
        .execute();
      for (const row of rows) found.set(row.id, this.#decode(row));
    }
    return found;
  }

  /** Newest first. */
  async listByMind(mindId: string, options: { status?: IntentionStatus | readonly IntentionStatus[]; limit?: number } = {}): Promise<IntentionRecord[]> {
    let query = this.#ctx.db.selectFrom('intentions').selectAll().where('mind_id', '=', mindId);
    if (options.status !== undefined) query = query.where('status', 'in', asList(options.status));
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 100)
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * One page of a mind's intentions, newest first, keyed on the id alone: ids are time-ordered,
   * so a page never shifts when intentions are added while someone pages.
   */
  async listPage(mindId: string, options: { status?: IntentionStatus; beforeId?: string; limit: number }): Promise<IntentionRecord[]> {
    let query = this.#ctx.db.selectFrom('intentions').selectAll().where('mind_id', '=', mindId);
    if (options.status !== undefined) query = query.where('status', '=', options.status);
    if (options.beforeId !== undefined) query = query.where('id', '<', options.beforeId);
    const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * Moves the intention only if it is still in one of the `from` statuses. Returns the updated
   * intention, or undefined when someone else moved it first (nothing is changed then).
   */
  async transition(id: string, from: IntentionStatus | readonly IntentionStatus[], to: IntentionStatus, reason: IntentionReason): Promise<IntentionRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const row = await db
      .updateTable('intentions')
      .set({ status: to, reason, updated_at: now, closed_at: CLOSED.includes(to) ? now : null })
      .where('id', '=', id)
      .where(oneOf('status', asList(from)))
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Moves several intentions, each only if it is still in one of the `from` statuses, in one
   * conditional statement per chunk. Returns those that moved; the others are left alone.
   */
  async transitionMany(ids: readonly string[], from: readonly IntentionStatus[], to: IntentionStatus, reason: IntentionReason): Promise<IntentionRecord[]> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const moved: IntentionRecord[] = [];
    for (const chunk of chunksFor(codec.kind, ids)) {
      const rows = await db
        .updateTable('intentions')
        .set({ status: to, reason, updated_at: now, closed_at: CLOSED.includes(to) ? now : null })
        .where(isAnyOf(codec.kind, 'id', chunk, 'uuid'))
        .where(oneOf('status', asList(from)))
        .returningAll()
        .execute();
      moved.push(...rows.map((row) => this.#decode(row)));
    }
    return moved;
  }

  /** The intentions formed to serve `parentId`, oldest first. */
  async listSubordinates(parentId: string): Promise<IntentionRecord[]> {
    const rows = await this.#ctx.db.selectFrom('intentions').selectAll().where('parent_id', '=', parentId).orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * blocked → active for a parent blocked on its subordinates (awaiting approval, a grant or a
   * subordinate), in one statement, only while none of its subordinates is still open (active,
   * blocked or suspended). Undefined when the parent was not so blocked (a parent blocked as
   * outcome_unverified waits for an operator instead) or still waits for another subordinate;
   * nothing is changed then.
   */
  async resumeWhenSubordinatesClosed(parentId: string): Promise<IntentionRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('intentions')
      .set({ status: 'active', reason: '', updated_at: codec.time(clock.now()), closed_at: null })
      .where('id', '=', parentId)
      .where('status', '=', 'blocked')
      .where('reason', 'in', WAITING_ON_SUBORDINATES)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('intentions as sub').select('sub.id').whereRef('sub.parent_id', '=', 'intentions.id').where('sub.status', 'in', OPEN))))
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  #decode(row: Selectable<IntentionsTable>): IntentionRecord {
    return decodeIntention(row, this.#ctx.codec);
  }
}

/** A row of `intentions` as its record. */
export function decodeIntention(row: Selectable<IntentionsTable>, codec: Codec): IntentionRecord {
  return {
    id: row.id,
    mindId: row.mind_id,
    parentId: row.parent_id,
    objective: row.objective,
    means: codec.readJsonOrNull<IntentionMeans>(row.means),
    beliefId: row.belief_id,
    origin: row.origin,
    status: row.status,
    reason: row.reason,
    requireApproval: codec.readBool(row.require_approval),
    authoredBy: row.authored_by,
    createdAt: codec.readTime(row.created_at),
    updatedAt: codec.readTime(row.updated_at),
    closedAt: codec.readTimeOrNull(row.closed_at),
  };
}

/** The intention of a step's plan, found through the step. */
export function intentionOfStep(db: RepositoryContext['db'], stepId: string) {
  return db
    .selectFrom('intentions')
    .selectAll()
    .where('id', '=', (eb) =>
      eb
        .selectFrom('plans')
        .select('plans.intention_id')
        .where('plans.id', '=', eb.selectFrom('plan_steps as s').select('s.plan_id').where('s.id', '=', stepId)),
    );
}
