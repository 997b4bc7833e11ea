// Plans: stored, validated drafts serving one intention, with their steps. A plan and its steps
// are written together or not at all; replanning adds a revision and keeps the old one.

import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { normaliseAbortConditions, type AbortCondition } from '../../core/abort-conditions.ts';
import { newId } from '../../core/ids.ts';
import { MAX_REPLANS, type Alternative, type Assumption, type Budget, type PlanDraft, type Resources, type ValidationResult } from '../../core/plan.ts';
import { CLOSED_PLAN_STATUSES, type PlanOrigin, type PlanStatus } from '../../core/vocabulary.ts';
import type { PlanStepsTable, PlansTable } from '../schema.ts';
import { chunksFor, isAnyOf, rowTable } from '../row-table.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { asList, IDS_PER_STATEMENT, inTransaction, type RepositoryContext } from './context.ts';
import { decodeStep, type StepRecord } from './steps.ts';
import type { Codec } from '../codec.ts';

export interface PlanRecord {
  id: string;
  mindId: string;
  intentionId: string;
  revision: number;
  supersedes: string | null;
  supersededBy: string | null;
  objective: string;
  origin: PlanOrigin;
  strategy: string;
  status: PlanStatus;
  assumptions: Assumption[];
  completionCriteria: string;
  abortConditions: AbortCondition[];
  alternatives: Alternative[];
  risk: string;
  /** The estimate validation computed from the steps, never the draft's own claim. */
  estimate: Partial<Resources>;
  actual: Partial<Resources>;
  budget: Budget;
  validation: ValidationResult;
  requireApproval: boolean;
  /** Whoever submitted the plan, or the author of its intention for a plan Praxis made; never its approver. */
  authoredBy: string;
  maxReplans: number;
  llmCall: string | null;
  statusReason: string;
  closedAt: Date | null;
  /** A pause, while an operator holds the plan (null otherwise): beside the status, never one. */
  pause: PlanPause | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who paused a plan, when and why. While it is set the executor claims none of the plan's steps. */
export interface PlanPause {
  at: Date;
  by: string;
  reason: string;
}

export interface PlanWithSteps extends PlanRecord {
  /** Ordered by position, i.e. the order of the draft. */
  steps: StepRecord[];
}

export interface NewPlan {
  mindId: string;
  intentionId: string;
  origin: PlanOrigin;
  revision?: number;
  supersedes?: string | null;
  draft: PlanDraft;
  validation: ValidationResult;
  /** Only a draft that passed validation may be stored as `validated`; anything else stays a draft that never runs. */
  status: 'draft' | 'validated';
  statusReason?: string;
  requireApproval?: boolean;
  authoredBy?: string;
  maxReplans?: number;
  llmCall?: string | null;
  /** A revision made while its predecessor was paused stays paused (see docs/executor.md). */
  pause?: PlanPause | null;
}

/** Columns a plan transition may set alongside the status; `undefined` leaves a column as it is. */
export interface PlanPatch {
  statusReason?: string;
  supersededBy?: string | null;
  actual?: Partial<Resources>;
  validation?: ValidationResult;
  /** Defaults to now when the plan reaches a closed status. */
  closedAt?: Date | null;
}

/** A plan in one of these is never paused: a draft never runs, and a closed plan runs nothing more. */
export const UNPAUSABLE_PLAN_STATUSES: readonly PlanStatus[] = ['draft', ...CLOSED_PLAN_STATUSES];

/** The pause columns of a plan that is not paused. */
const UNPAUSED = { paused_at: null, paused_by: '', pause_reason: '' } as const;

export interface PlanListOptions {
  status?: PlanStatus | readonly PlanStatus[];
  limit?: number;
  /** Only plans created strictly before this instant: the cursor for the next page. */
  before?: Date;
}

export class PlanRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewPlan): Promise<PlanWithSteps> {
    if (input.status === 'validated' && !input.validation.valid) {
      throw new TypeError('a plan that failed validation can only be stored as a draft');
    }
    const { codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const planId = newId();
    const { draft } = input;
    const plan: Insertable<PlansTable> = {
      id: planId,
      mind_id: input.mindId,
      intention_id: input.intentionId,
      revision: input.revision ?? 1,
      supersedes: input.supersedes ?? null,
      objective: draft.objective,
      origin: input.origin,
      strategy: draft.strategy,
      status: input.status,
      assumptions: codec.json(draft.assumptions),
      completion_criteria: draft.completion_criteria,
      abort_conditions: codec.json(normaliseAbortConditions(draft.abort_conditions)),
      alternatives: codec.json(draft.alternatives),
      risk: draft.risk,
      estimate: codec.json(input.validation.estimate),
      actual: codec.json({}),
      budget: codec.json(draft.budget),
      validation: codec.json(input.validation),
      require_approval: codec.bool(input.requireApproval ?? false),
      authored_by: input.authoredBy ?? '',
      max_replans: input.maxReplans ?? MAX_REPLANS,
      llm_call: input.llmCall ?? null,
      status_reason: input.statusReason ?? '',
      paused_at: input.pause ? codec.time(input.pause.at) : null,
      paused_by: input.pause?.by ?? '',
      pause_reason: input.pause?.reason ?? '',
      created_at: now,
      updated_at: now,
    };
    const steps: Insertable<PlanStepsTable>[] = draft.steps.map((step, position) => ({
      id: newId(),
      plan_id: planId,
      mind_id: input.mindId,
      key: step.key,
      position,
      title: step.title,
      kind: step.kind,
      depends_on: codec.textArray(step.depends_on),
      capability: step.capability,
      target: step.target,
      params: codec.json(step.params),
      require_approval: codec.bool(step.require_approval),
      expectation: codec.jsonOrNull(step.expectation),
      precondition: codec.jsonOrNull(step.precondition),
      spec: codec.json(step.spec),
      status: 'pending',
      attempts: 0,
      max_attempts: step.max_attempts,
      created_at: now,
      updated_at: now,
    }));

    return inTransaction(this.#ctx.db, async (tx) => {
      const planRow = await tx.insertInto('plans').values(plan).returningAll().executeTakeFirstOrThrow();
      // Each step carries its mind's host, which never changes, for the due index (migration 0019).
      const mind = steps.length === 0 ? undefined : await tx.selectFrom('minds').select('host').where('id', '=', input.mindId).executeTakeFirst();
      for (const step of steps) step.host = mind?.host ?? null;
      const stepRows = steps.length === 0 ? [] : await tx.insertInto('plan_steps').values(steps).returningAll().execute();
      stepRows.sort((a, b) => codec.readInt(a.position) - codec.readInt(b.position));
      return withSteps(
        this.#decode(planRow),
        stepRows.map((row) => decodeStep(row, codec)),
      );
    });
  }

  async get(id: string): Promise<PlanWithSteps | undefined> {
    const { db, codec } = this.#ctx;
    // Side by side: on PostgreSQL outside a transaction they run on two connections at once.
    const [row, stepRows] = await Promise.all([
      db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst(),
      db.selectFrom('plan_steps').selectAll().where('plan_id', '=', id).orderBy('position').execute(),
    ]);
    if (!row) return undefined;
    return withSteps(
      this.#decode(row),
      stepRows.map((step) => decodeStep(step, codec)),
    );
  }

  /**
   * Several plans with their steps, keyed by id, in two statements for any number of them (in
   * chunks far below either store's limit on bound parameters): how a pass of the executor reads
   * every plan it touches at once. Ids not found are absent from the answer.
   */
  async getMany(ids: readonly string[]): Promise<Map<string, PlanWithSteps>> {
    const { db, codec } = this.#ctx;
    const found = new Map<string, PlanWithSteps>();
    const unique = [...new Set(ids)];
    for (const chunk of chunksFor(codec.kind, unique)) {
      // Rows and steps side by side (on PostgreSQL, on two connections at once), as get does.
      const [rows, stepRows] = await Promise.all([
        db
          .selectFrom('plans')
          .selectAll()
          .where(isAnyOf(codec.kind, 'id', chunk, 'uuid'))
          .execute(),
        db
          .selectFrom('plan_steps')
          .selectAll()
          .where(isAnyOf(codec.kind, 'plan_id', chunk, 'uuid'))
          .orderBy('plan_id')
          .orderBy('position')
          .execute(),
      ]);
      for (const row of rows) found.set(row.id, withSteps(this.#decode(row), []));
      for (const step of stepRows) found.get(step.plan_id)?.steps.push(decodeStep(step, codec));
    }
    return found;
  }

  /** Newest first, without steps. */
  async listByMind(mindId: string, options: PlanListOptions = {}): Promise<PlanRecord[]> {
    const { db, codec } = this.#ctx;
    let query = db.selectFrom('plans').selectAll().where('mind_id', '=', mindId);
    if (options.status !== undefined) query = query.where('status', 'in', asList(options.status));
    if (options.before !== undefined) query = query.where('created_at', '<', codec.time(options.before));
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 50)
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  /** One page of plans without steps, newest first, keyed on the (time-ordered) id; filters combine. */
  async listPage(options: { mindId?: string; intentionId?: string; status?: PlanStatus; beforeId?: string; limit: number }): Promise<PlanRecord[]> {
    let query = this.#ctx.db.selectFrom('plans').selectAll();
    if (options.mindId !== undefined) query = query.where('mind_id', '=', options.mindId);
    if (options.intentionId !== undefined) query = query.where('intention_id', '=', options.intentionId);
    if (options.status !== undefined) query = query.where('status', '=', options.status);
    if (options.beforeId !== undefined) query = query.where('id', '<', options.beforeId);
    const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  /** Every plan serving one intention, without steps: oldest revision first. */
  async listByIntention(intentionId: string): Promise<PlanRecord[]> {
    const rows = await this.#ctx.db.selectFrom('plans').selectAll().where('intention_id', '=', intentionId).orderBy('revision').orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * Moves the plan only if it is still in one of the `from` statuses, in one conditional UPDATE.
   * Returns the updated plan (without steps), or undefined when it had already moved.
   */
  async transition(id: string, from: PlanStatus | readonly PlanStatus[], to: PlanStatus, patch: PlanPatch = {}): Promise<PlanRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const set: Updateable<PlansTable> = { status: to, updated_at: codec.time(now) };
    if (patch.statusReason !== undefined) set.status_reason = patch.statusReason;
    if (patch.supersededBy !== undefined) set.superseded_by = patch.supersededBy;
    if (patch.actual !== undefined) set.actual = codec.json(patch.actual);
    if (patch.validation !== undefined) set.validation = codec.json(patch.validation);
    if (patch.closedAt !== undefined) set.closed_at = codec.timeOrNull(patch.closedAt);
    else if (CLOSED_PLAN_STATUSES.includes(to)) set.closed_at = codec.time(now);
    // A closed plan runs nothing, so it holds no pause (its plan_paused event stays in the log).
    if (CLOSED_PLAN_STATUSES.includes(to)) Object.assign(set, UNPAUSED);
    const row = await db
      .updateTable('plans')
      .set(set)
      .where('id', '=', id)
      .where(oneOf('status', asList(from)))
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Moves several plans from `from` to `to` in one conditional statement per chunk; returns the
   * ids that moved (a plan no longer in `from` is left alone). How a pass starts all the plans it
   * found validated at once.
   */
  async transitionMany(ids: readonly string[], from: PlanStatus, to: PlanStatus, patch: Pick<PlanPatch, 'statusReason'> = {}): Promise<string[]> {
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const set: Updateable<PlansTable> = { status: to, updated_at: codec.time(now) };
    if (patch.statusReason !== undefined) set.status_reason = patch.statusReason;
    if (CLOSED_PLAN_STATUSES.includes(to)) Object.assign(set, { closed_at: codec.time(now), ...UNPAUSED });
    const moved: string[] = [];
    for (const chunk of chunksFor(codec.kind, ids)) {
      const rows = await db
        .updateTable('plans')
        .set(set)
        .where(isAnyOf(codec.kind, 'id', chunk, 'uuid'))
        .where('status', '=', from)
        .returning('id')
        .execute();
      moved.push(...rows.map((row) => row.id));
    }
    return moved;
  }

  /**
   * Completes several plans, each with its own `actual` use, in one conditional statement per
   * chunk (the values joined as a table, as step moves are); returns the ids that completed. A
   * plan no longer in one of `from` is left alone. How a pass closes every plan it finished.
   */
  async completeMany(plans: readonly { id: string; actual: Partial<Resources> }[], from: readonly PlanStatus[]): Promise<string[]> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const pg = codec.kind === 'postgres';
    const time = pg ? sql`${now}::timestamptz` : sql`${now}`;
    const completed: string[] = [];
    for (const chunk of chunksFor(codec.kind, plans)) {
      const rows = chunk.map((p) => ({ id: p.id, actual: codec.json(p.actual) }));
      // SQLite's RETURNING names only the updated table's columns; on PostgreSQL a bare `id` would be ambiguous with v's.
      const result = await sql<{ id: string }>`with v (id, actual) as (${rowTable(codec.kind, { id: 'uuid', actual: 'jsonb' }, rows)})
update plans set status = 'completed', status_reason = '', actual = v.actual, updated_at = ${time}, closed_at = ${time},
  paused_at = null, paused_by = '', pause_reason = ''
from v where plans.id = v.id and ${oneOf('plans.status', asList(from))} returning ${pg ? sql`plans.id` : sql`id`}`.execute(db);
      completed.push(...result.rows.map((row) => row.id));
    }
    return completed;
  }

  /**
   * Pauses the plans of `ids` that are open (neither a draft nor closed) and not paused yet, in
   * one conditional statement per chunk; returns those it paused. The status is left as it is.
   */
  async pause(ids: readonly string[], pause: Omit<PlanPause, 'at'>): Promise<PlanRecord[]> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const paused: PlanRecord[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      const rows = await db
        .updateTable('plans')
        .set({ paused_at: now, paused_by: pause.by, pause_reason: pause.reason, updated_at: now })
        .where('id', 'in', ids.slice(i, i + IDS_PER_STATEMENT))
        .where('status', 'not in', [...UNPAUSABLE_PLAN_STATUSES])
        .where('paused_at', 'is', null)
        .returningAll()
        .execute();
      paused.push(...rows.map((row) => this.#decode(row)));
    }
    return paused;
  }

  /**
   * Lifts the pause of the plans of `ids` that are paused, in one conditional statement per
   * chunk; returns each as it is now, with the pause it lifted (for the caller's events).
   */
  async resume(ids: readonly string[]): Promise<{ plan: PlanRecord; lifted: PlanPause }[]> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const resumed: { plan: PlanRecord; lifted: PlanPause }[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      const chunk = ids.slice(i, i + IDS_PER_STATEMENT);
      const before = await db.selectFrom('plans').selectAll().where('id', 'in', chunk).where('paused_at', 'is not', null).execute();
      if (before.length === 0) continue;
      const lifted = new Map(before.map((row) => [row.id, this.#decode(row).pause!]));
      const rows = await db
        .updateTable('plans')
        .set({ paused_at: null, paused_by: '', pause_reason: '', updated_at: now })
        .where('id', 'in', [...lifted.keys()])
        .where('paused_at', 'is not', null)
        .returningAll()
        .execute();
      resumed.push(...rows.map((row) => ({ plan: this.#decode(row), lifted: lifted.get(row.id)! })));
    }
    return resumed;
  }

  /** Ids of a mind's plans that could be paused now (open, not paused), or that are paused: for pausing or resuming a whole mind. */
  async idsOfMind(mindId: string, which: 'pausable' | 'paused'): Promise<string[]> {
    let query = this.#ctx.db.selectFrom('plans').select('id').where('mind_id', '=', mindId);
    query = which === 'paused' ? query.where('paused_at', 'is not', null) : query.where('paused_at', 'is', null).where('status', 'not in', [...UNPAUSABLE_PLAN_STATUSES]);
    const rows = await query.orderBy('id').execute();
    return rows.map((row) => row.id);
  }

  #decode(row: Selectable<PlansTable>): PlanRecord {
    return decodePlan(row, this.#ctx.codec);
  }
}

/** A row of `plans` as its record. */
/**
 * `plan`, a record decodePlan has just made, with its steps. Set on it rather than copied:
 * `{ ...plan, steps }` (a copy that gains a property) is Node 20's slow path, about 1.2 µs and a
 * hidden class of its own for every plan, which then made every read of a plan's fields slow too
 * (docs/executor.md, "Node 20's object spreads").
 */
export function withSteps(plan: PlanRecord, steps: StepRecord[]): PlanWithSteps {
  const found = plan as PlanWithSteps;
  found.steps = steps;
  return found;
}

export function decodePlan(row: Selectable<PlansTable>, codec: Codec): PlanRecord {
  return {
    id: row.id,
    mindId: row.mind_id,
    intentionId: row.intention_id,
    revision: codec.readInt(row.revision),
    supersedes: row.supersedes,
    supersededBy: row.superseded_by,
    objective: row.objective,
    origin: row.origin,
    strategy: row.strategy,
    status: row.status,
    assumptions: codec.readJson<Assumption[]>(row.assumptions),
    completionCriteria: row.completion_criteria,
    abortConditions: normaliseAbortConditions(codec.readJson<unknown>(row.abort_conditions)),
    alternatives: codec.readJson<Alternative[]>(row.alternatives),
    risk: row.risk,
    estimate: codec.readJson<Partial<Resources>>(row.estimate),
    actual: codec.readJson<Partial<Resources>>(row.actual),
    budget: codec.readJson<Budget>(row.budget),
    validation: codec.readJson<ValidationResult>(row.validation),
    requireApproval: codec.readBool(row.require_approval),
    authoredBy: row.authored_by,
    maxReplans: codec.readInt(row.max_replans),
    llmCall: row.llm_call,
    statusReason: row.status_reason,
    closedAt: codec.readTimeOrNull(row.closed_at),
    pause: row.paused_at === null || row.paused_at === undefined ? null : { at: codec.readTime(row.paused_at), by: row.paused_by, reason: row.pause_reason },
    createdAt: codec.readTime(row.created_at),
    updatedAt: codec.readTime(row.updated_at),
  };
}

/** The plan of a step, found through the step. */
export function planOfStep(db: RepositoryContext['db'], stepId: string) {
  return db
    .selectFrom('plans')
    .selectAll()
    .where('id', '=', db.selectFrom('plan_steps as s').select('s.plan_id').where('s.id', '=', stepId));
}

/** Every step of a step's plan (the step among them), in plan order. */
export function stepsOfPlanOfStep(db: RepositoryContext['db'], stepId: string) {
  return db
    .selectFrom('plan_steps')
    .selectAll()
    .where('plan_id', '=', db.selectFrom('plan_steps as s').select('s.plan_id').where('s.id', '=', stepId))
    .orderBy('position');
}
