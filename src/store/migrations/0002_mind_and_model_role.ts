// What the mind model and the model role need beyond 0001: a record of every call to the model
// role (linked from plans.llm_call), a version counter that makes belief revisions conditional,
// and the indexes behind calibration and procedural memory. Forward-only, like every migration.

import { sql, type Kysely, type Migration } from 'kysely';
import { LLM_CALL_OUTCOMES } from '../../core/vocabulary.ts';
import type { StoreKind } from '../codec.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { columnTypesFor } from './column-types.ts';

const atLeastZero = (column: string) => sql`${sql.ref(column)} >= 0`;

export function mindAndModelRole(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const t = columnTypesFor(kind);

      await db.schema
        .createTable('llm_calls')
        .addColumn('id', t.id, (c) => c.primaryKey())
        .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
        .addColumn('intention_id', t.id, (c) => c.references('intentions.id'))
        // The role the model was asked to play; planning is the only one today.
        .addColumn('role', 'text', (c) => c.notNull().defaultTo('plan'))
        .addColumn('model', 'text', (c) => c.notNull())
        // Without user information or query: where the call went, never how it authenticated.
        .addColumn('base_url', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('finish_reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('prompt_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('latency_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
        // The messages sent, and the text that came back (capped), for inspection.
        .addColumn('request', t.json, (c) => c.notNull().defaultTo('{}'))
        .addColumn('response', 'text')
        .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
        .addCheckConstraint('llm_calls_outcome_check', oneOf('outcome', LLM_CALL_OUTCOMES))
        .addCheckConstraint('llm_calls_prompt_tokens_check', atLeastZero('prompt_tokens'))
        .addCheckConstraint('llm_calls_completion_tokens_check', atLeastZero('completion_tokens'))
        .addCheckConstraint('llm_calls_latency_ms_check', atLeastZero('latency_ms'))
        .execute();
      await db.schema.createIndex('llm_calls_mind_idx').on('llm_calls').columns(['mind_id', 'created_at']).execute();
      await db.schema.createIndex('llm_calls_intention_idx').on('llm_calls').column('intention_id').execute();

      // Both stores can add a NOT NULL column when it has a default.
      await db.schema
        .alterTable('beliefs')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('beliefs_mind_idx').on('beliefs').columns(['mind_id', 'created_at']).execute();

      // Calibration reads a mind's resolved predictions.
      await db.schema.createIndex('predictions_mind_idx').on('predictions').columns(['mind_id', 'status']).execute();

      // One procedural memory per completed plan, however many times recording is attempted.
      await db.schema.createIndex('procedural_memories_plan_key').on('procedural_memories').column('plan_id').unique().execute();
    },
  };
}
