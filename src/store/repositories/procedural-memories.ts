// Procedural memories: what worked, recorded when a plan completes. One per plan: recording the
// same plan again returns the memory already kept.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { ProceduralMemoriesTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';

export interface ProceduralMemoryRecord {
  id: string;
  mindId: string;
  intentionId: string | null;
  planId: string | null;
  objective: string;
  strategy: string;
  summary: string;
  /** The completed steps, in plan order, as the summary describes them. */
  steps: JsonObject[];
  confidence: number;
  /** True when a verify or monitor step confirmed the outcome by observation. */
  verified: boolean;
  revision: number;
  createdAt: Date;
}

export interface NewProceduralMemory {
  mindId: string;
  intentionId?: string | null;
  planId?: string | null;
  objective: string;
  strategy: string;
  summary: string;
  steps: JsonObject[];
  confidence: number;
  verified: boolean;
  revision: number;
}

/** Memories per insert: twelve values each keeps a statement well under SQLite's 32,766 parameters. */
const MEMORIES_PER_INSERT = 500;

export class ProceduralMemoryRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /**
   * Stores the memory unless one already exists for its plan; either way returns the stored one
   * and whether this call created it. `ON CONFLICT DO NOTHING` on the unique plan index keeps two
   * concurrent recorders from failing or duplicating.
   */
  async record(input: NewProceduralMemory): Promise<{ memory: ProceduralMemoryRecord; created: boolean }> {
    const [memory] = await this.recordMany([input]);
    if (memory) return { memory, created: true };
    const existing = input.planId ? await this.getByPlan(input.planId) : undefined;
    if (!existing) throw new Error('a procedural memory conflicted but none is stored for its plan');
    return { memory: existing, created: false };
  }

  /**
   * Stores several memories in one statement, each unless its plan has one already (`ON
   * CONFLICT DO NOTHING`, as `record`); returns those this call created. How a pass records the
   * procedures of every plan it completed.
   */
  async recordMany(inputs: readonly NewProceduralMemory[]): Promise<ProceduralMemoryRecord[]> {
    if (inputs.length === 0) return [];
    const { db, codec, clock } = this.#ctx;
    const now = codec.time(clock.now());
    const created: ProceduralMemoryRecord[] = [];
    for (let i = 0; i < inputs.length; i += MEMORIES_PER_INSERT) {
      const rows = await db
        .insertInto('procedural_memories')
        .values(
          inputs.slice(i, i + MEMORIES_PER_INSERT).map((input) => ({
            id: newId(),
            mind_id: input.mindId,
            intention_id: input.intentionId ?? null,
            plan_id: input.planId ?? null,
            objective: input.objective,
            strategy: input.strategy,
            summary: input.summary,
            steps: codec.json(input.steps),
            confidence: input.confidence,
            verified: codec.bool(input.verified),
            revision: input.revision,
            created_at: now,
          })),
        )
        .onConflict((oc) => oc.column('plan_id').doNothing())
        .returningAll()
        .execute();
      created.push(...rows.map((row) => this.#decode(row)));
    }
    return created;
  }

  async get(id: string): Promise<ProceduralMemoryRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('procedural_memories').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  async getByPlan(planId: string): Promise<ProceduralMemoryRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('procedural_memories').selectAll().where('plan_id', '=', planId).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Newest first. */
  async listByMind(mindId: string, options: { limit?: number } = {}): Promise<ProceduralMemoryRecord[]> {
    const rows = await this.#ctx.db
      .selectFrom('procedural_memories')
      .selectAll()
      .where('mind_id', '=', mindId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 100)
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  /** One page of a mind's memories, newest first, keyed on the (time-ordered) id. */
  async listPage(mindId: string, options: { beforeId?: string; limit: number }): Promise<ProceduralMemoryRecord[]> {
    let query = this.#ctx.db.selectFrom('procedural_memories').selectAll().where('mind_id', '=', mindId);
    if (options.beforeId !== undefined) query = query.where('id', '<', options.beforeId);
    const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((row) => this.#decode(row));
  }

  #decode(row: Selectable<ProceduralMemoriesTable>): ProceduralMemoryRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      mindId: row.mind_id,
      intentionId: row.intention_id,
      planId: row.plan_id,
      objective: row.objective,
      strategy: row.strategy,
      summary: row.summary,
      steps: codec.readJson<JsonObject[]>(row.steps),
      confidence: Number(row.confidence),
      verified: codec.readBool(row.verified),
      revision: codec.readInt(row.revision),
      createdAt: codec.readTime(row.created_at),
    };
  }
}
