// Rounds of a pass (ExecutorOptions.rounds): after the steps a pass found due, it runs the steps
// their settling promoted in the same plans, from its own reading of those plans, so a plan whose
// steps act at once runs several levels in one pass. What a later round starts from must be the
// store's own rows, and every step still runs once.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ROUNDS, type PassPhase } from '../../src/execution/tick.ts';
import { sql } from 'kysely';
import { promotedStep, type Store } from '../../src/store/index.ts';
import { seedPlan } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, observedWorld, readStep } from './support.ts';

/** Makes the database refuse to make step `id` ready, as a trigger can. */
async function refuseReady(store: Store, id: string): Promise<void> {
  if (store.kind === 'sqlite') {
    await sql
      .raw(`create trigger refuse_ready before update on plan_steps when new.id = '${id}' and new.status = 'ready' begin select raise(abort, 'refused by the test trigger'); end`)
      .execute(store.db);
    return;
  }
  await sql
    .raw(
      `create function refuse_ready() returns trigger language plpgsql as $$ begin if new.id::text = '${id}' and new.status = 'ready' then raise exception 'refused by the test trigger'; end if; return new; end $$`,
    )
    .execute(store.db);
  await sql.raw('create trigger refuse_ready before update on plan_steps for each row execute function refuse_ready()').execute(store.db);
}

/** A diamond of reads: A, then B and C, then D. */
const diamond = (tag: string) =>
  draftOf([
    readStep('A', 'test.read', { name: `a${tag}` }),
    readStep('B', 'test.read', { name: `b${tag}` }, { depends_on: ['A'] }),
    readStep('C', 'test.read', { name: `c${tag}` }, { depends_on: ['A'] }),
    readStep('D', 'test.read', { name: `d${tag}` }, { depends_on: ['B', 'C'] }),
  ]);

for (const kind of STORE_KINDS) {
  describe(`rounds of a pass (${kind})`, () => {
    const current = useStore(kind);

    it('report the parts of the pass that ran them, in order, adding up to the pass', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      await w.plan(diamond('p'));
      const phases: [PassPhase, number][] = [];
      let passSeconds = 0;
      const executor = w.executor({ observer: { phase: (phase, seconds) => void phases.push([phase, seconds]), tick: (_, seconds) => void (passSeconds = seconds) } });
      await executor.tick();
      // One round per level of the diamond: A, then B and C, then D.
      const round = ['acting', 'moving', 'settling'];
      assert.deepEqual(
        phases.map(([phase]) => phase),
        ['housekeeping', 'finding due steps', 'starting plans', 'reading plans', ...round, ...round, ...round],
      );
      assert.ok(
        phases.every(([, seconds]) => seconds >= 0),
        'no part takes negative time',
      );
      const total = phases.reduce((sum, [, seconds]) => sum + seconds, 0);
      assert.ok(total <= passSeconds + 1e-6 && total > 0, `the parts (${total} s) add up to no more than the pass (${passSeconds} s)`);
    });

    it('go on when the observer of the parts of a pass throws', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(diamond('t'));
      const executor = w.executor({
        observer: {
          phase: () => {
            throw new Error('a broken counter');
          },
        },
      });
      const report = await executor.tick();
      assert.equal(report.errors, 0);
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
    });

    it('run every level of a plan of reads in one pass, each step once', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(diamond('1'));
      const report = await w.executor().tick();
      const stored = await w.store.plans.get(plan.id);
      assert.equal(stored?.status, 'completed');
      assert.deepEqual(
        stored?.steps.map((s) => s.status),
        ['completed', 'completed', 'completed', 'completed'],
      );
      assert.deepEqual(
        w.log.calls.map((c) => c.params.name),
        ['a1', 'b1', 'c1', 'd1'],
      );
      assert.equal(report.dueSteps, 4);
      assert.equal(report.movedSteps, 4);
      assert.deepEqual(w.errors, []);
    });

    it('stop at the rounds asked for and leave the next level to the next pass', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(diamond('2'));
      const executor = w.executor({ rounds: 2 });
      await executor.tick();
      const after = await w.store.plans.get(plan.id);
      assert.equal(after?.status, 'executing');
      assert.deepEqual(
        after?.steps.map((s) => `${s.key}:${s.status}`),
        ['A:completed', 'B:completed', 'C:completed', 'D:ready'],
      );
      await executor.tick();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
      assert.deepEqual(
        w.log.calls.map((c) => c.params.name),
        ['a2', 'b2', 'c2', 'd2'],
      );
    });

    it('give each step to one of two executors passing over the same plans at once', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const plans = [];
      for (let i = 0; i < 12; i += 1) plans.push((await w.plan(diamond(`r${i}`))).plan);
      const [one, two] = [w.executor({ concurrency: 2 }), w.executor({ concurrency: 2 })];
      for (let pass = 0; pass < 10; pass += 1) await Promise.all([one.tick(), two.tick()]);
      for (const plan of plans) assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
      const names = w.log.calls.map((c) => String(c.params.name));
      // A read may be repeated by the executor that lost its move; every step completed once, with one execution.
      for (const plan of plans) {
        for (const s of (await w.store.plans.get(plan.id))!.steps) {
          const records = await w.store.executions.listByOrigin(`plan_step:${s.id}`);
          assert.ok(
            records.some((r) => r.id === s.executionId),
            `${s.key} of plan ${plan.id} completed with an execution of its own`,
          );
        }
      }
      assert.ok(new Set(names).size === plans.length * 4);
      assert.deepEqual(w.errors, []);
    });

    it(`commit each round's moves ${kind === 'sqlite' ? 'with' : 'apart from'} the settling they call for`, async () => {
      const { w, observed, statements } = await observedWorld(current());
      try {
        const { plan } = await w.plan(diamond('c'));
        statements.length = 0;
        await w.executor().tick();
        assert.equal((await observed.plans.get(plan.id))?.status, 'completed');
        // The statements of each transaction, from its begin to its commit.
        const transactions: string[][] = [];
        let open: string[] | null = null;
        for (const text of statements) {
          if (/^begin/.test(text)) open = [];
          else if (text === 'commit' && open) {
            transactions.push(open);
            open = null;
          } else open?.push(text);
        }
        // A round's moves write the executions of its reads.
        const movesSteps = (t: string[]) => t.some((text) => text.startsWith('insert into "tool_executions"'));
        const promotes = (t: string[]) => t.some((text) => /^update "plan_steps" set "status" = (\?|\$1), "status_reason"/.test(text));
        const rounds = transactions.filter(movesSteps);
        // One transaction of moves per level: A, then B and C, then D.
        assert.equal(rounds.length, 3);
        // A's and B's and C's moves promote the next level: with them on SQLite, after them on PostgreSQL.
        assert.deepEqual(rounds.map(promotes), kind === 'sqlite' ? [true, true, false] : [false, false, false]);
        // Starting the plan, then each level's moves (and on PostgreSQL their settling apart).
        assert.equal(transactions.length, kind === 'sqlite' ? 4 : 7);
      } finally {
        await observed.close();
      }
    });

    it('a settling the store refuses leaves the moves of its round applied, each step run once, and settles when it can', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(diamond('f'));
      const b = plan.steps.find((s) => s.key === 'B')!;
      // The store refuses B's promotion (as a trigger of an operator's could) for the first pass.
      await refuseReady(w.store, b.id);
      const executor = w.executor();
      await executor.tick();
      const first = await w.store.plans.get(plan.id);
      assert.deepEqual(
        first?.steps.map((s) => `${s.key}:${s.status}`),
        ['A:completed', 'B:pending', 'C:pending', 'D:pending'],
      );
      assert.equal(w.errors.filter((e) => e.startsWith(`settling plan ${plan.id} failed`)).length, 1);
      w.errors.length = 0;
      await sql.raw(w.store.kind === 'sqlite' ? 'drop trigger refuse_ready' : 'drop trigger refuse_ready on plan_steps').execute(w.store.db);
      // The settling sweep finds the plan again.
      w.advance(31);
      await executor.drain(3);
      const done = await w.store.plans.get(plan.id);
      assert.equal(done?.status, 'completed');
      assert.deepEqual(
        w.log.calls.map((c) => c.params.name),
        ['af', 'bf', 'cf', 'df'],
      );
      // The round whose settling failed was written again without it: one execution and one completion for A.
      const a = done!.steps.find((s) => s.key === 'A')!;
      assert.equal((await w.store.executions.listByOrigin(`plan_step:${a.id}`)).length, 1);
      const events = await w.store.events.list({ planId: plan.id, limit: 100 });
      assert.equal(events.filter((e) => e.type === 'plan_step_completed' && e.stepId === a.id).length, 1);
      assert.deepEqual(w.errors, []);
    });

    it('refuse rounds outside 1 to MAX_ROUNDS', async () => {
      const w = await makeWorld(current());
      for (const rounds of [0, MAX_ROUNDS + 1, 1.5]) assert.throws(() => w.executor({ rounds }), { name: 'RangeError', message: /rounds must be a whole number from 1 to 8/ });
    });

    it('a promoted step, as the pass patches it, is the row the store now has', async () => {
      const { store } = current();
      const { plan } = await seedPlan(store);
      // Only the steps of a running plan are promoted.
      assert.ok(await store.plans.transition(plan.id, 'validated', 'executing'));
      const pending = plan.steps.filter((s) => s.status === 'pending');
      assert.ok(pending.length > 0, 'the fixture has pending steps');
      const at = new Date(store.clock.now().getTime() + 1234);
      const moved = await store.steps.promote(
        pending.map((s) => s.id),
        at,
      );
      assert.deepEqual(moved.sort(), pending.map((s) => s.id).sort());
      for (const step of pending) assert.deepEqual(promotedStep(step, at), await store.steps.get(step.id));
    });
  });
}
