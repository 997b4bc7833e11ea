// Calls to the model role: one row per call, whatever its outcome, so every planning failure
// that involved a model can be traced (which model, how long, how many tokens, what went wrong).

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/plan.ts';
import type { LlmCallOutcome } from '../../core/vocabulary.ts';
import type { LlmCallsTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';

export interface LlmCallRecord {
  id: string;
  mindId: string;
  intentionId: string | null;
  role: string;
  model: string;
  baseUrl: string;
  outcome: LlmCallOutcome;
  /** The HTTP status of an `http_error`; null otherwise. */
  statusCode: number | null;
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  error: string;
  request: JsonObject;
  response: string | null;
  createdAt: Date;
}

export interface NewLlmCall {
  mindId: string;
  intentionId?: string | null;
  role?: string;
  model: string;
  baseUrl: string;
  outcome: LlmCallOutcome;
  statusCode?: number | null;
  finishReason?: string;
  promptTokens?: number;
  completionTokens?: number;
  latencyMs: number;
  error?: string;
  request: JsonObject;
  response?: string | null;
}

export class LlmCallRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async record(input: NewLlmCall): Promise<LlmCallRecord> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .insertInto('llm_calls')
      .values({
        id: newId(),
        mind_id: input.mindId,
        intention_id: input.intentionId ?? null,
        role: input.role ?? 'plan',
        model: input.model,
        base_url: input.baseUrl,
        outcome: input.outcome,
        status_code: input.statusCode ?? null,
        finish_reason: input.finishReason ?? '',
        prompt_tokens: Math.max(0, Math.round(input.promptTokens ?? 0)),
        completion_tokens: Math.max(0, Math.round(input.completionTokens ?? 0)),
        latency_ms: Math.max(0, Math.round(input.latencyMs)),
        error: input.error ?? '',
        request: codec.json(input.request),
        response: input.response ?? null,
        created_at: codec.time(clock.now()),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  async get(id: string): Promise<LlmCallRecord | undefined> {
    const row = await this.#ctx.db.selectFrom('llm_calls').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#decode(row);
  }

  /** Oldest first. */
  async listByIntention(intentionId: string): Promise<LlmCallRecord[]> {
    const rows = await this.#ctx.db.selectFrom('llm_calls').selectAll().where('intention_id', '=', intentionId).orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => this.#decode(row));
  }

  /** Newest first. */
  async listByMind(mindId: string, options: { limit?: number } = {}): Promise<LlmCallRecord[]> {
    const rows = await this.#ctx.db
      .selectFrom('llm_calls')
      .selectAll()
      .where('mind_id', '=', mindId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 100)
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  #decode(row: Selectable<LlmCallsTable>): LlmCallRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      mindId: row.mind_id,
      intentionId: row.intention_id,
      role: row.role,
      model: row.model,
      baseUrl: row.base_url,
      outcome: row.outcome,
      statusCode: row.status_code === null ? null : codec.readInt(row.status_code),
      finishReason: row.finish_reason,
      promptTokens: codec.readInt(row.prompt_tokens),
      completionTokens: codec.readInt(row.completion_tokens),
      latencyMs: codec.readInt(row.latency_ms),
      error: row.error,
      request: codec.readJson<JsonObject>(row.request),
      response: row.response,
      createdAt: codec.readTime(row.created_at),
    };
  }
}
