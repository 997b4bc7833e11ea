// The order a pass takes due work in (docs/executor.md, "The order of due work"): steps whose due
// time has come, then ready steps oldest first, then steps polled for an operator's answer, and
// new plans only in the room that leaves. Each test gives a pass a batch smaller than the work,
// one level of each plan per pass (rounds: 1), so what the pass chose shows in what moved.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, readStep, step, stepsOf, useWorlds, type World } from './support.ts';

/** A running plan whose second step is ready and due, found only by the due query: one level per pass. */
async function readyStepInRunningPlan(w: World, tag: string): Promise<string> {
  const { plan } = await w.plan(draftOf([readStep('A', 'test.read', { name: `a${tag}` }), readStep('B', 'test.read', { name: `b${tag}` }, { depends_on: ['A'] })]));
  return plan.id;
}

for (const kind of STORE_KINDS) {
  describe(`the order of due work (${kind})`, () => {
    const current = useStore(kind);
    const world = useWorlds(current);

    it('runs a check whose time has come before a backlog of ready steps', async () => {
      const w = await world();
      await w.allow('test.read');
      const { plan: waiting } = await w.plan(draftOf([step('W', { kind: 'wait', spec: { seconds: 10 } }), readStep('C', 'test.read', { name: 'c' }, { depends_on: ['W'] })]));
      const running = [];
      for (let i = 0; i < 3; i += 1) running.push(await readyStepInRunningPlan(w, String(i)));
      await w.executor({ rounds: 1 }).tick();
      assert.equal((await stepsOf(w.store, waiting.id)).W, 'waiting');
      for (const id of running) assert.equal((await stepsOf(w.store, id)).B, 'ready');

      w.advance(11);
      const report = await w.executor({ rounds: 1, batch: 2 }).tick();
      assert.equal(report.dueSteps, 2);
      assert.equal((await stepsOf(w.store, waiting.id)).W, 'completed', 'the wait, due by its time, was taken first');
      const ran = [];
      for (const id of running) if ((await stepsOf(w.store, id)).B === 'completed') ran.push(id);
      assert.deepEqual(ran, [running[0]], 'then the oldest ready step');
      assert.equal(report.backlog, true);
    });

    it('takes ready steps oldest first', async () => {
      const w = await world();
      await w.allow('test.read');
      const running = [];
      for (let i = 0; i < 4; i += 1) running.push(await readyStepInRunningPlan(w, String(i)));
      await w.executor({ rounds: 1 }).tick();
      const executor = w.executor({ rounds: 1, batch: 1 });
      for (const id of running) {
        await executor.tick();
        assert.equal((await stepsOf(w.store, id)).B, 'completed');
        for (const later of running.slice(running.indexOf(id) + 1)) assert.equal((await stepsOf(w.store, later)).B, 'ready');
      }
    });

    it('does not let steps waiting for an operator hold back ready steps', async () => {
      const w = await world();
      await w.allow('test.read');
      // Older than the ready step, and no policy rule for test.write: each asks for an approval.
      const asking = [];
      for (let i = 0; i < 3; i += 1) asking.push((await w.plan(draftOf([step('X', { kind: 'capability', capability: 'test.write', params: { name: `x${i}` } })]))).plan.id);
      const running = await readyStepInRunningPlan(w, 'r');
      await w.executor({ rounds: 1 }).tick();
      for (const id of asking) assert.equal((await stepsOf(w.store, id)).X, 'awaiting_approval');
      assert.equal((await stepsOf(w.store, running)).B, 'ready');

      const report = await w.executor({ rounds: 1, batch: 2 }).tick();
      assert.equal((await stepsOf(w.store, running)).B, 'completed', 'the ready step ran although three older steps wait for an operator');
      assert.equal(report.dueSteps, 1, 'an approval still pending is not polled');
      assert.equal(w.log.calls.filter((call) => call.capability === 'test.write').length, 0, 'nothing was written without an approval');

      const idle = await w.executor({ rounds: 1, batch: 2 }).tick();
      assert.equal(idle.dueSteps, 0, 'nothing to do while the operator has not answered');
      assert.equal(idle.backlog, false, 'open approvals are no backlog: the loop may sleep');
      assert.equal(idle.busy, false);
    });

    it('finds the step whose operator answered at once, however many requests are open', async () => {
      const w = await world();
      const asking = [];
      for (let i = 0; i < 5; i += 1) asking.push((await w.plan(draftOf([step('X', { kind: 'capability', capability: 'test.write', params: { name: `turn${i}` } })]))).plan.id);
      await w.executor().tick();
      const newest = (await w.store.plans.get(asking[4]!))!.steps[0]!;
      assert.equal(newest.status, 'awaiting_approval');
      await w.service.deny(newest.approvalId!, 'bob', 'not now');

      // A batch of two, and more open approvals than that, older ones too (this block's earlier tests left some).
      const report = await w.executor({ rounds: 1, batch: 2 }).tick();
      assert.equal(report.dueSteps, 1, 'only the answered one is read');
      assert.equal((await stepsOf(w.store, asking[4]!)).X, 'failed', "the newest request's denial was seen in the first pass");
      for (const id of asking.slice(0, 4)) assert.equal((await stepsOf(w.store, id)).X, 'awaiting_approval');
    });

    it('starts new plans only in the room the due work leaves', async () => {
      const w = await world();
      await w.allow('test.read');
      const running = [];
      for (let i = 0; i < 2; i += 1) running.push(await readyStepInRunningPlan(w, String(i)));
      await w.executor({ rounds: 1 }).tick();
      const fresh = [];
      for (let i = 0; i < 2; i += 1) fresh.push((await w.plan(draftOf([readStep('A', 'test.read', { name: `f${i}` })]))).plan.id);

      const executor = w.executor({ rounds: 1, batch: 2 });
      const full = await executor.tick();
      assert.equal(full.startedPlans, 0, 'two due steps fill the batch: no plan starts');
      assert.equal(full.backlog, true, 'so the next pass follows at once');
      for (const id of running) assert.equal((await stepsOf(w.store, id)).B, 'completed');
      for (const id of fresh) assert.equal((await w.store.plans.get(id))?.status, 'validated', 'a plan waits as validated, not started with nothing run');

      const next = await executor.tick();
      assert.equal(next.startedPlans, 2);
      for (const id of fresh) assert.equal((await w.store.plans.get(id))?.status, 'completed');
    });

    it('with passes side by side, starts no plan while more is due than it could see', async () => {
      const w = await world();
      await w.allow('test.read');
      const running = [];
      for (let i = 0; i < 3; i += 1) running.push(await readyStepInRunningPlan(w, String(i)));
      await w.executor({ rounds: 1 }).tick();
      const fresh = (await w.plan(draftOf([readStep('A', 'test.read', { name: 'f' })]))).plan.id;

      // Two passes of two steps each: room for four, but the due read (two, the batch) came back full.
      const executor = w.executor({ rounds: 1, batch: 2, passes: 2 });
      const full = await executor.tick();
      assert.equal(full.startedPlans, 0, 'three due steps, two seen: no plan starts');
      assert.equal((await w.store.plans.get(fresh))?.status, 'validated');
      const next = await executor.tick();
      assert.equal(next.startedPlans, 1, 'the last due step leaves room for the plan');
      assert.equal((await w.store.plans.get(fresh))?.status, 'completed');
      for (const id of running) assert.equal((await stepsOf(w.store, id)).B, 'completed');
    });
  });
}
