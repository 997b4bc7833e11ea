// The whole schema, for both stores, from one description. Every status column is a CHECK built
// from the vocabulary lists in src/core; every constraint is named after the table and column, so
// a later migration can replace it by name. Forward-only: there is no `down`.

import { sql, type Kysely, type Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import {
  APPROVAL_STATUSES,
  CAPABILITY_REQUEST_STATUSES,
  COMMITMENT_STATUSES,
  DUE_STEP_STATUSES,
  EVENT_TYPES,
  EXECUTION_STATUSES,
  GRANT_STATUSES,
  INTENTION_REASONS,
  INTENTION_STATUSES,
  MIND_STATUSES,
  PLAN_ORIGINS,
  PLAN_STATUSES,
  POLICY_DECISIONS,
  PREDICTION_STATUSES,
  STEP_KINDS,
  STEP_STATUSES,
} from '../../core/vocabulary.ts';
import { hasOrigin, oneOf } from '../vocabulary-sql.ts';
import { columnTypesFor, type ColumnTypes } from './column-types.ts';

const between0and1 = (column: string) => sql`${sql.ref(column)} >= 0 and ${sql.ref(column)} <= 1`;
const atLeast = (column: string, min: number) => sql`${sql.ref(column)} >= ${sql.lit(min)}`;

export function initialSchema(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const t = columnTypesFor(kind);
      await createMindTables(db, t);
      await createPlanTables(db, t);
      await createAuthorityTables(db, t);
      await createEventLog(db, t, kind);
      await createProceduralMemory(db, t);
    },
  };
}

async function createMindTables(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('minds')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('sandbox', t.bool, (c) => c.notNull().defaultTo(t.no))
    // The host a bound mind is executed on; null means any daemon may run it.
    .addColumn('host', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('minds_status_check', oneOf('status', MIND_STATUSES))
    .execute();

  await db.schema
    .createTable('policy_rules')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('capability', 'text', (c) => c.notNull())
    .addColumn('target_pattern', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    // Two approvers is the four-eyes rule.
    .addColumn('approvers', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('policy_rules_decision_check', oneOf('decision', POLICY_DECISIONS))
    .addCheckConstraint('policy_rules_approvers_check', sql`approvers in (1, 2)`)
    .addUniqueConstraint('policy_rules_rule_key', ['mind_id', 'capability', 'target_pattern'])
    .execute();

  await db.schema
    .createTable('intentions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    // A subordinate intention (waiting for approval or access) points at the one it serves.
    .addColumn('parent_id', t.id, (c) => c.references('intentions.id'))
    .addColumn('objective', 'text', (c) => c.notNull())
    .addColumn('means', t.json)
    .addColumn('belief_id', t.id)
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('require_approval', t.bool, (c) => c.notNull().defaultTo(t.no))
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('closed_at', t.time)
    .addCheckConstraint('intentions_status_check', oneOf('status', INTENTION_STATUSES))
    .addCheckConstraint('intentions_reason_check', oneOf('reason', INTENTION_REASONS))
    .execute();
  await db.schema.createIndex('intentions_mind_idx').on('intentions').columns(['mind_id', 'status']).execute();
  await db.schema.createIndex('intentions_parent_idx').on('intentions').column('parent_id').execute();

  await db.schema
    .createTable('commitments')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('require_approval'))
    .addColumn('capability', 'text', (c) => c.notNull())
    .addColumn('target_pattern', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('released_at', t.time)
    .addCheckConstraint('commitments_kind_check', oneOf('kind', ['require_approval']))
    .addCheckConstraint('commitments_status_check', oneOf('status', COMMITMENT_STATUSES))
    .execute();

  await db.schema
    .createTable('beliefs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('confidence', t.float, (c) => c.notNull())
    // Entries for and against, each with its source.
    .addColumn('evidence', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('beliefs_confidence_check', between0and1('confidence'))
    .execute();
}

async function createPlanTables(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('plans')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('intention_id', t.id, (c) => c.notNull().references('intentions.id'))
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    // Replanning links revisions both ways; the old plan stays as history.
    .addColumn('supersedes', t.id, (c) => c.references('plans.id'))
    .addColumn('superseded_by', t.id)
    .addColumn('objective', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('strategy', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('draft'))
    .addColumn('assumptions', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('completion_criteria', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('abort_conditions', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('alternatives', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('risk', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('estimate', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('actual', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('budget', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('validation', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('require_approval', t.bool, (c) => c.notNull().defaultTo(t.no))
    .addColumn('max_replans', 'integer', (c) => c.notNull().defaultTo(3))
    .addColumn('llm_call', t.id)
    .addColumn('status_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('closed_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('plans_origin_check', oneOf('origin', PLAN_ORIGINS))
    .addCheckConstraint('plans_status_check', oneOf('status', PLAN_STATUSES))
    .execute();
  await db.schema.createIndex('plans_mind_idx').on('plans').columns(['mind_id', 'status', 'created_at desc']).execute();
  await db.schema.createIndex('plans_intention_idx').on('plans').columns(['intention_id', 'revision']).execute();

  await db.schema
    .createTable('plan_steps')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('plan_id', t.id, (c) => c.notNull().references('plans.id'))
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('depends_on', t.textArray, (c) => c.notNull().defaultTo(t.emptyTextArray))
    .addColumn('capability', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('target', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('params', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('require_approval', t.bool, (c) => c.notNull().defaultTo(t.no))
    .addColumn('expectation', t.json)
    .addColumn('precondition', t.json)
    // The part that depends on the kind: a request, a check, a wait, a monitor or an internal action.
    .addColumn('spec', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('lease_until', t.time)
    .addColumn('next_run_at', t.time)
    .addColumn('approval_id', t.id)
    .addColumn('request_id', t.id)
    .addColumn('execution_id', t.id)
    .addColumn('prediction_id', t.id)
    // The subordinate intention formed while this step waits for approval or access.
    .addColumn('intention_id', t.id)
    .addColumn('result', t.json)
    .addColumn('observation', t.json)
    .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('started_at', t.time)
    .addColumn('finished_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('plan_steps_kind_check', oneOf('kind', STEP_KINDS))
    .addCheckConstraint('plan_steps_status_check', oneOf('status', STEP_STATUSES))
    .addUniqueConstraint('plan_steps_plan_id_key_key', ['plan_id', 'key'])
    .execute();
  // Only the statuses the executor revisits are indexed, so the index stays as small as the
  // live work no matter how much history accumulates.
  await db.schema.createIndex('plan_steps_due_idx').on('plan_steps').columns(['status', 'next_run_at']).where(oneOf('status', DUE_STEP_STATUSES)).execute(); // a list as 0001 always wrote it: 0016 rewrites it on SQLite
  await db.schema.createIndex('plan_steps_plan_idx').on('plan_steps').columns(['plan_id', 'position']).execute();

  await db.schema
    .createTable('predictions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('intention_id', t.id)
    .addColumn('plan_id', t.id)
    .addColumn('step_id', t.id)
    .addColumn('belief_id', t.id)
    .addColumn('execution_id', t.id)
    .addColumn('event_id', t.id)
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('verification', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('confidence', t.float, (c) => c.notNull())
    .addColumn('window_opens_at', t.time, (c) => c.notNull())
    .addColumn('window_closes_at', t.time, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('outcome', t.json)
    .addColumn('resolved_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('predictions_confidence_check', between0and1('confidence'))
    .addCheckConstraint('predictions_status_check', oneOf('status', PREDICTION_STATUSES))
    .execute();
  // Expiry sweeps look only at open predictions, oldest window first.
  await db.schema
    .createIndex('predictions_open_idx')
    .on('predictions')
    .column('window_closes_at')
    .where(oneOf('status', ['open']))
    .execute();
}

async function createAuthorityTables(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('tool_executions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('capability', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('params', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('origin', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('correlation_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('evidence', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('approval_id', t.id)
    .addColumn('grant_id', t.id)
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('started'))
    .addColumn('result', t.json)
    .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('retry_safe', t.bool, (c) => c.notNull().defaultTo(t.no))
    .addColumn('started_at', t.time, (c) => c.notNull())
    .addColumn('finished_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('tool_executions_status_check', oneOf('status', EXECUTION_STATUSES))
    .execute();
  // Recovery looks executions up by the step that caused them; most rows carry no origin.
  await db.schema.createIndex('tool_executions_origin_idx').on('tool_executions').column('origin').where(hasOrigin()).execute();

  await db.schema
    .createTable('approval_requests')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('capability', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('params', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('origin', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('correlation_id', 'text', (c) => c.notNull().defaultTo(''))
    // What the mind offered for the action (observations, the step it serves), shown to the operator.
    .addColumn('evidence', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('explanation', t.json, (c) => c.notNull().defaultTo('{}'))
    // Binds the approval to the exact action: any change to capability, target or params voids it.
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('approvers_required', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('decisions', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('authored_by', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('batch_key', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('execution_id', t.id)
    // Every request expires: an approval nobody answers must not stay actionable forever.
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .addColumn('decided_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('approval_requests_status_check', oneOf('status', APPROVAL_STATUSES))
    .addCheckConstraint('approval_requests_approvers_required_check', sql`approvers_required in (1, 2)`)
    .execute();
  await db.schema.createIndex('approval_requests_origin_idx').on('approval_requests').column('origin').where(hasOrigin()).execute();
  await db.schema.createIndex('approval_requests_status_idx').on('approval_requests').columns(['status', 'expires_at']).execute();

  await db.schema
    .createTable('capability_requests')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('intention_id', t.id, (c) => c.references('intentions.id'))
    .addColumn('origin', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('capability', 'text', (c) => c.notNull())
    .addColumn('target_pattern', 'text', (c) => c.notNull())
    .addColumn('param_limits', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('duration_seconds', 'integer', (c) => c.notNull())
    .addColumn('max_operations', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('risk', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mitigation', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('fallback', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('alternatives', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('batch_key', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('decided_by', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('decided_at', t.time)
    .addColumn('grant_id', t.id)
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('capability_requests_status_check', oneOf('status', CAPABILITY_REQUEST_STATUSES))
    .addCheckConstraint('capability_requests_duration_seconds_check', atLeast('duration_seconds', 1))
    .addCheckConstraint('capability_requests_max_operations_check', atLeast('max_operations', 1))
    .execute();
  await db.schema.createIndex('capability_requests_mind_idx').on('capability_requests').columns(['mind_id', 'status']).execute();
  await db.schema.createIndex('capability_requests_origin_idx').on('capability_requests').column('origin').where(hasOrigin()).execute();

  await db.schema
    .createTable('grants')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('request_id', t.id, (c) => c.references('capability_requests.id'))
    .addColumn('capability', 'text', (c) => c.notNull())
    .addColumn('target_pattern', 'text', (c) => c.notNull())
    .addColumn('param_limits', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .addColumn('operations_left', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('granted_by', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('revoked_by', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('revoked_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('grants_status_check', oneOf('status', GRANT_STATUSES))
    .addCheckConstraint('grants_operations_left_check', atLeast('operations_left', 0))
    .execute();
  await db.schema.createIndex('grants_mind_idx').on('grants').columns(['mind_id', 'capability', 'status']).execute();
  // The expiry sweep looks only at active grants, soonest expiry first.
  await db.schema
    .createIndex('grants_active_expiry_idx')
    .on('grants')
    .column('expires_at')
    .where(oneOf('status', ['active']))
    .execute();
}

async function createEventLog(db: Kysely<any>, t: ColumnTypes, kind: StoreKind): Promise<void> {
  // seq gives a total order readers can resume from; the uuid is the event's public identity.
  // The log carries no foreign keys: appending a record must never fail on the rows it mentions.
  const table =
    kind === 'postgres'
      ? db.schema.createTable('events').addColumn('seq', 'bigserial', (c) => c.primaryKey())
      : db.schema.createTable('events').addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement());
  await table
    .addColumn('id', t.id, (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('mind_id', t.id)
    .addColumn('intention_id', t.id)
    .addColumn('plan_id', t.id)
    .addColumn('step_id', t.id)
    .addColumn('data', t.json, (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('events_type_check', oneOf('type', EVENT_TYPES))
    .execute();
  await db.schema.createIndex('events_mind_idx').on('events').columns(['mind_id', 'seq']).execute();
  await db.schema.createIndex('events_plan_idx').on('events').columns(['plan_id', 'seq']).execute();
  await db.schema.createIndex('events_intention_idx').on('events').columns(['intention_id', 'seq']).execute();
}

async function createProceduralMemory(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('procedural_memories')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('mind_id', t.id, (c) => c.notNull().references('minds.id'))
    .addColumn('intention_id', t.id)
    .addColumn('plan_id', t.id)
    .addColumn('objective', 'text', (c) => c.notNull())
    .addColumn('strategy', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('steps', t.json, (c) => c.notNull().defaultTo('[]'))
    .addColumn('confidence', t.float, (c) => c.notNull())
    .addColumn('verified', t.bool, (c) => c.notNull().defaultTo(t.no))
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
    .addCheckConstraint('procedural_memories_confidence_check', between0and1('confidence'))
    .execute();
  await db.schema.createIndex('procedural_memories_mind_idx').on('procedural_memories').columns(['mind_id', 'created_at']).execute();
}
