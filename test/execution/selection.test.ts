// Which work a tick takes on: never drafts, dream plans or a disabled mind's plans; only minds
// bound to the daemon's host or to none; and found through indexes, so closed history does not
// show up in what a tick reads.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { dueStepQueries, heldClaimsQuery, plansToSettleQuery, startablePlansQuery } from '../../src/store/repositories/executor-queries.ts';
import { validate } from '../../src/planning/validate.ts';
import { queryPlan } from '../support/query-plan.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep, stepsOf } from './support.ts';

for (const kind of STORE_KINDS) {
  describe(`executor selection (${kind})`, () => {
    const current = useStore(kind);

    it('never starts a draft or a dream plan', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan: dream } = await w.plan(draftOf([readStep('A')]), { origin: 'dream' });
      const draft = draftOf([readStep('A')]);
      const intention = await w.store.intentions.create({ mindId: w.mind.id, objective: 'x', origin: 'operator' });
      const stored = await w.store.plans.create({
        mindId: w.mind.id,
        intentionId: intention.id,
        origin: 'model',
        draft,
        validation: { ...validate(draft, w.registry), valid: false },
        status: 'draft',
      });
      await w.executor().drain();
      assert.equal((await w.store.plans.get(dream.id))?.status, 'validated');
      assert.equal((await w.store.plans.get(stored.id))?.status, 'draft');
      assert.equal(w.log.calls.length, 0);
    });

    it('does not advance the plans of a disabled mind, and picks them up when it is enabled again', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([readStep('A'), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] })]));
      // One round per pass: the first pass runs A only, and B is left for the passes after.
      const executor = w.executor({ rounds: 1 });
      await executor.tick();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'executing');
      await w.store.minds.setStatus(w.mind.id, 'disabled');
      const callsBefore = w.log.calls.length;
      await executor.drain();
      assert.equal(w.log.calls.length, callsBefore, 'nothing more ran while disabled');
      await w.store.minds.setStatus(w.mind.id, 'active');
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { A: 'completed', B: 'completed' });
    });

    it('advances a bound mind only on its own host, and an unbound mind anywhere', async () => {
      const w = await makeWorld(current(), { mindHost: 'host-a' });
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([readStep('A')]));
      const unbound = await w.store.minds.create({ name: `free-${newId()}` });
      await w.store.policyRules.set({ mindId: unbound.id, capability: 'test.read', targetPattern: '*', decision: 'allow', approvers: 1 });
      const { plan: free } = await w.plan(draftOf([readStep('A')]), { mind: unbound });

      await w.executor({ host: null }).drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'validated', 'a daemon with no host leaves bound minds alone');
      assert.equal((await w.store.plans.get(free.id))?.status, 'completed');

      await w.executor({ host: 'host-b' }).drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'validated');
      await w.executor({ host: 'host-a' }).drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
    });

    it('abandons a validated plan whose intention has closed instead of running it', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan, intention } = await w.plan(draftOf([readStep('A')]));
      await w.store.intentions.transition(intention.id, 'active', 'abandoned', 'cancelled');
      await w.executor().drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'abandoned');
      assert.equal(w.log.calls.length, 0);
    });

    it('finds due steps through the partial due index, plans to start through theirs and live plans through the live-plan index', async () => {
      const { store } = current();
      const db = store.db;
      // A store with history: closed plans far outnumber the live ones, as they do in use, and the
      // planner knows it (on empty tables it may pick any index that can serve).
      const w = await makeWorld(current());
      const draft = draftOf([readStep('A')]);
      for (let i = 0; i < 200; i += 1) await w.plan(draft);
      await sql`update plans set status = 'completed'`.execute(db);
      await w.plan(draft);
      await sql`analyze`.execute(db);
      const explain = (compiled: { sql: string; parameters: readonly unknown[] }) => queryPlan(db, kind, compiled);
      const affinity = { host: 'h', limit: 10 };
      const due = dueStepQueries(db, kind, new Date().toISOString(), affinity);
      for (const tier of [due.timed, due.ready, due.polled]) assert.match(await explain(tier().compile()), /plan_steps_due_idx/);
      assert.match(await explain(startablePlansQuery(db, kind, affinity).compile()), /plans_startable_idx/);
      assert.match(await explain(plansToSettleQuery(db, kind, affinity).compile()), /plans_live_idx/);
    });

    it('takes a batch of ready steps from a backlog by walking the due index, without sorting the backlog', async () => {
      const { store } = current();
      const db = store.db;
      const w = await makeWorld(current());
      const draft = draftOf([readStep('A')]);
      for (let i = 0; i < 300; i += 1) await w.plan(draft);
      await sql`update plans set status = 'executing'`.execute(db);
      await sql`update plan_steps set status = 'ready'`.execute(db);
      await sql`analyze`.execute(db);
      const due = dueStepQueries(db, kind, new Date().toISOString(), { host: null, limit: 10 });
      const ready = due.ready();
      const plan = await queryPlan(db, kind, ready.compile());
      assert.match(plan, /plan_steps_due_idx/);
      assert.doesNotMatch(plan, kind === 'sqlite' ? /TEMP B-TREE/ : /Sort/, `the index's order is the order asked for: ${plan}`);
      // The steps whose time has come are read one status at a time: counted by ANALYZE, the
      // backlog once made SQLite scan the table for them, and PostgreSQL walked the whole index.
      const timed = await queryPlan(db, kind, due.timed().compile());
      assert.match(
        timed,
        kind === 'sqlite' ? /SEARCH plan_steps USING INDEX plan_steps_due_idx \(host=\? AND status=\? AND next_run_at>\? AND next_run_at<\?\)/ : /Index Cond: \(\(host IS NULL\) AND \(status = ANY/,
        timed,
      );
      const ids = (await ready.execute()).map((row) => row.id);
      assert.equal(ids.length, 10);
      assert.deepEqual(ids, [...ids].sort(), 'oldest first');
    });

    it('starts the oldest plans of a backlog of validated plans by walking an index, without sorting the backlog', async () => {
      const { store } = current();
      const db = store.db;
      const w = await makeWorld(current());
      const draft = draftOf([readStep('A')]);
      for (let i = 0; i < 300; i += 1) await w.plan(draft);
      await sql`analyze`.execute(db);
      const query = startablePlansQuery(db, kind, { host: null, limit: 10 });
      const plan = await queryPlan(db, kind, query.compile());
      assert.match(plan, /plans_startable_idx/);
      assert.doesNotMatch(plan, kind === 'sqlite' ? /TEMP B-TREE/ : /Sort/, `the index's order is the order asked for: ${plan}`);
      const ids = (await query.execute()).map((row) => row.id);
      const oldest = (await sql<{ id: string }>`select id from plans where status = 'validated' order by created_at, id limit 10`.execute(db)).rows.map((row) => row.id);
      assert.deepEqual(ids, oldest, 'oldest first');
    });

    it("walks only its own host's part of the due index and the unbound part, never another host's backlog", async () => {
      const { store } = current();
      const db = store.db;
      // Host A has a backlog; host B's daemon has three steps of its own and two unbound ones to find.
      const w = await makeWorld(current(), { mindHost: 'host-a' });
      const draft = draftOf([readStep('A')]);
      for (let i = 0; i < 200; i += 1) await w.plan(draft);
      const ofB = await store.minds.create({ name: `b-${newId()}`, host: 'host-b' });
      const unbound = await store.minds.create({ name: `free-${newId()}` });
      const expected: string[] = [];
      for (const mind of [ofB, ofB, unbound, ofB, unbound]) expected.push((await w.plan(draft, { mind })).plan.steps[0]!.id);
      const minds = [w.mind.id, ofB.id, unbound.id];
      // Earlier tests' steps in this store are finished, so these are all the due work there is.
      await sql`update plans set status = 'executing'`.execute(db);
      await sql`update plan_steps set status = case when mind_id in (${sql.join(minds)}) then 'ready' else 'completed' end`.execute(db);
      await sql`analyze`.execute(db);

      const hosts = await sql<{ host: string | null; n: number | string }>`select host, count(*) as n from plan_steps where mind_id in (${sql.join(minds)}) group by host order by host`.execute(db);
      assert.deepEqual(
        hosts.rows.map((row) => [row.host, Number(row.n)]),
        kind === 'sqlite'
          ? [
              [null, 2],
              ['host-a', 200],
              ['host-b', 3],
            ]
          : [
              ['host-a', 200],
              ['host-b', 3],
              [null, 2],
            ],
        "each step carries its mind's host",
      );
      const due = await store.executorQueries.dueSteps({ now: new Date(), host: 'host-b', limit: 10 });
      assert.deepEqual(
        due.map((step) => step.id),
        [...expected].sort(),
        'its own and the unbound steps, oldest first across both parts',
      );
      assert.deepEqual(
        (await store.executorQueries.dueSteps({ now: new Date(), host: 'host-b', limit: 4 })).map((step) => step.id),
        [...expected].sort().slice(0, 4),
      );

      const ready = dueStepQueries(db, kind, new Date().toISOString(), { host: 'host-b', limit: 10 }).ready().compile();
      if (kind === 'sqlite') {
        const plan = await queryPlan(db, kind, ready);
        assert.equal(plan.match(/SEARCH plan_steps USING INDEX plan_steps_due_idx \(host=\? AND status=\? AND next_run_at=\?\)/g)?.length, 2, plan);
        assert.doesNotMatch(plan, /SCAN plan_steps/, plan);
      } else {
        // What the walks read, as PostgreSQL counts it: host B's three steps and the two unbound, nothing of host A's.
        const { rows } = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(CompiledQuery.raw(`explain (analyze, format json) ${ready.sql}`, [...ready.parameters]));
        const scans = planNodes(rows[0]!['QUERY PLAN'][0].Plan).filter((node) => node['Relation Name'] === 'plan_steps');
        assert.equal(scans.length, 2, JSON.stringify(scans));
        for (const scan of scans) assert.equal(scan['Index Name'], 'plan_steps_due_idx');
        assert.equal(
          scans.reduce((sum, scan) => sum + scan['Actual Rows'] + (scan['Rows Removed by Filter'] ?? 0), 0),
          5,
        );
      }
    });

    it('on PostgreSQL plans its reads of the due index generically, and the generic plans walk the index as the custom ones do', { skip: kind !== 'postgres' }, async () => {
      const { store } = current();
      const db = store.db;
      // A backlog of host A's ready steps, and ready unbound steps: with statuses bound as values,
      // a generic plan could not prove the due index's predicate, and read every plan instead.
      const w = await makeWorld(current(), { mindHost: 'host-a' });
      const draft = draftOf([readStep('A')]);
      for (let i = 0; i < 200; i += 1) await w.plan(draft);
      const unbound = await store.minds.create({ name: `free-${newId()}` });
      const unboundSteps: string[] = [];
      for (let i = 0; i < 3; i += 1) unboundSteps.push((await w.plan(draft, { mind: unbound })).plan.steps[0]!.id);
      await sql`update plans set status = 'executing' where status in ('validated', 'executing')`.execute(db);
      await sql`update plan_steps set status = 'ready' where status in ('pending', 'ready')`.execute(db);
      // And 50 of them waiting for a check an hour from now, as monitors wait: the timed read must not walk them.
      const later = store.codec.time(new Date(Date.now() + 3_600_000));
      await sql`update plan_steps set status = 'waiting', next_run_at = ${later} where id in (select id from plan_steps where host = 'host-a' and status = 'ready' order by id limit 50)`.execute(db);
      // And 20 waiting for an operator with nothing pending (a.status is null): the polled read returns a batch of them.
      await sql`update plan_steps set status = 'awaiting_approval' where id in (select id from plan_steps where host = 'host-a' and status = 'ready' order by id desc limit 20)`.execute(db);
      await sql`analyze`.execute(db);
      const literal = (value: unknown) => (typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`);
      const at = new Date().toISOString();
      for (const host of ['host-a', 'host-b', null]) {
        const due = dueStepQueries(db, kind, at, { host, limit: 10 });
        // Every read the store runs on its generic connections (ExecutorQueryRepository: dueSteps, heldClaims).
        // The next due time is planned for each run: generic, it read the unbound part whole.
        const reads = { ...due, held: () => heldClaimsQuery(db, kind, at, { host, limit: 10 }) };
        for (const [name, read] of Object.entries(reads)) {
          const compiled = read().compile();
          const rows = await db.connection().execute(async (connection) => {
            await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
            try {
              await sql.raw(`prepare due_read as ${compiled.sql}`).execute(connection);
              const explained = await sql
                .raw<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) execute due_read(${compiled.parameters.map(literal).join(', ')})`)
                .execute(connection);
              return explained.rows;
            } finally {
              await sql`deallocate due_read`.execute(connection);
              await sql`reset plan_cache_mode`.execute(connection);
            }
          });
          const nodes = planNodes(rows[0]!['QUERY PLAN'][0].Plan);
          const what = `${name} read for ${host}: ${JSON.stringify(nodes.map((node) => [node['Node Type'], node['Relation Name'], node['Index Name'], node['Actual Loops']]))}`;
          const steps = nodes.filter((node) => node['Relation Name'] === 'plan_steps');
          // A walk per part of the due index; the polled read walks each polled status apart.
          assert.equal(steps.length, (host === null ? 1 : 2) * (name === 'polled' ? 4 : 1), what);
          for (const scan of steps) assert.equal(scan['Index Name'], 'plan_steps_due_idx', what);
          // What passed through each scan, every loop of it: only what the read returns, never a backlog.
          const read_ = (relation: string) =>
            nodes.filter((node) => node['Relation Name'] === relation).reduce((sum, node) => sum + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'], 0);
          assert.ok(read_('plan_steps') <= 20, `${what}: read ${read_('plan_steps')} steps`);
          assert.ok(read_('plans') <= 20, `${what}: read ${read_('plans')} plans`);
        }
      }
      // The store runs them so: host A finds a batch, host B none of host A's (these unbound ones among them).
      assert.equal((await store.executorQueries.dueSteps({ now: new Date(), host: 'host-a', limit: 10 })).length, 10);
      assert.equal((await dueStepQueries(store.dueReadDb, kind, at, { host: 'host-a', limit: 10 }).polled().execute()).length, 10, 'the polled read finds its batch');
      const ofB = await store.executorQueries.dueSteps({ now: new Date(), host: 'host-b', limit: 100 });
      for (const id of unboundSteps)
        assert.ok(
          ofB.some((step) => step.id === id),
          'an unbound step is due for host B',
        );
      const hosts = await sql<{ host: string | null }>`select distinct host from plan_steps where id in (${sql.join(ofB.map((step) => step.id))})`.execute(db);
      assert.ok(!hosts.rows.some((row) => row.host === 'host-a'), JSON.stringify(hosts.rows));
    });

    it('wakes for the soonest due step of its own host or of none, never for another host', async () => {
      const w = await makeWorld(current(), { mindHost: 'host-a' });
      const { store } = w;
      const draft = draftOf([readStep('A')]);
      const ofB = await store.minds.create({ name: `b-${newId()}`, host: 'host-b' });
      const unbound = await store.minds.create({ name: `free-${newId()}` });
      const now = new Date();
      const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
      const steps: Record<string, string> = {};
      for (const [name, mind] of [
        ['a', w.mind],
        ['b', ofB],
        ['free', unbound],
      ] as const)
        steps[name] = (await w.plan(draft, { mind })).plan.steps[0]!.id;
      await sql`update plans set status = 'waiting'`.execute(store.db);
      const dueIn = async (name: string, seconds: number) => {
        await sql`update plan_steps set status = 'waiting', next_run_at = ${kind === 'sqlite' ? at(seconds) : new Date(at(seconds))} where id = ${steps[name]!}`.execute(store.db);
      };
      await dueIn('a', 10);
      await dueIn('b', 60);
      await dueIn('free', 30);
      assert.equal((await store.executorQueries.nextDueAt({ now, host: 'host-b' }))?.toISOString(), at(30), 'the unbound step');
      await dueIn('free', 90);
      assert.equal((await store.executorQueries.nextDueAt({ now, host: 'host-b' }))?.toISOString(), at(60), "its own host's step");
      assert.equal((await store.executorQueries.nextDueAt({ now, host: null }))?.toISOString(), at(90), 'a daemon of no host: the unbound step only');
      assert.equal((await store.executorQueries.nextDueAt({ now, host: 'host-a' }))?.toISOString(), at(10));
    });
  });
}

interface PlanNode {
  'Node Type': string;
  'Actual Loops': number;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}
