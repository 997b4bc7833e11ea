// A plan or step whose writes the store keeps refusing must not hold back the others, and must not
// be retried on every pass forever: after MAX_FAILURES failures in a row it is blocked with the
// error as its reason. The refusal is real: a trigger in the database (as an operator's audit
// trigger or a constraint would) refuses one plan's procedural memory, or one step's move.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { MAX_FAILURES } from '../../src/execution/stuck.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, eventTypes, makeWorld, readStep } from './support.ts';

/** Makes the database refuse rows of `table` written (inserted or updated) with `column` = `value`, as a trigger can. */
async function refuse(store: Store, table: string, column: string, value: string, when: 'insert' | 'update' = 'insert'): Promise<void> {
  if (store.kind === 'sqlite') {
    await sql.raw(`create trigger refuse_${table} before ${when} on ${table} when new.${column} = '${value}' begin select raise(abort, 'refused by the test trigger'); end`).execute(store.db);
  } else {
    await sql
      .raw(
        `create function refuse_${table}() returns trigger language plpgsql as $$ begin if new.${column}::text = '${value}' then raise exception 'refused by the test trigger'; end if; return new; end $$`,
      )
      .execute(store.db);
    await sql.raw(`create trigger refuse_${table} before ${when} on ${table} for each row execute function refuse_${table}()`).execute(store.db);
  }
}

for (const kind of STORE_KINDS) {
  describe(`plans and steps that cannot be moved (${kind})`, () => {
    const current = useStore(kind);

    it('a plan that cannot be closed is blocked after a bounded number of passes, and never delays another plan', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan: stuck } = await w.plan(draftOf([readStep('A')]));
      const { plan: fine } = await w.plan(draftOf([readStep('A')]));
      await refuse(w.store, 'procedural_memories', 'plan_id', stuck.id);
      const executor = w.executor({ batch: 10 });

      await executor.drain(2);
      assert.equal((await w.store.plans.get(fine.id))?.status, 'completed', 'the other plan closes in the same passes');
      assert.equal((await w.store.plans.get(stuck.id))?.status, 'executing', 'a first failure only counts');

      // Each pass that tries it again counts one more failure; the sweep finds it on later passes.
      for (let pass = 0; pass < MAX_FAILURES + 2; pass += 1) {
        w.advance(31);
        await executor.tick();
      }
      const blocked = await w.store.plans.get(stuck.id);
      assert.equal(blocked?.status, 'blocked');
      assert.match(blocked!.statusReason, new RegExp(`settling failed ${MAX_FAILURES} times in a row: .*refused by the test trigger`));
      const events = await w.store.events.list({ planId: stuck.id, limit: 100 });
      const block = events.find((e) => e.type === 'plan_blocked');
      assert.equal(block?.data.stuck, true);
      assert.equal(block?.data.failures, MAX_FAILURES);
      const failures = w.errors.filter((e) => e.startsWith(`settling plan ${stuck.id} failed`));
      assert.equal(failures.length, MAX_FAILURES, 'one log line per failed attempt, and no more once it is blocked');
      assert.equal(w.errors.filter((e) => e.startsWith('blocked a plan')).length, 1);
      // Blocked, it is left alone: further passes neither try it nor log.
      const logged = w.errors.length;
      w.advance(31);
      await executor.drain(3);
      assert.equal(w.errors.length, logged);
    });

    it('a step whose move cannot be recorded is blocked after a bounded number of passes; the steps beside it move', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([readStep('A'), readStep('B'), readStep('C')]));
      const target = plan.steps.find((s) => s.key === 'B')!;
      // The read's summary becomes the completed step's status reason: B's completion is refused.
      await refuse(w.store, 'plan_steps', 'status_reason', 'test.read on b', 'update');
      const executor = w.executor({ batch: 10, concurrency: 3 });
      for (let pass = 0; pass < MAX_FAILURES + 1; pass += 1) {
        await executor.tick();
        w.advance(1);
      }
      const steps = (await w.store.plans.get(plan.id))!.steps;
      const byKey = Object.fromEntries(steps.map((s) => [s.key, s]));
      assert.equal(byKey.A?.status, 'completed');
      assert.equal(byKey.C?.status, 'completed');
      assert.equal(byKey.B?.status, 'blocked', `B is blocked: ${byKey.B?.status} ${byKey.B?.statusReason}`);
      assert.match(byKey.B!.error, new RegExp(`could not be recorded ${MAX_FAILURES} times in a row: .*refused by the test trigger`));
      assert.ok((await eventTypes(w.store, { planId: plan.id })).includes('plan_step_blocked'));
      assert.equal(w.errors.filter((e) => e.startsWith('a step move failed') && e.includes(target.id)).length, MAX_FAILURES);
      const calls = w.log.calls.filter((c) => c.params.name === 'b').length;
      assert.equal(calls, MAX_FAILURES, 'the read was tried once per pass until the step was blocked');
    });
  });
}
