// Grants: scoped, temporary access an operator gave a mind: a capability on targets matching a
// pattern, within parameter limits, until it expires or its operations run out. Using a grant
// is one conditional UPDATE that spends an operation, so concurrent users can never spend more
// operations than it had, nor use it once it expired or was revoked.

import { sql, type Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { GrantStatus } from '../../core/vocabulary.ts';
import type { GrantsTable } from '../schema.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { asList, byCreation, type RepositoryContext } from './context.ts';

export interface GrantRecord {
  id: string;
  mindId: string;
  /** The capability request it answers; null for a grant given unasked. */
  requestId: string | null;
  capability: string;
  targetPattern: string;
  paramLimits: JsonObject;
  expiresAt: Date;
  operationsLeft: number;
  status: GrantStatus;
  grantedBy: string;
  revokedBy: string;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface NewGrant {
  mindId: string;
  requestId?: string | null;
  capability: string;
  targetPattern: string;
  paramLimits: JsonObject;
  expiresAt: Date;
  /** How many invocations it allows; at least 1. */
  operations: number;
  grantedBy: string;
}

export interface GrantListOptions {
  mindId?: string;
  status?: GrantStatus | readonly GrantStatus[];
  limit?: number;
}

export class GrantRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewGrant): Promise<GrantRecord> {
    if (!Number.isSafeInteger(input.operations) || input.operations < 1) {
      throw new TypeError(`a grant needs at least one operation, got ${input.operations}`);
    }
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .insertInto('grants')
      .values({
        id: newId(),
        mind_id: input.mindId,
        request_id: input.requestId ?? null,
        capability: input.capability,
        target_pattern: input.targetPattern,
        param_limits: codec.json(input.paramLimits),
        expires_at: codec.time(input.expiresAt),
        operations_left: input.operations,
        status: 'active',
        granted_by: input.grantedBy,
        revoked_by: '',
        revoked_at: null,
        created_at: codec.time(clock.now()),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<GrantRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Oldest first; every match unless a limit is given. */
  async list(options: GrantListOptions = {}): Promise<GrantRecord[]> {
    let query = this.#ctx.db.selectFrom('grants').selectAll();
    if (options.mindId !== undefined) query = query.where('mind_id', '=', options.mindId);
    if (options.status !== undefined) query = query.where('status', 'in', asList(options.status));
    query = query.orderBy('created_at').orderBy('id');
    if (options.limit !== undefined) query = query.limit(options.limit);
    const rows = await query.execute();
    return rows.map((row) => this.#decode(row));
  }

  /** One page of grants, newest first, keyed on the (time-ordered) id. */
  async listPage(options: { mindId?: string; status?: GrantStatus; beforeId?: string; limit: number }): Promise<GrantRecord[]> {
    let query = this.#ctx.db.selectFrom('grants').selectAll();
    if (options.mindId !== undefined) query = query.where('mind_id', '=', options.mindId);
    if (options.status !== undefined) query = query.where('status', '=', options.status);
    if (options.beforeId !== undefined) query = query.where('id', '<', options.beforeId);
    const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * The grants a mind could use at `now`: active, not expired, operations left. Oldest first.
   * Being listed is no promise: only `consume` decides whether an operation is spent.
   */
  async listLive(mindId: string, now: Date): Promise<GrantRecord[]> {
    const rows = await this.#ctx.db
      .selectFrom('grants')
      .selectAll()
      .where('mind_id', '=', mindId)
      .where('status', '=', 'active')
      .where('expires_at', '>', this.#ctx.codec.time(now))
      .where('operations_left', '>', 0)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * Spends one operation, in one statement: the grant must be active, unexpired at `now` and
   * have an operation left. Spending the last one makes it `exhausted`. Undefined when the
   * grant could not be used (spent, expired, revoked, or another user took the last operation).
   */
  async consume(id: string, now: Date): Promise<GrantRecord | undefined> {
    const { db, codec } = this.#ctx;
    // Both stores evaluate every SET expression against the row as it was before the update.
    const row = await db
      .updateTable('grants')
      .set((eb) => ({
        operations_left: eb('operations_left', '-', 1),
        status: sql<GrantStatus>`case when ${sql.ref('operations_left')} - 1 = 0 then ${sql.lit('exhausted')} else ${sql.ref('status')} end`,
      }))
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('operations_left', '>', 0)
      .where('expires_at', '>', codec.time(now))
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /** active → revoked; undefined when it was not active any more. */
  async revoke(id: string, by: string): Promise<GrantRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('grants')
      .set({ status: 'revoked', revoked_by: by, revoked_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'active')
      // One past its expiry is expired, whether or not a sweep has said so yet (expireDue).
      .where('expires_at', '>', codec.time(clock.now()))
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  /**
   * active → expired for every grant whose expiry has come; returns those, oldest first. The
   * status term matches the partial index grants_active_expiry_idx as written.
   */
  async expireDue(now: Date): Promise<GrantRecord[]> {
    // A read first: a sweep on every pass takes no write lock (SQLite) and makes no commit
    // (PostgreSQL) when nothing has expired, which is nearly always.
    const due = await this.#ctx.db
      .selectFrom('grants')
      .select('id')
      .where(oneOf('status', ['active']))
      .where('expires_at', '<=', this.#ctx.codec.time(now))
      .limit(1)
      .executeTakeFirst();
    if (due === undefined) return [];
    const { db, codec } = this.#ctx;
    const rows = await db
      .updateTable('grants')
      .set({ status: 'expired' })
      .where(oneOf('status', ['active']))
      .where('expires_at', '<=', codec.time(now))
      .returningAll()
      .execute();
    return rows.map((row) => this.#decode(row)).sort(byCreation);
  }

  #decode(row: Selectable<GrantsTable>): GrantRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      mindId: row.mind_id,
      requestId: row.request_id,
      capability: row.capability,
      targetPattern: row.target_pattern,
      paramLimits: codec.readJson<JsonObject>(row.param_limits),
      expiresAt: codec.readTime(row.expires_at),
      operationsLeft: codec.readInt(row.operations_left),
      status: row.status,
      grantedBy: row.granted_by,
      revokedBy: row.revoked_by,
      revokedAt: codec.readTimeOrNull(row.revoked_at),
      createdAt: codec.readTime(row.created_at),
    };
  }
}
