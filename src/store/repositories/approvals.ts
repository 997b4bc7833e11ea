// Approval requests: an operator's yes or no to one exact action (capability, target,
// parameters, bound by their digest), which may need two operators and always expires. Every
// change is a conditional UPDATE: a request is approved, denied, withdrawn, expired or executed
// by exactly one of any number of concurrent callers, and the others get undefined.

import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { ApprovalStatus } from '../../core/vocabulary.ts';
import type { ApprovalRequestsTable, Database } from '../schema.ts';
import { hasOrigin } from '../vocabulary-sql.ts';
import { decodeAction } from './action-columns.ts';
import { asList, byCreation, type RepositoryContext } from './context.ts';
import type { Codec } from '../codec.ts';

/** One operator's answer, in the order given. */
export interface ApprovalDecision {
  operator: string;
  decision: 'approve' | 'deny';
  /** ISO-8601. */
  at: string;
  note?: string;
}

/**
 * One operator's change to a pending request's action, in the order made. `from` is the action
 * before it (the first amendment's `from` is the action as raised), `to` the action after it.
 */
export interface ApprovalAmendment {
  operator: string;
  /** ISO-8601. */
  at: string;
  reason: string;
  from: { target: string; params: JsonObject };
  to: { target: string; params: JsonObject };
  /** Operators whose approvals of the earlier action were set aside: they approved something else. */
  approvals_cleared: string[];
}

export interface ApprovalRecord {
  id: string;
  mindId: string;
  capability: string;
  target: string;
  params: JsonObject;
  origin: string;
  correlationId: string;
  evidence: JsonObject;
  explanation: JsonObject;
  /**
   * Of the exact action (and, keyed, of the request around it: src/capabilities/policy/action-digest.ts);
   * approving binds to it, and a changed action no longer matches.
   */
  digest: string;
  status: ApprovalStatus;
  /** 1, or 2 for four eyes. */
  approversRequired: number;
  decisions: ApprovalDecision[];
  authoredBy: string;
  /** Who named the author of a request raised without one; empty when it was raised with its author. */
  authorNamedBy: string;
  /** Operators' changes to the action while it was pending, oldest first; each amender is an author too. */
  amendments: ApprovalAmendment[];
  batchKey: string;
  executionId: string | null;
  /**
   * The executor holding its claim (`executionId`); empty when none does, when the claim predates
   * migration 0018, or when it was made by a daemon of an earlier version, which names nobody
   * (the name is kept only beside the execution id it was written for).
   */
  claimedBy: string;
  expiresAt: Date;
  decidedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewApproval {
  /** Chosen by the caller when it must cite the request before the row is written. */
  id?: string;
  mindId: string;
  capability: string;
  target: string;
  params: JsonObject;
  origin: string;
  correlationId: string;
  evidence: JsonObject;
  explanation: JsonObject;
  digest: string;
  approversRequired: number;
  authoredBy: string;
  batchKey: string;
  expiresAt: Date;
}

export interface ApprovalListOptions {
  mindId?: string;
  status?: ApprovalStatus | readonly ApprovalStatus[];
  batchKey?: string;
  limit?: number;
}

/** Columns a transition may set with the status; `undefined` leaves a column as it is. */
export interface ApprovalPatch {
  decisions?: ApprovalDecision[];
  executionId?: string | null;
  /** Defaults to now when the request becomes approved or denied. */
  decidedAt?: Date | null;
}

/** Conditions a move must meet besides its `from` status. */
export interface ApprovalGuard {
  /**
   * The request still carries this digest: the action is the one the decider looked at, not one
   * amended (or altered) between their read and their write.
   */
  digest?: string;
  /**
   * The request's claim is still this one: the execution that claimed it, or null for a request
   * no executor has claimed yet. A refusal read before another executor claimed the request must
   * not close it under that executor's act.
   */
  executionId?: string | null;
}

/** The statuses an operator's decision leads to; reaching one stamps decided_at unless the patch says otherwise. */
const DECIDED: readonly ApprovalStatus[] = ['approved', 'denied'];

/**
 * Rows caused by one origin. The `origin <> ''` term repeats the partial index's predicate, so
 * SQLite uses the index too. Exported so tests can ask each planner whether it does.
 */
export function approvalsByOriginQuery(db: Kysely<Database>, origin: string) {
  return db.selectFrom('approval_requests').selectAll().where(hasOrigin()).where('origin', '=', origin).orderBy('created_at').orderBy('id');
}

export class ApprovalRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewApproval): Promise<ApprovalRecord> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const row = await db
      .insertInto('approval_requests')
      .values({
        id: input.id ?? newId(),
        mind_id: input.mindId,
        capability: input.capability,
        target: input.target,
        params: codec.json(input.params),
        origin: input.origin,
        correlation_id: input.correlationId,
        evidence: codec.json(input.evidence),
        explanation: codec.json(input.explanation),
        digest: input.digest,
        status: 'pending',
        approvers_required: input.approversRequired,
        decisions: codec.json([]),
        authored_by: input.authoredBy,
        author_named_by: '',
        amendments: codec.json([]),
        batch_key: input.batchKey,
        execution_id: null,
        claimed_by: '',
        claimed_for: '',
        expires_at: codec.time(input.expiresAt),
        decided_at: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('approval_requests').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Every request one origin caused, oldest first; an empty origin matches nothing. */
  async listByOrigin(origin: string): Promise<ApprovalRecord[]> {
    const rows = await approvalsByOriginQuery(this.#ctx.db, origin).execute();
    return rows.map((row) => this.#decode(row));
  }

  /** Oldest first; every match unless a limit is given. */
  async list(options: ApprovalListOptions = {}): Promise<ApprovalRecord[]> {
    let query = this.#ctx.db.selectFrom('approval_requests').selectAll();
    if (options.mindId !== undefined) query = query.where('mind_id', '=', options.mindId);
    if (options.status !== undefined) query = query.where('status', 'in', asList(options.status));
    if (options.batchKey !== undefined) query = query.where('batch_key', '=', options.batchKey);
    query = query.orderBy('created_at').orderBy('id');
    if (options.limit !== undefined) query = query.limit(options.limit);
    const rows = await query.execute();
    return rows.map((row) => this.#decode(row));
  }

  /** The most recently changed requests in these statuses, newest change first: the approval centre's history. */
  async listRecent(options: { mindId?: string; status: readonly ApprovalStatus[]; limit: number }): Promise<ApprovalRecord[]> {
    let query = this.#ctx.db.selectFrom('approval_requests').selectAll().where('status', 'in', asList(options.status));
    if (options.mindId !== undefined) query = query.where('mind_id', '=', options.mindId);
    const rows = await query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * Moves the request from one of `from` to `to` in one conditional UPDATE, with the patch.
   * Undefined when it was no longer in a `from` status: someone else decided first, and
   * nothing was changed.
   */
  async transition(id: string, from: ApprovalStatus | readonly ApprovalStatus[], to: ApprovalStatus, patch: ApprovalPatch = {}, guard: ApprovalGuard = {}): Promise<ApprovalRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const set: Updateable<ApprovalRequestsTable> = { status: to, updated_at: codec.time(now) };
    if (patch.decisions !== undefined) set.decisions = codec.json(patch.decisions);
    if (patch.executionId !== undefined) set.execution_id = patch.executionId;
    if (patch.decidedAt !== undefined) set.decided_at = codec.timeOrNull(patch.decidedAt);
    else if (DECIDED.includes(to)) set.decided_at = codec.time(now);
    let query = db.updateTable('approval_requests').set(set).where('id', '=', id).where('status', 'in', asList(from));
    if (guard.digest !== undefined) query = query.where('digest', '=', guard.digest);
    if (guard.executionId !== undefined) query = query.where('execution_id', guard.executionId === null ? 'is' : '=', guard.executionId);
    const row = await query.returningAll().executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Unclaims an approved request whose claiming execution (`executionId`) never finished, so it
   * can be performed again: only while it is still approved and claimed by that execution.
   * Recovery does this for an action that is safe to repeat, never for one that is not.
   */
  async releaseClaim(id: string, executionId: string): Promise<boolean> {
    const { db, codec, clock } = this.#ctx;
    const rows = await db
      .updateTable('approval_requests')
      .set({ execution_id: null, claimed_by: '', claimed_for: '', updated_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'approved')
      .where('execution_id', '=', executionId)
      .returning('id')
      .execute();
    return rows.length > 0;
  }

  /**
   * Replaces the decision list while the request stays pending (the first approval of two),
   * only if the stored list still equals `seen`: a lost update is detected, not overwritten.
   * Undefined when the request is no longer pending or another decision got there first; the
   * caller reads it again and decides anew.
   */
  async recordDecision(id: string, seen: readonly ApprovalDecision[], next: readonly ApprovalDecision[], guard: ApprovalGuard = {}): Promise<ApprovalRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const expected = codec.json(seen);
    // PostgreSQL compares jsonb by value. SQLite compares the text, which works because the
    // codec writes JSON deterministically (keys sorted), both here and when it stored the list.
    const stillSeen = codec.kind === 'postgres' ? sql<boolean>`${sql.ref('decisions')} = cast(${expected} as jsonb)` : sql<boolean>`${sql.ref('decisions')} = ${expected}`;
    let query = db
      .updateTable('approval_requests')
      .set({ decisions: codec.json(next), updated_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where(stillSeen);
    if (guard.digest !== undefined) query = query.where('digest', '=', guard.digest);
    if (guard.executionId !== undefined) query = query.where('execution_id', guard.executionId === null ? 'is' : '=', guard.executionId);
    const row = await query.returningAll().executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Claims an approved request for execution: names the execution that will perform it, only
   * while it is approved and no execution claimed it yet. Among executors racing to perform it,
   * exactly one gets the row back; commit it with the execution's write-ahead row.
   */
  async claimForExecution(id: string, executionId: string, claimant = ''): Promise<ApprovalRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('approval_requests')
      .set({ execution_id: executionId, claimed_by: claimant, claimed_for: executionId, updated_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'approved')
      .where('execution_id', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Names the author of a pending request raised without one, with the digest re-signed over the
   * named author (the caller computes it). Only while it is pending and still has no author, so
   * two operators naming at once cannot both win, and a named author is never replaced.
   */
  async nameAuthor(id: string, input: { authoredBy: string; namedBy: string; digest: string; fromDigest: string }): Promise<ApprovalRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('approval_requests')
      .set({ authored_by: input.authoredBy, author_named_by: input.namedBy, digest: input.digest, updated_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('authored_by', '=', '')
      .where('digest', '=', input.fromDigest)
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Replaces the action of a pending request with an operator's amendment: the new target and
   * parameters, the amendment appended, the approvals of the earlier action set aside, the
   * approvers the amended action needs, and the digest re-signed over all of it (the caller
   * computes it). Only while the request is pending and still carries `fromDigest`, so an
   * amendment racing a decision, another amendment or an alteration loses and changes nothing.
   */
  async amend(
    id: string,
    input: { target: string; params: JsonObject; amendments: readonly ApprovalAmendment[]; approversRequired: number; digest: string; fromDigest: string },
  ): Promise<ApprovalRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('approval_requests')
      .set({
        target: input.target,
        params: codec.json(input.params),
        amendments: codec.json(input.amendments),
        decisions: codec.json([]),
        approvers_required: input.approversRequired,
        digest: input.digest,
        updated_at: codec.time(clock.now()),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('digest', '=', input.fromDigest)
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * Whether any pending request's expiry has come: one read, so that a caller sweeping on every
   * pass opens a write transaction only when there is something to move.
   */
  async anyDue(now: Date): Promise<boolean> {
    const { db, codec } = this.#ctx;
    const row = await db.selectFrom('approval_requests').select('id').where('status', '=', 'pending').where('expires_at', '<=', codec.time(now)).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** pending → expired for every request whose expiry has come; returns those, oldest first. */
  async expireDue(now: Date): Promise<ApprovalRecord[]> {
    const { db, codec, clock } = this.#ctx;
    const rows = await db
      .updateTable('approval_requests')
      .set({ status: 'expired', updated_at: codec.time(clock.now()) })
      .where('status', '=', 'pending')
      .where('expires_at', '<=', codec.time(now))
      .returningAll()
      .execute();
    return rows.map((row) => this.#decode(row)).sort(byCreation);
  }

  #decode(row: Selectable<ApprovalRequestsTable>): ApprovalRecord {
    return decodeApproval(row, this.#ctx.codec);
  }
}

/** A row of `approval_requests` as its record. */
export function decodeApproval(row: Selectable<ApprovalRequestsTable>, codec: Codec): ApprovalRecord {
  // Added to the record decodeAction made, not spread into a copy (Node 20's slow path: plans.ts, withSteps).
  return Object.assign(decodeAction(row, codec), {
    explanation: codec.readJson<JsonObject>(row.explanation),
    digest: row.digest,
    status: row.status,
    approversRequired: codec.readInt(row.approvers_required),
    decisions: codec.readJson<ApprovalDecision[]>(row.decisions),
    authoredBy: row.authored_by,
    authorNamedBy: row.author_named_by,
    amendments: codec.readJson<ApprovalAmendment[]>(row.amendments),
    batchKey: row.batch_key,
    executionId: row.execution_id,
    claimedBy: row.execution_id !== null && row.claimed_for === row.execution_id ? row.claimed_by : '',
    expiresAt: codec.readTime(row.expires_at),
    decidedAt: codec.readTimeOrNull(row.decided_at),
    createdAt: codec.readTime(row.created_at),
    updatedAt: codec.readTime(row.updated_at),
  });
}
