// Capability requests: a mind asking the operator for scoped, temporary access it does not
// have, with its reasons. A mind may only have a few open at once; the cap is enforced inside
// one transaction that serialises the mind's requests, so concurrent askers cannot overshoot it.

import type { Kysely, Selectable, Updateable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { CapabilityRequestStatus } from '../../core/vocabulary.ts';
import type { CapabilityRequestsTable, Database } from '../schema.ts';
import { hasOrigin } from '../vocabulary-sql.ts';
import { asList, inTransaction, type RepositoryContext } from './context.ts';

export interface CapabilityRequestRecord {
  id: string;
  mindId: string;
  intentionId: string | null;
  origin: string;
  capability: string;
  targetPattern: string;
  paramLimits: JsonObject;
  durationSeconds: number;
  maxOperations: number;
  reason: string;
  risk: string;
  mitigation: string;
  fallback: string;
  alternatives: string[];
  batchKey: string;
  status: CapabilityRequestStatus;
  decidedBy: string;
  decidedAt: Date | null;
  grantId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewCapabilityRequest {
  mindId: string;
  intentionId?: string | null;
  origin: string;
  capability: string;
  targetPattern: string;
  paramLimits: JsonObject;
  durationSeconds: number;
  maxOperations: number;
  reason: string;
  risk: string;
  mitigation: string;
  fallback: string;
  alternatives: string[];
  batchKey: string;
}

export interface CapabilityRequestListOptions {
  mindId?: string;
  status?: CapabilityRequestStatus | readonly CapabilityRequestStatus[];
  batchKey?: string;
  limit?: number;
}

/** Columns a transition may set with the status; `undefined` leaves a column as it is. */
export interface CapabilityRequestPatch {
  decidedBy?: string;
  /** Defaults to now when the request becomes granted or denied. */
  decidedAt?: Date | null;
  grantId?: string | null;
}

const DECIDED: readonly CapabilityRequestStatus[] = ['granted', 'denied'];

/**
 * Rows caused by one origin. The `origin <> ''` term repeats the partial index's predicate, so
 * SQLite uses the index too. Exported so tests can ask each planner whether it does.
 */
export function capabilityRequestsByOriginQuery(db: Kysely<Database>, origin: string) {
  return db.selectFrom('capability_requests').selectAll().where(hasOrigin()).where('origin', '=', origin).orderBy('created_at').orderBy('id');
}

export class CapabilityRequestRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /**
   * Stores the request only if the mind has fewer than `cap` open ones; undefined when it is
   * at the cap. Lock, count and insert happen in one transaction (the caller's, if it has one).
   * On PostgreSQL the mind's row is locked first, so a second asker for the same mind waits and
   * then counts the first one's request. On SQLite every transaction begins IMMEDIATE and holds
   * the database's write lock from its first statement, which serialises them the same way.
   */
  async createWithinCap(input: NewCapabilityRequest, cap: number): Promise<CapabilityRequestRecord | undefined> {
    const { codec, clock } = this.#ctx;
    return inTransaction(this.#ctx.db, async (tx) => {
      if (codec.kind === 'postgres') {
        await tx.selectFrom('minds').select('id').where('id', '=', input.mindId).forUpdate().execute();
      }
      if ((await countOpen(tx, input.mindId)) >= cap) return undefined;
      const now = codec.time(clock.now());
      const row = await tx
        .insertInto('capability_requests')
        .values({
          id: newId(),
          mind_id: input.mindId,
          intention_id: input.intentionId ?? null,
          origin: input.origin,
          capability: input.capability,
          target_pattern: input.targetPattern,
          param_limits: codec.json(input.paramLimits),
          duration_seconds: input.durationSeconds,
          max_operations: input.maxOperations,
          reason: input.reason,
          risk: input.risk,
          mitigation: input.mitigation,
          fallback: input.fallback,
          alternatives: codec.json(input.alternatives),
          batch_key: input.batchKey,
          status: 'open',
          decided_by: '',
          decided_at: null,
          grant_id: null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return this.#decode(row);
    });
  }

  async get(id: string): Promise<CapabilityRequestRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('capability_requests').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Every request one origin caused, oldest first; an empty origin matches nothing. */
  async listByOrigin(origin: string): Promise<CapabilityRequestRecord[]> {
    const rows = await capabilityRequestsByOriginQuery(this.#ctx.db, origin).execute();
    return rows.map((row) => this.#decode(row));
  }

  /** Oldest first; every match unless a limit is given. */
  async list(options: CapabilityRequestListOptions = {}): Promise<CapabilityRequestRecord[]> {
    let query = this.#ctx.db.selectFrom('capability_requests').selectAll();
    if (options.mindId !== undefined) query = query.where('mind_id', '=', options.mindId);
    if (options.status !== undefined) query = query.where('status', 'in', asList(options.status));
    if (options.batchKey !== undefined) query = query.where('batch_key', '=', options.batchKey);
    query = query.orderBy('created_at').orderBy('id');
    if (options.limit !== undefined) query = query.limit(options.limit);
    const rows = await query.execute();
    return rows.map((row) => this.#decode(row));
  }

  /** The most recently changed requests in these statuses, newest change first: the request centre's history. */
  async listRecent(options: { mindId?: string; status: readonly CapabilityRequestStatus[]; limit: number }): Promise<CapabilityRequestRecord[]> {
    let query = this.#ctx.db.selectFrom('capability_requests').selectAll().where('status', 'in', asList(options.status));
    if (options.mindId !== undefined) query = query.where('mind_id', '=', options.mindId);
    const rows = await query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  countOpen(mindId: string): Promise<number> {
    return countOpen(this.#ctx.db, mindId);
  }

  /**
   * Moves the request from one of `from` to `to` in one conditional UPDATE, with the patch.
   * Undefined when it had already moved (decided, withdrawn or expired by someone else).
   */
  async transition(
    id: string,
    from: CapabilityRequestStatus | readonly CapabilityRequestStatus[],
    to: CapabilityRequestStatus,
    patch: CapabilityRequestPatch = {},
  ): Promise<CapabilityRequestRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const now = clock.now();
    const set: Updateable<CapabilityRequestsTable> = { status: to, updated_at: codec.time(now) };
    if (patch.decidedBy !== undefined) set.decided_by = patch.decidedBy;
    if (patch.grantId !== undefined) set.grant_id = patch.grantId;
    if (patch.decidedAt !== undefined) set.decided_at = codec.timeOrNull(patch.decidedAt);
    else if (DECIDED.includes(to)) set.decided_at = codec.time(now);
    const row = await db.updateTable('capability_requests').set(set).where('id', '=', id).where('status', 'in', asList(from)).returningAll().executeTakeFirst();
    return row && this.#decode(row);
  }

  #decode(row: Selectable<CapabilityRequestsTable>): CapabilityRequestRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      mindId: row.mind_id,
      intentionId: row.intention_id,
      origin: row.origin,
      capability: row.capability,
      targetPattern: row.target_pattern,
      paramLimits: codec.readJson<JsonObject>(row.param_limits),
      durationSeconds: codec.readInt(row.duration_seconds),
      maxOperations: codec.readInt(row.max_operations),
      reason: row.reason,
      risk: row.risk,
      mitigation: row.mitigation,
      fallback: row.fallback,
      alternatives: codec.readJson<string[]>(row.alternatives),
      batchKey: row.batch_key,
      status: row.status,
      decidedBy: row.decided_by,
      decidedAt: codec.readTimeOrNull(row.decided_at),
      grantId: row.grant_id,
      createdAt: codec.readTime(row.created_at),
      updatedAt: codec.readTime(row.updated_at),
    };
  }
}

/** Served by capability_requests_mind_idx (mind_id, status). */
async function countOpen(db: Kysely<Database>, mindId: string): Promise<number> {
  const { open } = await db
    .selectFrom('capability_requests')
    .select((eb) => eb.fn.countAll().as('open'))
    .where('mind_id', '=', mindId)
    .where('status', '=', 'open')
    .executeTakeFirstOrThrow();
  const n = Number(open);
  if (!Number.isSafeInteger(n)) throw new TypeError(`open request count is not an integer: ${String(open)}`);
  return n;
}
