// Plan steps and the step machine's verbs the executor is built on. A step only ever moves by a
// named verb of the table in src/core/step-moves.ts (move, moveMany, promote, claim, and
// claimApproved for `claim` from awaiting_approval), each one
// conditional UPDATE ... WHERE status IN (:from) ... RETURNING: the database decides who wins,
// so no executor keeps step state in memory and none can act on a step it lost.

import { sql, type Selectable, type Updateable } from 'kysely';
import { addSeconds } from '../../core/clock.ts';
import type { Expectation, JsonObject, JsonValue, Precondition, StepSpec } from '../../core/plan.ts';
import { targetOf, type StepVerb } from '../../core/step-moves.ts';
import { RUNNING_PLAN_STATUSES, type StepKind, type StepStatus } from '../../core/vocabulary.ts';
import type { Codec } from '../codec.ts';
import type { PlanStepsTable } from '../schema.ts';
import { asList, inTransaction, type RepositoryContext } from './context.ts';
import { chunksFor, insertRows, insertStatement, isAnyOf } from '../row-table.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { EVENT_COLUMNS, eventRows, notifyQuery, wakeReasons, type NewEvent } from './events.ts';
import { EXECUTION_COLUMNS, executionRow, type ExecutionOutcome, type NewExecution } from './executions.ts';
import { moveRows, shapeOf, type EncodedMove } from './step-moves.ts';

export interface StepRecord {
  id: string;
  planId: string;
  mindId: string;
  key: string;
  position: number;
  title: string;
  kind: StepKind;
  dependsOn: string[];
  capability: string;
  target: string;
  params: JsonObject;
  requireApproval: boolean;
  expectation: Expectation | null;
  precondition: Precondition | null;
  spec: StepSpec;
  status: StepStatus;
  attempts: number;
  maxAttempts: number;
  leaseUntil: Date | null;
  nextRunAt: Date | null;
  approvalId: string | null;
  requestId: string | null;
  executionId: string | null;
  predictionId: string | null;
  /** The subordinate intention this step formed while waiting for approval or access. */
  intentionId: string | null;
  result: JsonValue | null;
  observation: JsonValue | null;
  error: string;
  statusReason: string;
  /** The executor holding (or that last held) its claim, by name; empty when none ever did. */
  claimedBy: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Columns a move may set alongside the status; `undefined` leaves a column as it is. */
export interface StepPatch {
  leaseUntil?: Date | null;
  nextRunAt?: Date | null;
  approvalId?: string | null;
  requestId?: string | null;
  executionId?: string | null;
  predictionId?: string | null;
  intentionId?: string | null;
  result?: JsonValue | null;
  observation?: JsonValue | null;
  error?: string;
  statusReason?: string;
  /** The executor taking the claim. */
  claimedBy?: string;
  startedAt?: Date | null;
  /** Defaults to now when the step reaches a final status. */
  finishedAt?: Date | null;
  /**
   * The move is an attempt of the step's action: attempts goes up by one in SQL and started_at
   * becomes now. A step that acts before it is moved (a read) is claimed and finished this way
   * in one statement.
   */
  countAttempt?: boolean;
}

/** A step awaiting approval claimed with its approved request (StepRepository.claimApproved). */
export interface ApprovedClaim {
  stepId: string;
  approvalId: string;
  /** The execution the request is claimed for: the write-ahead row among `executions`. */
  executionId: string;
  patch: StepPatch;
  executions: readonly (NewExecution & ({ status: 'started' } | ExecutionOutcome))[];
  events: readonly NewEvent[];
}

class LostClaim extends Error {}

/** Extra conditions a move must meet besides the `from` status; all given ones must hold. */
export interface StepGuard {
  /** The lease the caller got from its claim: only the current lease holder may move the step. */
  leaseUntil?: Date | null;
  /** The lease ran out at or before this instant: for taking over a claim whose executor vanished. */
  leaseExpiredBy?: Date;
  /** The attempt counter still has this value. */
  attempts?: number;
  /** The step is due at this instant: next_run_at unset or not later. */
  dueBy?: Date;
  /** The claim is still held by this executor: for taking over from one known to be gone. */
  claimedBy?: string;
}

/**
 * One step's move for `moveMany`: a verb of the step machine (src/core/step-moves.ts), or `link`
 * for a write that leaves the status as it is (from must then name the one status it is in).
 */
export interface StepMove {
  id: string;
  verb: StepVerb | 'link';
  from: StepStatus | readonly StepStatus[];
  patch?: StepPatch;
  guard?: StepGuard;
  /**
   * The step as the caller read it. With it, the moved record is made from this reading and the
   * statement returns only the step's state columns the move does not write itself (see
   * STATE_COLUMNS): the definition, a step's larger half, is never written after its plan is.
   */
  known?: StepRecord;
}

/** The status a move leaves its step in; throws IllegalStepMove for a move the table lacks. */
function destinationOf(verb: StepVerb | 'link', from: StepStatus | readonly StepStatus[]): StepStatus {
  if (verb !== 'link') return targetOf(verb, from);
  if (typeof from !== 'string') throw new TypeError('a link leaves the status as it is, so it names the one status the step is in');
  return from;
}

/** A move with its columns encoded as `move` would set them. */
function encodeMove({ id, verb, from, patch = {}, guard = {} }: StepMove, codec: Codec, now: Date): EncodedMove {
  const to = destinationOf(verb, from);
  const set = encodePatch(patch, codec);
  if (FINAL_STEP_STATUSES.includes(to) && patch.finishedAt === undefined) set.finished_at = codec.time(now);
  // Counting the attempt stamps started_at itself (moveRows), as a single move does.
  if (patch.countAttempt) delete set.started_at;
  const encodedGuard: EncodedMove['guard'] = {};
  if (guard.leaseUntil !== undefined) encodedGuard.lease_until = codec.timeOrNull(guard.leaseUntil);
  if (guard.leaseExpiredBy !== undefined) encodedGuard.lease_expired_by = codec.time(guard.leaseExpiredBy);
  if (guard.attempts !== undefined) encodedGuard.attempts = guard.attempts;
  if (guard.dueBy !== undefined) encodedGuard.due_by = codec.time(guard.dueBy);
  if (guard.claimedBy !== undefined) encodedGuard.claimed_by = guard.claimedBy;
  return { id, from: asList(from), to, set, countAttempt: patch.countAttempt === true, guard: encodedGuard };
}

/**
 * A step's state: the columns a move, a link, a claim or an amendment (target and params) may
 * write, each with how it is read. The others (plan, mind, key, position, title, kind,
 * dependencies, capability, approval requirement, expectation, precondition, spec, max attempts,
 * created_at) are its definition, written once with its plan: no writer in this repository sets
 * them, so a step read earlier still has them as read. decodeStep reads the same columns as
 * these (a test holds the two together); it is written out field by field because it reads
 * every step of every plan a pass touches, and one object literal keeps those records of one shape.
 */
export const STATE_COLUMNS = {
  target: ['target', 'text'],
  params: ['params', 'json'],
  status: ['status', 'text'],
  attempts: ['attempts', 'int'],
  lease_until: ['leaseUntil', 'time'],
  next_run_at: ['nextRunAt', 'time'],
  approval_id: ['approvalId', 'text'],
  request_id: ['requestId', 'text'],
  execution_id: ['executionId', 'text'],
  prediction_id: ['predictionId', 'text'],
  intention_id: ['intentionId', 'text'],
  result: ['result', 'json'],
  observation: ['observation', 'json'],
  error: ['error', 'text'],
  status_reason: ['statusReason', 'text'],
  claimed_by: ['claimedBy', 'text'],
  started_at: ['startedAt', 'time'],
  finished_at: ['finishedAt', 'time'],
  updated_at: ['updatedAt', 'time'],
} as const satisfies Partial<Record<keyof PlanStepsTable, readonly [keyof StepRecord, 'text' | 'json' | 'int' | 'time']>>;

type StateColumn = keyof typeof STATE_COLUMNS;

/** Reads the state columns present in `row` (read back with `codec`) into record fields. */
export function decodeState(row: Partial<Record<StateColumn, unknown>>, codec: Pick<Codec, 'readJsonOrNull' | 'readTimeOrNull' | 'readInt'>): Partial<StepRecord> {
  const state: Record<string, unknown> = {};
  for (const column in row) {
    const spec = STATE_COLUMNS[column as StateColumn];
    if (!spec) continue;
    const raw = row[column as StateColumn];
    const [field, kind] = spec;
    state[field] = kind === 'json' ? codec.readJsonOrNull(raw) : kind === 'time' ? codec.readTimeOrNull(raw) : kind === 'int' ? codec.readInt(raw) : raw;
  }
  return state as Partial<StepRecord>;
}

/**
 * Values as this repository writes them (JSON and times as text, on both stores), read back
 * without asking the store: the columns a move sets are made into its record from what it wrote.
 */
const WRITTEN: Pick<Codec, 'readJsonOrNull' | 'readTimeOrNull' | 'readInt'> = {
  readJsonOrNull: <T>(raw: unknown) => (raw === null || raw === undefined ? null : (JSON.parse(String(raw)) as T)),
  readTimeOrNull: (raw: unknown) => (raw === null || raw === undefined ? null : new Date(String(raw))),
  readInt: (raw: unknown) => Number(raw),
};

/**
 * The record of a move that won, from the step as the caller read it: its definition as read,
 * the state columns the move wrote as written, and the others as the statement returned them
 * (`returned`), so a write made by someone else since the reading shows.
 */
function movedStep(known: StepRecord, move: EncodedMove, returned: Record<string, unknown>, codec: Codec, now: Date): StepRecord {
  return { ...known, ...decodeState(returned, codec), ...decodeState(move.set, WRITTEN), status: move.to, updatedAt: now };
}

/** Why a promoted step is ready. */
export const PROMOTED_REASON = 'dependencies done';

/** A pending step as `promote` leaves it, promoted at `at`: the row it wrote, without reading it. */
export function promotedStep(step: StepRecord, at: Date): StepRecord {
  return { ...step, status: 'ready', statusReason: PROMOTED_REASON, nextRunAt: null, updatedAt: at };
}

/** Statuses a step never leaves; reaching one stamps finished_at unless the patch says otherwise. */
export const FINAL_STEP_STATUSES: readonly StepStatus[] = ['completed', 'failed', 'skipped', 'cancelled'];

export function decodeStep(row: Selectable<PlanStepsTable>, codec: Codec): StepRecord {
  return {
    id: row.id,
    planId: row.plan_id,
    mindId: row.mind_id,
    key: row.key,
    position: codec.readInt(row.position),
    title: row.title,
    kind: row.kind,
    dependsOn: codec.readTextArray(row.depends_on),
    capability: row.capability,
    target: row.target,
    params: codec.readJson<JsonObject>(row.params),
    requireApproval: codec.readBool(row.require_approval),
    expectation: codec.readJsonOrNull<Expectation>(row.expectation),
    precondition: codec.readJsonOrNull<Precondition>(row.precondition),
    spec: codec.readJson<StepSpec>(row.spec),
    status: row.status,
    attempts: codec.readInt(row.attempts),
    maxAttempts: codec.readInt(row.max_attempts),
    leaseUntil: codec.readTimeOrNull(row.lease_until),
    nextRunAt: codec.readTimeOrNull(row.next_run_at),
    approvalId: row.approval_id,
    requestId: row.request_id,
    executionId: row.execution_id,
    predictionId: row.prediction_id,
    intentionId: row.intention_id,
    result: codec.readJsonOrNull<JsonValue>(row.result),
    observation: codec.readJsonOrNull<JsonValue>(row.observation),
    error: row.error,
    statusReason: row.status_reason,
    claimedBy: row.claimed_by,
    startedAt: codec.readTimeOrNull(row.started_at),
    finishedAt: codec.readTimeOrNull(row.finished_at),
    createdAt: codec.readTime(row.created_at),
    updatedAt: codec.readTime(row.updated_at),
  };
}

function encodePatch(patch: StepPatch, codec: Codec): Updateable<PlanStepsTable> {
  const set: Updateable<PlanStepsTable> = {};
  if (patch.leaseUntil !== undefined) set.lease_until = codec.timeOrNull(patch.leaseUntil);
  if (patch.nextRunAt !== undefined) set.next_run_at = codec.timeOrNull(patch.nextRunAt);
  if (patch.approvalId !== undefined) set.approval_id = patch.approvalId;
  if (patch.requestId !== undefined) set.request_id = patch.requestId;
  if (patch.executionId !== undefined) set.execution_id = patch.executionId;
  if (patch.predictionId !== undefined) set.prediction_id = patch.predictionId;
  if (patch.intentionId !== undefined) set.intention_id = patch.intentionId;
  if (patch.result !== undefined) set.result = codec.jsonOrNull(patch.result);
  if (patch.observation !== undefined) set.observation = codec.jsonOrNull(patch.observation);
  if (patch.error !== undefined) set.error = patch.error;
  if (patch.statusReason !== undefined) set.status_reason = patch.statusReason;
  if (patch.claimedBy !== undefined) set.claimed_by = patch.claimedBy;
  if (patch.startedAt !== undefined) set.started_at = codec.timeOrNull(patch.startedAt);
  if (patch.finishedAt !== undefined) set.finished_at = codec.timeOrNull(patch.finishedAt);
  return set;
}

export class StepRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async get(id: string): Promise<StepRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('plan_steps').selectAll().where('id', '=', id).executeTakeFirst();
    return row && decodeStep(row, this.#ctx.codec);
  }

  async listByPlan(planId: string): Promise<StepRecord[]> {
    const rows = await this.#ctx.db.selectFrom('plan_steps').selectAll().where('plan_id', '=', planId).orderBy('position').execute();
    return rows.map((row) => decodeStep(row, this.#ctx.codec));
  }

  /**
   * Rewrites the action of a step waiting for approval `approvalId` to the operator's amendment
   * of it, so what runs once approved is the step's own action. Only while the step still waits
   * for that request: undefined when it moved on, and nothing changed.
   */
  async amendAction(stepId: string, approvalId: string, action: { target: string; params: JsonObject }): Promise<StepRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('plan_steps')
      .set({ target: action.target, params: codec.json(action.params), updated_at: codec.time(clock.now()) })
      .where('id', '=', stepId)
      .where('status', '=', 'awaiting_approval')
      .where('approval_id', '=', approvalId)
      .returningAll()
      .executeTakeFirst();
    return row && decodeStep(row, codec);
  }

  /**
   * Moves a step by a verb of the step machine (src/core/step-moves.ts), from one of `from` to
   * where the verb leads, in a single conditional UPDATE that sets the patch and updated_at with
   * it. Returns the row as updated, or undefined when the step was not in a `from` status or a
   * guard failed: another executor won or the world moved on, and nothing changed. A verb the
   * table does not allow from one of `from` throws IllegalStepMove before anything is written.
   * This, `moveMany`, `promote`, `claim` and `claimApproved` are the only writers of a step's status.
   */
  async move(verb: StepVerb, stepId: string, from: StepStatus | readonly StepStatus[], patch: StepPatch = {}, guard: StepGuard = {}): Promise<StepRecord | undefined> {
    return this.#write(stepId, from, targetOf(verb, from), patch, guard);
  }

  /**
   * Claims a step awaiting approval together with its approved request, with what the claim
   * records (the write-ahead execution, its events): the request takes the execution's id (it
   * must still be approved and claimed by nobody) and the step moves by `claim` under `patch`,
   * all of it or none. Undefined when the step or the request moved on.
   *
   * On PostgreSQL this is one statement on the approval connection (APPROVAL_CONNECTION), one
   * round trip between an operator's approval and the act: it locks the step first (FOR UPDATE,
   * still awaiting this approval), claims the request only if it holds that lock, moves the step
   * only if the request was claimed, and inserts the records only if the step moved; each part
   * sees the one before it, so a request is never claimed for a step that cannot move. On SQLite,
   * one transaction of the same writes.
   */
  async claimApproved(claim: ApprovedClaim): Promise<StepRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const at = codec.time(now);
    const from = 'awaiting_approval' as const;
    const set = { ...encodePatch(claim.patch, codec), status: targetOf('claim', from), updated_at: at };
    const executions = claim.executions.map((input) => executionRow(codec, input, at));
    const events = eventRows(codec, clock, claim.events);
    const reasons = wakeReasons(claim.events);
    // The request names its claimant as the step does (approvals.claimForExecution).
    const claimant = claim.patch.claimedBy ?? '';
    let row: Selectable<PlanStepsTable> | undefined;
    if (codec.kind === 'postgres') {
      const moved = sql<boolean>`exists (select 1 from step)`;
      const notify = this.#ctx.wakeChannel && reasons.length > 0 ? sql`, (select count(*) from (${notifyQuery(this.#ctx.wakeChannel, reasons)}) as notified) as notified` : sql``;
      const result = await sql<Selectable<PlanStepsTable>>`with locked as (
  select id from plan_steps where id = ${claim.stepId} and status = ${from} and approval_id = ${claim.approvalId} for update
), approval as (
  update approval_requests set execution_id = ${claim.executionId}, claimed_by = ${claimant}, claimed_for = ${claim.executionId}, updated_at = ${at}
  where id = ${claim.approvalId} and status = 'approved' and execution_id is null and exists (select 1 from locked) returning id
), step as (
  update plan_steps set ${sql.join(Object.entries(set).map(([column, value]) => sql`${sql.id(column)} = ${value}`))}
  where id = ${claim.stepId} and status = ${from} and exists (select 1 from approval) returning *
), executions as (
  ${executions.length > 0 ? insertStatement(codec.kind, 'tool_executions', EXECUTION_COLUMNS, executions, moved) : sql`select 1`}
), events as (
  ${events.length > 0 ? insertStatement(codec.kind, 'events', EVENT_COLUMNS, events, moved) : sql`select 1`}
)
select step.*${notify} from step`.execute(this.#ctx.approvalDb);
      row = result.rows[0];
    } else {
      row = await inTransaction(db, async (tx) => {
        // As approvals.claimForExecution.
        const approval = await tx
          .updateTable('approval_requests')
          .set({ execution_id: claim.executionId, claimed_by: claimant, claimed_for: claim.executionId, updated_at: at })
          .where('id', '=', claim.approvalId)
          .where('status', '=', 'approved')
          .where('execution_id', 'is', null)
          .returning('id')
          .executeTakeFirst();
        if (!approval) return undefined;
        const step = await tx
          .updateTable('plan_steps')
          .set(set)
          .where('id', '=', claim.stepId)
          .where('status', '=', from)
          .where('approval_id', '=', claim.approvalId)
          .returningAll()
          .executeTakeFirst();
        // The request is not claimed for a step that cannot move: undo it with the transaction.
        if (!step) throw new LostClaim();
        await insertRows(tx, codec.kind, 'tool_executions', EXECUTION_COLUMNS, executions);
        await insertRows(tx, codec.kind, 'events', EVENT_COLUMNS, events);
        return step;
      }).catch((error: unknown) => {
        if (error instanceof LostClaim) return undefined;
        throw error;
      });
    }
    if (!row) return undefined;
    for (const reason of reasons) this.#ctx.wake(reason);
    return decodeStep(row, codec);
  }

  /**
   * Writes links or a new due time on a step that stays in `status` (a prediction, a subordinate
   * intention, the next look of a waiting step), under the same guards as a move. Not a move:
   * the status is left as it is.
   */
  async link(stepId: string, status: StepStatus, patch: Pick<StepPatch, 'predictionId' | 'intentionId' | 'nextRunAt' | 'statusReason'>, guard: StepGuard = {}): Promise<StepRecord | undefined> {
    return this.#write(stepId, status, status, patch, guard);
  }

  async #write(stepId: string, from: StepStatus | readonly StepStatus[], to: StepStatus, patch: StepPatch, guard: StepGuard): Promise<StepRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const set = encodePatch(patch, codec);
    if (FINAL_STEP_STATUSES.includes(to) && patch.finishedAt === undefined) set.finished_at = codec.time(now);
    if (patch.countAttempt) set.started_at = codec.time(now);
    let query = db
      .updateTable('plan_steps')
      .set((eb) => ({ ...set, status: to, updated_at: codec.time(now), ...(patch.countAttempt ? { attempts: eb('attempts', '+', 1) } : {}) }))
      .where('id', '=', stepId)
      .where('status', 'in', asList(from));
    if (guard.leaseUntil === null) query = query.where('lease_until', 'is', null);
    else if (guard.leaseUntil !== undefined) query = query.where('lease_until', '=', codec.time(guard.leaseUntil));
    if (guard.leaseExpiredBy !== undefined) {
      query = query.where('lease_until', '<=', codec.time(guard.leaseExpiredBy));
    }
    if (guard.attempts !== undefined) query = query.where('attempts', '=', guard.attempts);
    if (guard.claimedBy !== undefined) query = query.where('claimed_by', '=', guard.claimedBy);
    if (guard.dueBy !== undefined) {
      const at = codec.time(guard.dueBy);
      query = query.where((eb) => eb.or([eb('next_run_at', 'is', null), eb('next_run_at', '<=', at)]));
    }
    const row = await query.returningAll().executeTakeFirst();
    return row && decodeStep(row, codec);
  }

  /**
   * Several moves at once, each exactly as `move` (or `link`) would make it (its own verb, `from`, patch and
   * guards), in one conditional statement per shape of move (step-moves.ts): a pass's batch of
   * steps, most of which move alike, costs a statement or two instead of one per step. Answers
   * in the order asked, undefined for a move that lost.
   */
  async moveMany(moves: readonly StepMove[]): Promise<(StepRecord | undefined)[]> {
    const { codec, clock } = this.#ctx;
    const now = clock.now();
    const at = codec.time(now);
    const encoded = moves.map((move) => encodeMove(move, codec, now));
    const groups = new Map<string, number[]>();
    encoded.forEach((move, i) => {
      const shape = shapeOf(move);
      const group = groups.get(shape);
      // Appended in place: copying the group for every move made a batch's grouping quadratic.
      if (group) group.push(i);
      else groups.set(shape, [i]);
    });
    const answers: (StepRecord | undefined)[] = moves.map(() => undefined);
    for (const indexes of groups.values()) {
      // A step asked twice would make the join ambiguous; a lone move needs no join.
      if (indexes.length === 1 || new Set(indexes.map((i) => moves[i]!.id)).size < indexes.length) {
        for (const i of indexes) {
          const { id, from, patch = {}, guard = {} } = moves[i]!;
          answers[i] = await this.#write(id, from, encoded[i]!.to, patch, guard);
        }
        continue;
      }
      // Moves that name the step as read return only the state they do not write themselves.
      const known = indexes.every((i) => moves[i]!.known?.id === moves[i]!.id);
      const returned = known ? ['id', ...Object.keys(STATE_COLUMNS).filter((c) => c !== 'status' && c !== 'updated_at' && !(c in encoded[indexes[0]!]!.set))] : null;
      for (const chunk of chunksFor(codec.kind, indexes)) {
        const rows = await moveRows(
          this.#ctx.db,
          codec,
          chunk.map((i) => encoded[i]!),
          at,
          returned,
        );
        const byId = new Map(rows.map((row) => [row.id as string, row]));
        for (const i of chunk) {
          const row = byId.get(moves[i]!.id);
          answers[i] = row && (known ? movedStep(moves[i]!.known!, encoded[i]!, row, codec, now) : decodeStep(row as Selectable<PlanStepsTable>, codec));
        }
      }
    }
    return answers;
  }

  /**
   * Moves pending steps to ready in one conditional statement per chunk (dependencies done);
   * returns the ids that moved. Nothing else of a promoted step changes: a step read before is
   * what it is now once promoted (see promotedStep), its `updated_at` being `at`. A step that is no longer pending, or whose plan is no longer
   * running (executing, waiting, awaiting_approval), is left alone: the caller may have decided from a plan it read earlier in its pass.
   */
  async promote(stepIds: readonly string[], at: Date = this.#ctx.clock.now()): Promise<string[]> {
    const { db, codec } = this.#ctx;
    const moved: string[] = [];
    for (const chunk of chunksFor(codec.kind, stepIds)) {
      const rows = await db
        .updateTable('plan_steps')
        .set({ status: 'ready', status_reason: PROMOTED_REASON, next_run_at: null, updated_at: codec.time(at) })
        .where(isAnyOf(codec.kind, 'id', chunk, 'uuid'))
        .where('status', '=', 'pending')
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('plans as p')
              .select('p.id')
              .whereRef('p.id', '=', 'plan_steps.plan_id')
              // Literals, not parameters: a fixed text, prepared once on PostgreSQL (pg-statements.ts).
              .where(oneOf('p.status', RUNNING_PLAN_STATUSES)),
          ),
        )
        .returning('id')
        .execute();
      moved.push(...rows.map((row) => row.id));
    }
    return moved;
  }

  /**
   * Takes a ready, due step for execution: one conditional UPDATE, so among any number of
   * executors exactly one gets the row back. The attempt is counted in SQL, never from a value
   * read earlier. next_run_at moves to the end of the lease: the step becomes due again (for
   * recovery) only if its executor has not finished by then.
   */
  async claim(stepId: string, options: { leaseSeconds: number; claimant?: string }): Promise<StepRecord | undefined> {
    const { leaseSeconds } = options;
    if (!Number.isFinite(leaseSeconds) || leaseSeconds <= 0) {
      throw new TypeError(`leaseSeconds must be a positive number, got ${leaseSeconds}`);
    }
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const at = codec.time(now);
    const leaseUntil = codec.time(addSeconds(now, leaseSeconds));
    const row = await db
      .updateTable('plan_steps')
      .set((eb) => ({
        status: 'executing',
        attempts: eb('attempts', '+', 1),
        lease_until: leaseUntil,
        next_run_at: leaseUntil,
        claimed_by: options.claimant ?? '',
        started_at: at,
        updated_at: at,
      }))
      .where('id', '=', stepId)
      .where('status', '=', 'ready')
      .where((eb) => eb.or([eb('next_run_at', 'is', null), eb('next_run_at', '<=', at)]))
      .returningAll()
      .executeTakeFirst();
    return row && decodeStep(row, codec);
  }
}
