// Beliefs: statements a mind holds with a confidence, and the evidence that moved them. A
// revision is conditional on the version it was computed from, so two resolvers revising the
// same belief at once cannot overwrite each other's evidence.

import { sql, type Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { BeliefsTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';

/** One entry that moved a belief: which way, how strongly, from what, and the move it made. */
export interface BeliefEvidence {
  direction: 'for' | 'against';
  /** 0..1: how strongly this entry bears on the belief. */
  weight: number;
  /** Where it came from, e.g. `prediction:<id>` or `operator:<name>`. */
  source: string;
  note: string;
  confidence_before: number;
  confidence_after: number;
  at: string;
}

export interface BeliefRecord {
  id: string;
  mindId: string;
  statement: string;
  confidence: number;
  evidence: BeliefEvidence[];
  /** Bumped by every revision. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewBelief {
  mindId: string;
  statement: string;
  confidence: number;
}

export interface BeliefRevision {
  confidence: number;
  evidence: BeliefEvidence[];
}

export class BeliefRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: NewBelief): Promise<BeliefRecord> {
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const row = await db
      .insertInto('beliefs')
      .values({
        id: newId(),
        mind_id: input.mindId,
        statement: input.statement,
        confidence: input.confidence,
        evidence: codec.json([]),
        version: 0,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<BeliefRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('beliefs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Oldest first. */
  async listByMind(mindId: string, options: { limit?: number } = {}): Promise<BeliefRecord[]> {
    let query = this.#ctx.db.selectFrom('beliefs').selectAll().where('mind_id', '=', mindId).orderBy('created_at').orderBy('id');
    if (options.limit !== undefined) query = query.limit(options.limit);
    const rows = await query.execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * The mind's beliefs whose statement is one of `exact` or starts with one of `prefixes`, oldest
   * first: what a summary's findings may strengthen or weaken, without reading every belief.
   */
  async matching(mindId: string, wanted: { exact: readonly string[]; prefixes: readonly string[] }): Promise<BeliefRecord[]> {
    if (wanted.exact.length === 0 && wanted.prefixes.length === 0) return [];
    const rows = await this.#ctx.db
      .selectFrom('beliefs')
      .selectAll()
      .where('mind_id', '=', mindId)
      .where((eb) =>
        eb.or([
          ...(wanted.exact.length > 0 ? [eb('statement', 'in', [...wanted.exact])] : []),
          ...wanted.prefixes.map((prefix) => eb(sql<string>`substr(${sql.ref('statement')}, 1, ${prefix.length})`, '=', prefix)),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  /**
   * Writes a new confidence and evidence list only if the belief is still at `seenVersion`.
   * Returns the revised belief, or undefined when someone revised it first (nothing changed).
   */
  async revise(id: string, seenVersion: number, next: BeliefRevision): Promise<BeliefRecord | undefined> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('beliefs')
      .set({
        confidence: next.confidence,
        evidence: codec.json(next.evidence),
        version: seenVersion + 1,
        updated_at: codec.time(clock.now()),
      })
      .where('id', '=', id)
      .where('version', '=', seenVersion)
      .returningAll()
      .executeTakeFirst();
    return row && this.#decode(row);
  }

  #decode(row: Selectable<BeliefsTable>): BeliefRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      mindId: row.mind_id,
      statement: row.statement,
      confidence: Number(row.confidence),
      evidence: codec.readJson<BeliefEvidence[]>(row.evidence),
      version: codec.readInt(row.version),
      createdAt: codec.readTime(row.created_at),
      updatedAt: codec.readTime(row.updated_at),
    };
  }
}
