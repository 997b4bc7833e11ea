// Forking, exporting and importing a mind, on both stores: the copy has the source's beliefs,
// memories, policy, wants and plans under new ids; its inherited work is quiesced exactly (open
// steps blocked with approval and request ids cleared, open plans blocked, live intentions
// suspended); no approval, request, grant or execution comes along; the source is untouched;
// and a bad bundle or a taken name is a typed refusal that writes nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { BUNDLE_VERSION, type MindBundle } from '../../src/mind/bundle.ts';
import { exportMind, forkMind, importMind } from '../../src/mind/copies.ts';
import { CARRIED_COLUMNS, CARRIED_TABLES, MIND_COLUMNS, UNCARRIED_COLUMNS, type Store } from '../../src/store/index.ts';
import { draftOf, makeWorld, readStep, step, type World } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const TABLES = [
  'minds',
  'policy_rules',
  'commitments',
  'beliefs',
  'predictions',
  'procedural_memories',
  'wants',
  'intentions',
  'plans',
  'plan_steps',
  'approval_requests',
  'capability_requests',
  'grants',
  'tool_executions',
  'events',
  'llm_calls',
];

async function rowCounts(store: Store): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

async function mindRows(store: Store, table: string, mindId: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where mind_id = ${mindId}`.execute(store.db);
  return Number(rows[0]!.n);
}

/**
 * A mind in the middle of things: policy, a commitment, a belief, a memory, a want, a live grant,
 * and a plan whose read step completed and whose write waits for an approval.
 */
async function busyMind(world: World) {
  const { store, mind, service } = world;
  await world.allow('test.read');
  await store.commitments.create({ mindId: mind.id, capability: 'test.write', targetPattern: 'db-*', reason: 'databases need a second look' });
  const belief = await store.beliefs.create({ mindId: mind.id, statement: 'svc restarts cleanly', confidence: 0.7 });
  await store.proceduralMemories.record({
    mindId: mind.id,
    objective: 'restart svc',
    strategy: 'direct',
    summary: 'To restart svc: run test.write on svc.',
    steps: [],
    confidence: 0.6,
    verified: false,
    revision: 1,
  });
  await store.wants.create({ mindId: mind.id, statement: 'keep svc healthy', origin: 'dream' });
  const request = await service.requestCapability({
    mindId: mind.id,
    origin: 'test',
    capability: 'test.write',
    targetPattern: '*',
    durationSeconds: 3600,
    maxOperations: 5,
    reason: 'restart things',
    risk: 'low',
    mitigation: 'watch',
    fallback: 'ask again',
    batchKey: 'b',
  });
  assert.equal(request.status, 'raised');
  if (request.status === 'raised') assert.equal((await service.grant(request.requestId, 'olga')).status, 'granted');
  const { plan, intention } = await world.plan(
    draftOf([readStep('a'), step('w', { kind: 'capability', capability: 'test.write', params: { name: 'svc' }, depends_on: ['a'], require_approval: true })], {
      assumptions: [{ statement: belief.statement, belief_id: belief.id, min_confidence: 0.5 }],
      // As the planner leaves them: objects (an import once refused these as not texts).
      alternatives: [
        { strategy: 'direct', estimate: { invocations: 2 }, expected_confidence: 0.8, score: 0.7, selected: true, why: 'the fewest steps' },
        { strategy: 'diagnose_first', estimate: { invocations: 4 }, expected_confidence: 0.9, score: 0.6, selected: false, why: 'slower' },
      ],
    }),
  );
  const executor = world.executor();
  for (let i = 0; i < 6; i += 1) await executor.tick();
  const w = (await store.plans.get(plan.id))!.steps.find((s) => s.key === 'w')!;
  assert.equal(w.status, 'awaiting_approval', 'the write waits for an operator');
  assert.ok(w.approvalId);
  return { plan, intention, belief, approvalId: w.approvalId };
}

for (const kind of STORE_KINDS) {
  describe(`forking, exporting and importing a mind (${kind})`, () => {
    const current = useStore(kind);
    const elsewhere = useStore(kind);

    it('forks a disabled sandbox copy with quiesced work and no authority, leaving the source as it was', async () => {
      const world = await makeWorld(current());
      const { store, mind } = world;
      const { plan, intention, belief, approvalId } = await busyMind(world);
      const sourceBefore = await store.mindBundles.read(mind.id);
      const name = `fork-${mind.id.slice(-6)}`;

      const forked = await forkMind(store, mind, name, 'adam');
      assert.ok(forked.ok, JSON.stringify(forked));
      if (!forked.ok) return;
      const copy = forked.copy.mind;
      assert.equal(copy.name, name);
      assert.equal(copy.status, 'disabled');
      assert.equal(copy.sandbox, true);
      // The intention and the subordinate that stood for the approval wait.
      assert.deepEqual(forked.copy.quiesced, { plans: 1, steps: 1, intentions: 2 });

      // Beliefs, memories, policy, commitments and wants came along; authority did not.
      for (const table of ['policy_rules', 'commitments', 'beliefs', 'procedural_memories', 'wants', 'intentions', 'plans', 'plan_steps']) {
        assert.equal(await mindRows(store, table, copy.id), await mindRows(store, table, mind.id), table);
      }
      for (const table of ['approval_requests', 'capability_requests', 'grants', 'tool_executions', 'llm_calls']) {
        assert.equal(await mindRows(store, table, copy.id), 0, `${table} is never carried`);
      }
      const [copiedPlan] = await store.plans.listByMind(copy.id);
      assert.ok(copiedPlan && copiedPlan.id !== plan.id);
      const full = (await store.plans.get(copiedPlan.id))!;
      assert.equal(full.status, 'blocked');
      const byKey = Object.fromEntries(full.steps.map((s) => [s.key, s]));
      assert.equal(byKey.a!.status, 'completed', 'finished work stays finished');
      assert.equal(byKey.a!.executionId, null, "the source's execution is not linked");
      assert.equal(byKey.w!.status, 'blocked');
      assert.equal(byKey.w!.approvalId, null);
      assert.equal(byKey.w!.requestId, null);
      const intentions = await store.intentions.listByMind(copy.id);
      const copiedIntention = intentions.find((i) => i.parentId === null)!;
      const subordinate = intentions.find((i) => i.parentId !== null)!;
      assert.notEqual(copiedIntention.id, intention.id);
      assert.deepEqual(
        intentions.map((i) => [i.status, i.reason]),
        [
          ['suspended', 'quiesced'],
          ['suspended', 'quiesced'],
        ],
      );
      assert.equal(subordinate.parentId, copiedIntention.id, 'the subordinate points at the copy of its parent');
      assert.equal(full.intentionId, copiedIntention.id);
      const [copiedBelief] = await store.beliefs.listByMind(copy.id);
      assert.equal(full.assumptions[0]!.belief_id, copiedBelief!.id, "the assumption names the copy's own belief");
      assert.notEqual(copiedBelief!.id, belief.id);
      const events = (await store.events.list({ mindId: copy.id })).map((e) => e.type);
      assert.deepEqual(events, ['mind_forked', 'plan_blocked', 'plan_step_blocked', 'intention_suspended', 'intention_suspended']);
      const told = (await store.events.list({ mindId: copy.id }))[0]!;
      assert.equal(told.data.source_mind_id, mind.id);
      assert.equal(told.data.operator, 'adam');

      // The source: same rows (its only new event says it was forked), its approval still pending.
      const sourceAfter = await store.mindBundles.read(mind.id);
      assert.deepEqual(sourceAfter, sourceBefore);
      assert.equal((await store.approvals.get(approvalId))?.status, 'pending');
      assert.equal((await store.events.list({ mindId: mind.id })).at(-1)?.type, 'mind_forked');

      // The executor leaves the fork alone.
      const executor = world.executor();
      for (let i = 0; i < 3; i += 1) await executor.tick();
      assert.equal((await store.plans.get(copiedPlan.id))?.status, 'blocked');
      assert.deepEqual(world.errors, []);
    });

    it('carries every column of every carried table: a migration that adds one makes a new bundle version', async () => {
      const { store } = current();
      for (const table of ['minds', ...CARRIED_TABLES]) {
        const { rows } =
          kind === 'sqlite'
            ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(store.db)
            : await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(store.db);
        const columns = table === 'minds' ? MIND_COLUMNS : CARRIED_COLUMNS[table as keyof typeof CARRIED_COLUMNS];
        // Columns left out on purpose are named as such; any other new column needs a decision.
        const left = UNCARRIED_COLUMNS[table as keyof typeof CARRIED_COLUMNS] ?? [];
        assert.deepEqual(rows.map((r) => r.name).sort(), [...Object.keys(columns), ...left].sort(), table);
      }
    });

    it('refuses a name in use, writing nothing', async () => {
      const world = await makeWorld(current());
      const before = await rowCounts(world.store);
      const taken = await forkMind(world.store, world.mind, world.mind.name, 'adam');
      assert.deepEqual(taken, { ok: false, nameTaken: true, problems: [{ code: 'name_taken', path: 'name', message: `a mind named "${world.mind.name}" already exists` }] });
      assert.deepEqual(await rowCounts(world.store), before);
    });

    it('exports a versioned bundle that imports into another store under a new name, quiesced the same way', async () => {
      const world = await makeWorld(current());
      await busyMind(world);
      const bundle = JSON.parse(JSON.stringify(await exportMind(world.store, world.mind.id))) as MindBundle;
      assert.equal(bundle.format, 'praxis.mind');
      assert.equal(bundle.version, BUNDLE_VERSION);
      assert.equal(bundle.mind.name, world.mind.name);
      assert.equal(bundle.tables.plan_steps.length, 2);
      assert.equal('grants' in bundle.tables || 'approval_requests' in bundle.tables, false);

      const target = elsewhere().store;
      const imported = await importMind(target, bundle, 'adam', 'atlas-copy');
      assert.ok(imported.ok, JSON.stringify(imported));
      if (!imported.ok) return;
      assert.equal(imported.copy.mind.name, 'atlas-copy');
      assert.equal(imported.copy.mind.status, 'active', "an import keeps the bundle's status");
      assert.deepEqual(imported.copy.quiesced, { plans: 1, steps: 1, intentions: 2 });
      assert.equal(imported.copy.copied.beliefs, 1);
      const [plan] = await target.plans.listByMind(imported.copy.mind.id);
      const steps = (await target.plans.get(plan!.id))!.steps;
      assert.deepEqual(
        steps.map((s) => [s.key, s.status, s.approvalId]),
        [
          ['a', 'completed', null],
          ['w', 'blocked', null],
        ],
      );
      assert.deepEqual(
        (await target.events.list({ mindId: imported.copy.mind.id })).map((e) => e.type),
        ['mind_imported', 'plan_blocked', 'plan_step_blocked', 'intention_suspended', 'intention_suspended'],
      );

      // Importing the same bundle again under its own name works once; the name is then taken.
      const again = await importMind(target, bundle, 'adam');
      assert.ok(again.ok);
      const before = await rowCounts(target);
      const taken = await importMind(target, bundle, 'adam');
      assert.equal(taken.ok, false);
      if (!taken.ok) assert.equal(taken.problems[0]!.code, 'name_taken');
      assert.deepEqual(await rowCounts(target), before);
    });

    it('refuses a bad bundle with typed problems at their paths, writing nothing', async () => {
      const world = await makeWorld(current());
      await busyMind(world);
      const good = JSON.parse(JSON.stringify(await exportMind(world.store, world.mind.id))) as MindBundle;
      const target = elsewhere().store;
      const before = await rowCounts(target);
      const refused = async (bundle: unknown, name = 'refused') => {
        const result = await importMind(target, bundle, 'adam', name);
        assert.equal(result.ok, false);
        return result.ok ? [] : result.problems.map((p) => `${p.code} ${p.path}`);
      };
      const edit = (change: (b: MindBundle) => void) => {
        const copy = JSON.parse(JSON.stringify(good)) as MindBundle;
        change(copy);
        return copy;
      };
      assert.deepEqual(await refused('not a bundle'), ['invalid_bundle ']);
      assert.deepEqual(await refused({ ...good, format: 'something.else' }), ['unknown_bundle_format format']);
      assert.deepEqual(await refused({ ...good, version: 2 }), ['unsupported_bundle_version version']);
      assert.deepEqual(
        await refused(
          edit((b) => {
            b.tables.plans[0]!.status = 'finished';
          }),
        ),
        ['invalid_value tables.plans[0].status'],
      );
      assert.deepEqual(
        await refused(
          edit((b) => {
            b.tables.beliefs[0]!.confidence = 7;
          }),
        ),
        ['invalid_value tables.beliefs[0].confidence'],
      );
      assert.deepEqual(
        await refused(
          edit((b) => {
            delete b.tables.plan_steps[1]!.kind;
            b.tables.plan_steps[1]!.color = 'red';
          }),
        ),
        ['unknown_column tables.plan_steps[1].color', 'missing_column tables.plan_steps[1].kind'],
      );
      assert.deepEqual(
        await refused(
          edit((b) => {
            b.tables.plan_steps[0]!.plan_id = b.tables.intentions[0]!.id ?? null;
          }),
        ),
        ['dangling_reference tables.plan_steps[0].plan_id'],
      );
      assert.deepEqual(
        await refused(
          edit((b) => {
            b.tables.beliefs[0]!.statement = 'nul \u0000 inside';
          }),
        ),
        ['control_character tables.beliefs[0].statement'],
      );
      assert.deepEqual(
        await refused(
          edit((b) => {
            delete (b.tables as Partial<MindBundle['tables']>).wants;
          }),
        ),
        ['missing_table tables.wants'],
      );
      // JSON columns of the wrong shape imported, and then broke their readers (a belief whose
      // evidence is an object could never be revised again); a time past year 9999 parsed, sorted
      // before every other on SQLite and was refused by PostgreSQL.
      assert.deepEqual(
        await refused(
          edit((b) => {
            b.tables.beliefs[0]!.evidence = { not: 'a list' };
            b.tables.plans[0]!.alternatives = ['restart it'];
            b.tables.plan_steps[0]!.params = [1, 2];
            b.tables.plans[0]!.created_at = '+010000-01-01T00:00:00.000Z';
            b.tables.beliefs[0]!.updated_at = '2026-12-07 06:00:00+02';
          }),
        ),
        [
          'invalid_value tables.beliefs[0].evidence',
          'invalid_value tables.beliefs[0].updated_at',
          'invalid_value tables.plans[0].alternatives',
          'invalid_value tables.plans[0].created_at',
          'invalid_value tables.plan_steps[0].params',
        ],
      );
      // Rows each well-formed that the store refuses together: two rules for one capability and pattern.
      assert.deepEqual(
        await refused(
          edit((b) => {
            b.tables.policy_rules.push({ ...b.tables.policy_rules[0]!, id: '0190a5a0-0000-7000-8000-000000000001' });
          }),
        ),
        ['bundle_refused '],
      );
      assert.deepEqual(await rowCounts(target), before);
    });
  });
}
