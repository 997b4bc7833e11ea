// Starting plans: a pass starts every validated plan it may advance in one transaction, and
// promotes their first steps in the same one, decided from the reading that started them: no
// second read of every plan and step, no light read of their statuses, no commit of its own.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, observedWorld, readStep } from './support.ts';

/** The read of what a plan's step origins caused (its budget's use). */
const ORIGIN_COUNT = /^select 'tool_executions' as "source"/;

for (const kind of STORE_KINDS) {
  describe(`starting plans (${kind})`, () => {
    const current = useStore(kind);

    it('reads the plans it starts once: their first steps are promoted from that reading', async () => {
      const { w, observed, statements } = await observedWorld(current());
      try {
        const plans = [];
        for (let i = 0; i < 3; i += 1) plans.push((await w.plan(draftOf([readStep('A'), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] })]))).plan);
        statements.length = 0;
        const report = await w.executor().tick();
        assert.equal(report.startedPlans, 3);
        for (const plan of plans) {
          const read = await observed.plans.get(plan.id);
          assert.notEqual(read?.status, 'validated');
          assert.notEqual(read?.steps[0]?.status, 'pending', 'the first step was promoted');
        }
        const started = statements.findIndex((text) => /^update "plans" set .*"status" = /.test(text) && !text.includes('"status" = \'abandoned\''));
        const promoted = statements.findIndex((text, i) => i > started && /^update "plan_steps" set/.test(text));
        assert.ok(started >= 0 && promoted > started, 'the plans were started, then their first steps promoted');
        const stepReads = statements.slice(0, promoted).filter((text) => text.startsWith('select * from "plan_steps"'));
        assert.equal(stepReads.length, 1, `one read of the plans' steps before the promotion: ${stepReads.join('; ')}`);
        const between = statements.slice(started, promoted);
        assert.ok(!between.some((text) => /^commit/i.test(text)), `the plans' start and their first promotions commit together: ${between.join('; ')}`);
        const firstRound = statements.findIndex((text, i) => i > promoted && /^insert into "tool_executions"/.test(text));
        assert.ok(firstRound > promoted, 'the first steps ran');
        const lightReads = statements.slice(promoted, firstRound).filter((text) => text.includes('"planStatus"'));
        assert.deepEqual(lightReads, [], 'no light read of the started plans before their first steps run');
        const counts = statements.slice(promoted, firstRound).filter((text) => ORIGIN_COUNT.test(text));
        assert.deepEqual(counts, [], "no count of the started plans' origins for their budgets: none of their steps has acted yet");
      } finally {
        await observed.close();
      }
    });

    it("looks for due work before it starts plans, and runs the started plans' first steps after it", async () => {
      const { w, observed, statements } = await observedWorld(current());
      try {
        // A running plan whose second step is ready and due: one level per pass.
        const { plan: running } = await w.plan(draftOf([readStep('A'), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] })]));
        await w.executor({ rounds: 1 }).tick();
        assert.equal((await observed.plans.get(running.id))?.steps[1]?.status, 'ready');
        const fresh = [];
        for (let i = 0; i < 2; i += 1) fresh.push((await w.plan(draftOf([readStep('A', 'test.read', { name: `f${i}` })]))).plan);
        statements.length = 0;
        const report = await w.executor({ rounds: 1, batch: 2 }).tick();
        assert.equal(report.startedPlans, 1, 'one due step left room for one plan');
        assert.equal(report.dueSteps, 2);
        const dueQuery = statements.findIndex((text) => /^select "plan_steps"\.\* from "plan_steps" (indexed by "plan_steps_due_idx" )?cross join "plans"/.test(text));
        const start = statements.findIndex((text) => /^update "plans" set .*"status" = /.test(text));
        assert.ok(dueQuery >= 0 && start > dueQuery, 'the due query came before the start');
        const acted = statements.findIndex((text) => /^insert into "tool_executions"/.test(text));
        const counted = statements.slice(0, acted).filter((text) => ORIGIN_COUNT.test(text));
        assert.equal(counted.length, 1, 'the running plan, found due, was counted for its budget before its step acted');
        const calls = w.log.calls.map((call) => call.params.name);
        assert.deepEqual(calls.slice(-2), ['b', 'f0'], "the due step ran, then the oldest started plan's first step");
        assert.equal((await observed.plans.get(running.id))?.status, 'completed');
        assert.equal((await observed.plans.get(fresh[0]!.id))?.status, 'completed');
        assert.equal((await observed.plans.get(fresh[1]!.id))?.status, 'validated', 'the other plan waits for room');
      } finally {
        await observed.close();
      }
    });
  });
}
