// Commitments: a mind binding itself to ask before acting (kind `require_approval`) on a
// capability and target pattern, until it releases the commitment.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { CommitmentStatus } from '../../core/vocabulary.ts';
import type { CommitmentsTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';
import type { Codec } from '../codec.ts';

export type CommitmentKind = 'require_approval';

export interface CommitmentRecord {
  id: string;
  mindId: string;
  kind: CommitmentKind;
  capability: string;
  targetPattern: string;
  reason: string;
  status: CommitmentStatus;
  createdAt: Date;
  releasedAt: Date | null;
}

export interface NewCommitment {
  mindId: string;
  capability: string;
  targetPattern: string;
  reason: string;
}

export class CommitmentRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewCommitment): Promise<CommitmentRecord> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .insertInto('commitments')
      .values({
        id: newId(),
        mind_id: input.mindId,
        kind: 'require_approval',
        capability: input.capability,
        target_pattern: input.targetPattern,
        reason: input.reason,
        status: 'active',
        created_at: codec.time(clock.now()),
        released_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<CommitmentRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('commitments').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Oldest first. */
  async listActive(mindId: string): Promise<CommitmentRecord[]> {
    const rows = await activeCommitmentsOf(this.#ctx.db, mindId).execute();
    return rows.map((row) => this.#decode(row));
  }

  /** active → released; undefined when it was not active (already released, or no such commitment). */
  async release(id: string): Promise<CommitmentRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('commitments')
      .set({ status: 'released', released_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  #decode(row: Selectable<CommitmentsTable>): CommitmentRecord {
    return decodeCommitment(row, this.#ctx.codec);
  }
}

/** A row of `commitments` as its record. */
export function decodeCommitment(row: Selectable<CommitmentsTable>, codec: Codec): CommitmentRecord {
  return {
    id: row.id,
    mindId: row.mind_id,
    kind: row.kind,
    capability: row.capability,
    targetPattern: row.target_pattern,
    reason: row.reason,
    status: row.status,
    createdAt: codec.readTime(row.created_at),
    releasedAt: codec.readTimeOrNull(row.released_at),
  };
}

/** A mind's active commitments, oldest first. */
export function activeCommitmentsOf(db: RepositoryContext['db'], mindId: string) {
  return db.selectFrom('commitments').selectAll().where('mind_id', '=', mindId).where('status', '=', 'active').orderBy('created_at').orderBy('id');
}
