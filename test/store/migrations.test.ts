import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { DUE_STEP_STATUSES, STEP_STATUSES } from '../../src/core/vocabulary.ts';
import type { StoreKind } from '../../src/store/codec.ts';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrateToLatest, migrationsFor } from '../../src/store/migrations/index.ts';
import { TABLE_NAMES, type Database } from '../../src/store/schema.ts';
import { openStore } from '../../src/store/store.ts';
import { praxis } from '../daemon/process.ts';
import { STORE_KINDS, openTestStore, useStore } from '../support/stores.ts';

async function tableNames(db: Kysely<Database>, kind: StoreKind): Promise<string[]> {
  const { rows } =
    kind === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db);
  return rows.map((r) => r.name).sort();
}

async function columnNames(db: Kysely<Database>, kind: StoreKind, table: string): Promise<string[]> {
  const { rows } =
    kind === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)
      : await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`.execute(db);
  return rows.map((r) => r.name).sort();
}

async function indexDefinitions(db: Kysely<Database>, kind: StoreKind): Promise<Map<string, string>> {
  const { rows } =
    kind === 'sqlite'
      ? await sql<{ name: string; def: string }>`select name, sql as def from sqlite_master where type = 'index' and sql is not null`.execute(db)
      : await sql<{ name: string; def: string }>`select indexname as name, indexdef as def from pg_indexes where schemaname = current_schema()`.execute(db);
  return new Map(rows.map((r) => [r.name, r.def]));
}

const PLAN_COLUMNS = [
  'id',
  'mind_id',
  'intention_id',
  'revision',
  'supersedes',
  'superseded_by',
  'objective',
  'origin',
  'strategy',
  'status',
  'assumptions',
  'completion_criteria',
  'abort_conditions',
  'alternatives',
  'risk',
  'estimate',
  'actual',
  'budget',
  'validation',
  'require_approval',
  'max_replans',
  'llm_call',
  'status_reason',
  'closed_at',
  'created_at',
  'updated_at',
  'authored_by',
  // 0010
  'paused_at',
  'paused_by',
  'pause_reason',
];
const STEP_COLUMNS = [
  'id',
  'plan_id',
  'mind_id',
  'key',
  'position',
  'title',
  'kind',
  'depends_on',
  'capability',
  'target',
  'params',
  'require_approval',
  'expectation',
  'precondition',
  'spec',
  'status',
  'attempts',
  'max_attempts',
  'lease_until',
  'next_run_at',
  'approval_id',
  'request_id',
  'execution_id',
  'prediction_id',
  'intention_id',
  'result',
  'observation',
  'error',
  'status_reason',
  'started_at',
  'finished_at',
  'created_at',
  'updated_at',
  // 0006
  'claimed_by',
  // 0019
  'host',
];
const INDEXES = [
  'plans_mind_idx',
  'plans_intention_idx',
  'plan_steps_due_idx',
  'plan_steps_plan_idx',
  'predictions_open_idx',
  'tool_executions_origin_idx',
  'approval_requests_origin_idx',
  'approval_requests_status_idx',
  'capability_requests_mind_idx',
  'capability_requests_origin_idx',
  'grants_mind_idx',
  'grants_active_expiry_idx',
  'events_mind_idx',
  'events_plan_idx',
  'events_intention_idx',
  // 0020
  'plans_startable_idx',
];
const APPROVAL_COLUMNS = [
  'id',
  'mind_id',
  'capability',
  'target',
  'params',
  'origin',
  'correlation_id',
  'evidence',
  'explanation',
  'digest',
  'status',
  'approvers_required',
  'decisions',
  'authored_by',
  'batch_key',
  'execution_id',
  'expires_at',
  'decided_at',
  'created_at',
  'updated_at',
  // 0007
  'author_named_by',
  // 0011
  'amendments',
  // 0018
  'claimed_by',
  'claimed_for',
];

for (const kind of STORE_KINDS) {
  describe(`migrations (${kind})`, () => {
    const current = useStore(kind);

    it('creates the whole schema', async () => {
      const { store } = current();
      assert.deepEqual(await tableNames(store.db, kind), [...TABLE_NAMES, MIGRATION_TABLE, MIGRATION_LOCK_TABLE].sort());
      assert.deepEqual(await columnNames(store.db, kind, 'plans'), [...PLAN_COLUMNS].sort());
      assert.deepEqual(await columnNames(store.db, kind, 'plan_steps'), [...STEP_COLUMNS].sort());
      assert.deepEqual(await columnNames(store.db, kind, 'approval_requests'), [...APPROVAL_COLUMNS].sort());
      const indexes = await indexDefinitions(store.db, kind);
      for (const name of INDEXES) assert.ok(indexes.has(name), `index ${name} is missing`);
    });

    it('is a no-op when run again', async () => {
      const { store } = current();
      const tablesBefore = await tableNames(store.db, kind);
      const indexesBefore = await indexDefinitions(store.db, kind);
      await store.migrate();
      assert.deepEqual(await migrateToLatest(store.db, kind), []);
      assert.deepEqual(await tableNames(store.db, kind), tablesBefore);
      assert.deepEqual(await indexDefinitions(store.db, kind), indexesBefore);
      const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(store.db);
      assert.deepEqual(applied.rows.map((r) => r.name).sort(), Object.keys(migrationsFor(kind)).sort());
    });

    // At the latest migration, opening a store reads the migration table and goes no further;
    // any other set of applied migrations still goes through the migrator.
    it('applies a migration the database lacks, and refuses one it does not know, with nothing changed', async () => {
      const { store } = current();
      const names = Object.keys(migrationsFor(kind));
      const last = names.at(-1)!;
      await sql`delete from ${sql.table(MIGRATION_TABLE)} where name = ${last}`.execute(store.db);
      // The migrator runs it again (the last migrations refresh a CHECK and create an index if it is missing: either may run twice).
      await store.migrate();
      const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(store.db);
      assert.deepEqual(
        applied.rows.map((r) => r.name),
        names,
      );

      const newer = '9999_from_a_newer_praxis';
      await sql`insert into ${sql.table(MIGRATION_TABLE)} (name, timestamp) values (${newer}, ${new Date().toISOString()})`.execute(store.db);
      const tablesBefore = await tableNames(store.db, kind);
      await assert.rejects(store.migrate(), new RegExp(`migrated by a newer version of Praxis: it has migration ${newer}, which this version does not know`));
      assert.deepEqual(await tableNames(store.db, kind), tablesBefore);
    });

    it('declares the startable plans index as partial over validated plans, ordered by creation and id', async () => {
      const { store } = current();
      const definition = (await indexDefinitions(store.db, kind)).get('plans_startable_idx');
      assert.ok(definition, 'plans_startable_idx is missing');
      assert.match(definition.replace(/"/g, ''), /\(created_at, id\)/);
      assert.match(definition.replace(/"/g, '').toLowerCase(), /where \(?status = 'validated'(::text)?\)?$/);
    });

    it('declares the due index as partial over exactly the due statuses, ordered by host, status, due time and id', async () => {
      const { store } = current();
      const definition = (await indexDefinitions(store.db, kind)).get('plan_steps_due_idx');
      assert.ok(definition, 'plan_steps_due_idx is missing');
      // 0017: within a status, due time then id, so a pass's reads walk it in the order it takes
      // work; 0019: led by the host, so a daemon walks only its own host's part and the unbound one.
      assert.match(definition.replace(/"/g, ''), /\(host, status, next_run_at, id\)/);
      const where = definition.slice(definition.toLowerCase().indexOf(' where '));
      assert.match(where, /^ where /i, `not a partial index: ${definition}`);
      // SQLite names the due statuses (equalities); PostgreSQL excludes every other one (0017).
      for (const status of STEP_STATUSES) {
        const due = (DUE_STEP_STATUSES as readonly string[]).includes(status);
        const named = where.includes(`'${status}'`);
        assert.equal(named, kind === 'sqlite' ? due : !due, `${status} in ${where}`);
      }
      if (kind === 'postgres') assert.doesNotMatch(where, /=\s*'|\bin\b|\bor\b/i, `only exclusions: ${where}`);
    });

    describe('CHECK constraints', () => {
      async function seedRows() {
        const { store, clock } = current();
        const now = clock.now().toISOString();
        const mindId = newId();
        const intentionId = newId();
        await store.db
          .insertInto('minds')
          .values({ id: mindId, name: `m-${mindId}`, sandbox: store.codec.bool(false), created_at: now, updated_at: now })
          .execute();
        await store.db
          .insertInto('intentions')
          .values({
            id: intentionId,
            mind_id: mindId,
            objective: 'o',
            origin: 'test',
            require_approval: store.codec.bool(false),
            created_at: now,
            updated_at: now,
          })
          .execute();
        return { now, mindId, intentionId };
      }

      function planRow(ids: { now: string; mindId: string; intentionId: string }, status: string) {
        const { store } = current();
        return {
          id: newId(),
          mind_id: ids.mindId,
          intention_id: ids.intentionId,
          objective: 'o',
          origin: 'operator' as const,
          status: status as 'draft',
          require_approval: store.codec.bool(false),
          created_at: ids.now,
          updated_at: ids.now,
        };
      }

      function stepRow(ids: { now: string; mindId: string }, planId: string, kind: string, status: string) {
        const { store } = current();
        return {
          id: newId(),
          plan_id: planId,
          mind_id: ids.mindId,
          key: newId().slice(-8),
          position: 0,
          title: 't',
          kind: kind as 'wait',
          status: status as 'pending',
          depends_on: store.codec.textArray([]),
          require_approval: store.codec.bool(false),
          created_at: ids.now,
          updated_at: ids.now,
        };
      }

      it('reject a plan status outside the vocabulary', async () => {
        const { store } = current();
        const ids = await seedRows();
        await assert.rejects(store.db.insertInto('plans').values(planRow(ids, 'running')).execute(), /plans_status_check/);
        const good = planRow(ids, 'validated');
        await store.db.insertInto('plans').values(good).execute();
        await assert.rejects(
          store.db
            .updateTable('plans')
            .set({ status: 'done' as 'completed' })
            .where('id', '=', good.id)
            .execute(),
          /plans_status_check/,
        );
      });

      it('reject a step kind or step status outside the vocabulary', async () => {
        const { store } = current();
        const ids = await seedRows();
        const plan = planRow(ids, 'validated');
        await store.db.insertInto('plans').values(plan).execute();
        await assert.rejects(
          store.db
            .insertInto('plan_steps')
            .values(stepRow(ids, plan.id, 'shell', 'pending'))
            .execute(),
          /plan_steps_kind_check/,
        );
        await assert.rejects(
          store.db
            .insertInto('plan_steps')
            .values(stepRow(ids, plan.id, 'wait', 'running'))
            .execute(),
          /plan_steps_status_check/,
        );
        await store.db
          .insertInto('plan_steps')
          .values(stepRow(ids, plan.id, 'wait', 'pending'))
          .execute();
      });

      it('reject an unknown event type and a confidence above 1', async () => {
        const { store, clock } = current();
        const now = clock.now().toISOString();
        await assert.rejects(
          store.db
            .insertInto('events')
            .values({ id: newId(), type: 'plan_exploded' as 'plan_created', created_at: now })
            .execute(),
          /events_type_check/,
        );
        const { mindId } = await seedRows();
        await assert.rejects(
          store.db.insertInto('beliefs').values({ id: newId(), mind_id: mindId, statement: 's', confidence: 1.5, created_at: now, updated_at: now }).execute(),
          /beliefs_confidence_check/,
        );
      });

      it('reject an approval request without an expiry and a grant with negative operations left', async () => {
        const { store } = current();
        const ids = await seedRows();
        const approval = {
          id: newId(),
          mind_id: ids.mindId,
          capability: 'service.restart',
          digest: 'sha256:0',
          created_at: ids.now,
          updated_at: ids.now,
        };
        await assert.rejects(
          store.db
            .insertInto('approval_requests')
            .values(approval as typeof approval & { expires_at: string })
            .execute(),
          /not[ -]null/i,
        );
        await store.db
          .insertInto('approval_requests')
          .values({ ...approval, expires_at: ids.now })
          .execute();
        const grant = {
          id: newId(),
          mind_id: ids.mindId,
          capability: 'service.restart',
          target_pattern: '*.service',
          expires_at: ids.now,
          created_at: ids.now,
        };
        await assert.rejects(
          store.db
            .insertInto('grants')
            .values({ ...grant, operations_left: -1 })
            .execute(),
          /grants_operations_left_check/,
        );
      });

      it('enforce foreign keys', async () => {
        const ids = await seedRows();
        const { store } = current();
        await assert.rejects(
          store.db
            .insertInto('plans')
            .values({ ...planRow(ids, 'draft'), mind_id: newId() })
            .execute(),
          /foreign key/i,
        );
      });
    });
  });
}

describe('migrations (sqlite, several processes opening a new file at once)', () => {
  it('applies each migration once, one process at a time (sqlite-migration-lock.ts)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'praxis-migrate-'));
    const path = join(dir, 'praxis.db');
    try {
      // Real processes, as a daemon and commands started together on a new store (commands that
      // may create one: a command that only reads refuses a place with no store).
      const runs = await Promise.all([1, 2, 3].map((i) => praxis(['mind', 'create', `mind-${i}`, '--db', path, '--json'])));
      for (const run of runs) assert.equal(run.code, 0, run.stderr);
      const stores = await Promise.all([1, 2, 3].map(() => openStore({ kind: 'sqlite', path: join(dir, 'second.db') })));
      try {
        // And stores of one process, whose migrators would interleave at every await.
        await Promise.all(stores.map((store) => store.migrate()));
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
      for (const file of ['praxis.db', 'second.db']) {
        const store = await openStore({ kind: 'sqlite', path: join(dir, file) });
        try {
          const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(store.db);
          assert.deepEqual(
            applied.rows.map((r) => r.name),
            Object.keys(migrationsFor('sqlite')),
          );
        } finally {
          await store.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('migrations (postgres, several daemons starting at once)', () => {
  it('applies each migration once when several stores migrate the same database together', async () => {
    const test = await openTestStore('postgres', { migrate: false });
    const config = test.config.kind === 'postgres' ? test.config : assert.fail('not a PostgreSQL store');
    const stores = await Promise.all([1, 2, 3].map(() => openStore({ ...config, schema: 'praxis_race' })));
    try {
      await Promise.all(stores.map((store) => store.migrate()));
      const applied = await sql<{ name: string }>`select name from ${sql.table(`praxis_race.${MIGRATION_TABLE}`)}`.execute(test.store.db);
      assert.deepEqual(applied.rows.map((r) => r.name).sort(), Object.keys(migrationsFor('postgres')).sort());
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await test.dispose();
    }
  });
});

describe('migrations (postgres, in a named schema)', () => {
  it('puts every table and the migration bookkeeping in that schema', async () => {
    const test = await openTestStore('postgres', { migrate: false });
    assert.equal(test.config.kind, 'postgres');
    const scoped = await openStore({ ...test.config, schema: 'praxis_alt' }, { clock: test.clock });
    try {
      await scoped.migrate();
      await scoped.migrate();
      const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables
        where table_schema = 'praxis_alt'`.execute(scoped.db);
      assert.deepEqual(rows.map((r) => r.name).sort(), [...TABLE_NAMES, MIGRATION_TABLE, MIGRATION_LOCK_TABLE].sort());
      assert.deepEqual(await tableNames(test.store.db, 'postgres'), [], 'nothing lands in public');
      const mind = await scoped.minds.create({ name: 'scoped' });
      assert.equal((await scoped.minds.get(mind.id))?.name, 'scoped');
    } finally {
      await scoped.close();
      await test.dispose();
    }
  });
});
