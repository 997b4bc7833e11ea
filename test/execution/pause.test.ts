// Pausing plans and minds, and what a running plan shows while it waits. A paused plan claims no
// new step: its waits keep their due time without acting, its approvals stay open (a decision is
// recorded and its step runs after the resume), and a step already executing is still recovered.
// A running plan whose steps all wait for their time shows `waiting`; one that waits for an
// operator shows `awaiting_approval`; it shows `executing` again once a step can run. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../src/access/permissions.ts';
import { runningStatus } from '../../src/execution/settle.ts';
import { cancelPlan, Conflict, NotFound, pauseMind, pausePlan, resumeMind, resumePlan } from '../../src/operations/index.ts';
import { InputError } from '../../src/core/errors.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, eventTypes, makeWorld, readStep, step, stepsOf, type World } from './support.ts';

const alice: Principal = { tokenId: null, operator: 'alice', role: 'operator', mindId: null };
const bob: Principal = { tokenId: null, operator: 'bob', role: 'operator', mindId: null };

/** A wait of `seconds`, then a read. */
function waitThenRead(seconds = 60) {
  return draftOf([step('W', { kind: 'wait', spec: { seconds } }), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['W'] })]);
}

/** One write that policy asks an operator about. */
function oneWrite() {
  return draftOf([step('X', { kind: 'capability', capability: 'test.write', params: { name: 'x' } })]);
}

async function planStatus(w: World, planId: string): Promise<string | undefined> {
  return (await w.store.plans.get(planId))?.status;
}

async function refusal(work: Promise<unknown>, kind: new (...args: never[]) => InputError, code: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof kind, `expected ${kind.name}, got ${String(error)}`);
    assert.equal((error as InputError).problems[0]?.code, code);
    return true;
  });
}

describe('runningStatus (pure)', () => {
  const s = (id: string, status: string) => ({ id, status }) as never;
  it('names what a running plan waits for', () => {
    assert.equal(runningStatus([s('a', 'completed'), s('b', 'ready')]), 'executing');
    assert.equal(runningStatus([s('a', 'executing'), s('b', 'awaiting_approval')]), 'executing');
    assert.equal(runningStatus([s('a', 'awaiting_grant'), s('b', 'pending')]), 'awaiting_approval');
    assert.equal(runningStatus([s('a', 'waiting'), s('b', 'awaiting_approval')]), 'awaiting_approval');
    assert.equal(runningStatus([s('a', 'waiting'), s('b', 'pending')]), 'waiting');
    assert.equal(runningStatus([s('a', 'waiting'), s('b', 'pending')], new Set(['b'])), 'executing');
    assert.equal(runningStatus([s('a', 'blocked'), s('b', 'pending')]), 'executing');
  });
});

for (const kind of STORE_KINDS) {
  describe(`pausing plans and minds (${kind})`, () => {
    const current = useStore(kind);

    it('a paused plan is not started, and runs once resumed; both moves are events with who and why', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([readStep('A'), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] })]));
      const { plan: paused } = await pausePlan(w.store, alice, plan.id, { reason: 'change freeze' });
      assert.equal(paused.status, 'validated', 'a pause is not a status');
      assert.equal(paused.pause?.by, 'alice');
      assert.equal(paused.pause?.reason, 'change freeze');
      await w.executor().drain();
      assert.equal(await planStatus(w, plan.id), 'validated');
      assert.equal(w.log.calls.length, 0);

      await resumePlan(w.store, bob, plan.id, { reason: 'freeze over' });
      await w.executor().drain();
      assert.equal(await planStatus(w, plan.id), 'completed');
      assert.equal(w.log.calls.length, 2);
      const events = await w.store.events.list({ planId: plan.id, limit: 100 });
      const pause = events.find((e) => e.type === 'plan_paused')!;
      const resume = events.find((e) => e.type === 'plan_resumed')!;
      assert.deepEqual([pause.data.operator, pause.data.reason], ['alice', 'change freeze']);
      assert.deepEqual([resume.data.operator, resume.data.reason, resume.data.paused_by], ['bob', 'freeze over', 'alice']);
      assert.equal((await w.store.plans.get(plan.id))?.pause, null);
      assert.deepEqual(w.errors, []);
    });

    it('a wait keeps its due time while paused and acts on the first pass after the resume', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(waitThenRead(60));
      const executor = w.executor();
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { W: 'waiting', B: 'pending' });
      assert.equal(await planStatus(w, plan.id), 'waiting');
      const due = (await w.store.plans.get(plan.id))!.steps[0]!.nextRunAt;

      await pausePlan(w.store, alice, plan.id);
      w.advance(120);
      await executor.drain();
      const held = (await w.store.plans.get(plan.id))!;
      assert.deepEqual(await stepsOf(w.store, plan.id), { W: 'waiting', B: 'pending' });
      assert.equal(held.steps[0]!.nextRunAt?.getTime(), due?.getTime(), 'the wait keeps its schedule');
      assert.equal(w.log.calls.length, 0);

      await resumePlan(w.store, alice, plan.id);
      await executor.tick();
      assert.equal((await stepsOf(w.store, plan.id)).W, 'completed', 'the overdue wait acts on the next pass');
      await executor.drain();
      assert.equal(await planStatus(w, plan.id), 'completed');
      assert.deepEqual(w.errors, []);
    });

    it('an approval stays open while paused; one decided meanwhile is recorded and its step runs only after the resume', async () => {
      const w = await makeWorld(current());
      const { plan } = await w.plan(oneWrite());
      const executor = w.executor();
      await executor.drain();
      assert.equal((await stepsOf(w.store, plan.id)).X, 'awaiting_approval');
      assert.equal(await planStatus(w, plan.id), 'awaiting_approval');
      const approvalId = (await w.store.plans.get(plan.id))!.steps[0]!.approvalId!;

      await pausePlan(w.store, alice, plan.id, { reason: 'hold the write' });
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'pending', 'pausing withdraws nothing');
      const approved = await w.service.approve(approvalId, 'bob');
      assert.notEqual(approved.status, 'refused');
      assert.equal(await executor.performApproval(approvalId), false, 'the wake-up of an approval does not act on a paused plan');
      await executor.drain();
      assert.equal((await stepsOf(w.store, plan.id)).X, 'awaiting_approval');
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'approved');
      assert.equal(w.log.calls.length, 0);

      await resumePlan(w.store, alice, plan.id);
      await executor.drain();
      assert.equal((await stepsOf(w.store, plan.id)).X, 'completed');
      assert.equal(await planStatus(w, plan.id), 'completed');
      assert.equal(w.log.calls.filter((c) => c.capability === 'test.write').length, 1);
      assert.deepEqual(w.errors, []);
    });

    it('a step already executing when its plan is paused is still recovered once its lease runs out; nothing new is claimed', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([readStep('A'), readStep('C', 'test.read', { name: 'c' })]));
      await w.executor().tick();
      // Both ran in that pass; start again with one claimed by an executor that then vanished.
      const { plan: second } = await w.plan(draftOf([readStep('A'), readStep('C', 'test.read', { name: 'c' })]));
      await w.store.plans.transition(second.id, 'validated', 'executing');
      await w.store.steps.promote(second.steps.map((s) => s.id));
      const claimed = await w.store.steps.claim(second.steps[0]!.id, { leaseSeconds: 30 });
      assert.ok(claimed);
      await pausePlan(w.store, alice, second.id);
      w.advance(60);
      const due = await w.store.executorQueries.dueSteps({ now: w.clock.now(), host: null, limit: 10 });
      assert.deepEqual(
        due.map((s) => [s.planId, s.status]),
        [[second.id, 'executing']],
        'only the executing step, for recovery',
      );
      assert.equal(await planStatus(w, plan.id), 'completed');
    });

    it('pausing a mind pauses all its open plans, resuming it resumes them, with an event for the mind and for each plan', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan: one } = await w.plan(draftOf([readStep('A')]));
      const { plan: two } = await w.plan(waitThenRead(30));
      const executor = w.executor();
      await executor.drain();
      assert.equal(await planStatus(w, one.id), 'completed');
      assert.equal(await planStatus(w, two.id), 'waiting');
      const { plan: three } = await w.plan(draftOf([readStep('A')]));

      const paused = await pauseMind(w.store, alice, w.mind.name, { reason: 'incident' });
      assert.deepEqual(paused.plans.map((p) => p.id).sort(), [two.id, three.id].sort(), 'closed plans are left alone');
      w.advance(60);
      await executor.drain();
      assert.equal(await planStatus(w, two.id), 'waiting');
      assert.equal(await planStatus(w, three.id), 'validated');
      await refusal(pauseMind(w.store, alice, w.mind.name), Conflict, 'nothing_to_pause');

      const resumed = await resumeMind(w.store, bob, w.mind.id, { reason: 'resolved' });
      assert.equal(resumed.plans.length, 2);
      await executor.drain();
      assert.equal(await planStatus(w, two.id), 'completed');
      assert.equal(await planStatus(w, three.id), 'completed');
      const mindEvents = (await w.store.events.list({ mindId: w.mind.id, limit: 500 })).filter((e) => e.type.startsWith('mind_'));
      assert.deepEqual(
        mindEvents.map((e) => [e.type, e.data.operator, e.data.reason]),
        [
          ['mind_paused', 'alice', 'incident'],
          ['mind_resumed', 'bob', 'resolved'],
        ],
      );
      assert.deepEqual(
        (await eventTypes(w.store, { planId: two.id })).filter((t) => t === 'plan_paused' || t === 'plan_resumed'),
        ['plan_paused', 'plan_resumed'],
      );
      await refusal(resumeMind(w.store, alice, w.mind.name), Conflict, 'not_paused');
      assert.deepEqual(w.errors, []);
    });

    it('refuses bad input with a typed error and changes nothing', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const other = await w.store.minds.create({ name: `other-${Date.now()}` });
      const { plan } = await w.plan(waitThenRead());
      const { plan: done } = await w.plan(draftOf([readStep('A')]));
      await w.executor().drain();
      const before = (await w.store.events.list({ mindId: w.mind.id, limit: 1000 })).length;

      await refusal(pausePlan(w.store, alice, '0190f0f0-0000-7000-8000-000000000000'), NotFound, 'not_found');
      await refusal(pausePlan(w.store, alice, done.id), Conflict, 'plan_closed');
      await refusal(resumePlan(w.store, alice, plan.id), Conflict, 'not_paused');
      await refusal(pausePlan(w.store, alice, plan.id, { mind: other.name }), NotFound, 'not_found');
      await refusal(pausePlan(w.store, alice, plan.id, { reason: 'bad\u0000reason' }), InputError, 'control_character');
      assert.equal((await w.store.plans.get(plan.id))?.pause, null);

      await pausePlan(w.store, alice, plan.id, { mind: w.mind.name });
      await refusal(pausePlan(w.store, bob, plan.id), Conflict, 'already_paused');
      assert.equal((await w.store.plans.get(plan.id))?.pause?.by, 'alice', 'the first pause stands');
      const after = await w.store.events.list({ mindId: w.mind.id, limit: 1000 });
      assert.equal(after.length, before + 1, 'only the one pause was recorded');
    });

    it('a paused plan that closes holds no pause; its plan_paused stays in the log', async () => {
      const w = await makeWorld(current());
      const { plan } = await w.plan(oneWrite());
      await w.executor().drain();
      await pausePlan(w.store, alice, plan.id, { reason: 'hold' });
      const closed = await cancelPlan(w.store, w.registry, w.service, bob, plan.id, 'not needed');
      assert.deepEqual([closed.status, closed.pause], ['abandoned', null]);
      await refusal(pausePlan(w.store, alice, plan.id), Conflict, 'plan_closed');
      await refusal(resumePlan(w.store, alice, plan.id), Conflict, 'not_paused');
      assert.deepEqual(
        (await eventTypes(w.store, { planId: plan.id })).filter((t) => t === 'plan_paused' || t === 'plan_abandoned'),
        ['plan_paused', 'plan_abandoned'],
      );
    });

    it('a revision replacing a paused plan is paused too', async () => {
      const w = await makeWorld(current());
      const { plan, intention } = await w.plan(waitThenRead());
      await pausePlan(w.store, alice, plan.id, { reason: 'hold' });
      const draft = waitThenRead(10);
      const { validate } = await import('../../src/planning/validate.ts');
      const stored = await w.store.plans.create({
        mindId: w.mind.id,
        intentionId: intention.id,
        origin: 'replan',
        revision: 2,
        supersedes: plan.id,
        draft,
        validation: validate(draft, w.registry),
        status: 'validated',
        pause: (await w.store.plans.get(plan.id))!.pause,
      });
      assert.equal(stored.pause?.by, 'alice');
      assert.equal(stored.pause?.reason, 'hold');
    });
  });

  describe(`what a running plan waits for (${kind})`, () => {
    const current = useStore(kind);

    it('a plan whose steps all wait for their time shows waiting, and executing again once a step can run', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(waitThenRead(30));
      const executor = w.executor();
      await executor.drain();
      assert.equal(await planStatus(w, plan.id), 'waiting');
      w.advance(31);
      await executor.drain();
      assert.equal(await planStatus(w, plan.id), 'completed');
      const types = await eventTypes(w.store, { planId: plan.id });
      const moves = types.filter((t) => ['plan_started', 'plan_waiting', 'plan_completed'].includes(t));
      assert.deepEqual(moves, ['plan_started', 'plan_waiting', 'plan_started', 'plan_completed']);
      const back = (await w.store.events.list({ planId: plan.id, limit: 100 })).filter((e) => e.type === 'plan_started')[1]!;
      assert.deepEqual([back.data.resumed, back.data.from], [true, 'waiting']);
      assert.deepEqual(w.errors, []);
    });

    it('a plan waiting for an operator shows awaiting_approval, even beside a branch that waits for its time', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([step('W', { kind: 'wait', spec: { seconds: 600 } }), step('X', { kind: 'capability', capability: 'test.write', params: { name: 'x' } })]));
      const executor = w.executor();
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { W: 'waiting', X: 'awaiting_approval' });
      assert.equal(await planStatus(w, plan.id), 'awaiting_approval');
      const event = (await w.store.events.list({ planId: plan.id, limit: 100 })).find((e) => e.type === 'plan_awaiting_approval');
      assert.deepEqual(event?.data.steps, ['X']);

      const approvalId = (await w.store.plans.get(plan.id))!.steps[1]!.approvalId!;
      await w.service.approve(approvalId, 'alice');
      await executor.performApproval(approvalId);
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { W: 'waiting', X: 'completed' });
      assert.equal(await planStatus(w, plan.id), 'waiting', 'only the wait is left');
      w.advance(601);
      await executor.drain();
      assert.equal(await planStatus(w, plan.id), 'completed');
      assert.deepEqual(w.errors, []);
    });

    it('the sweep corrects a status a crash left behind', async () => {
      const w = await makeWorld(current());
      // One wait and nothing pending: only the status tells the sweep something is off.
      const { plan } = await w.plan(draftOf([step('W', { kind: 'wait', spec: { seconds: 300 } })]));
      await w.executor().drain();
      assert.equal(await planStatus(w, plan.id), 'waiting');
      // As if the executor died between a step's move and its plan's settling.
      assert.ok(await w.store.plans.transition(plan.id, 'waiting', 'executing'));
      await w.executor().tick();
      assert.equal(await planStatus(w, plan.id), 'waiting');
    });

    it('a denied approval still fails and replans a plan that showed awaiting_approval', async () => {
      const w = await makeWorld(current());
      const { plan } = await w.plan(oneWrite());
      const executor = w.executor();
      await executor.drain();
      assert.equal(await planStatus(w, plan.id), 'awaiting_approval');
      const approvalId = (await w.store.plans.get(plan.id))!.steps[0]!.approvalId!;
      await w.service.deny(approvalId, 'alice', 'not now');
      await executor.drain();
      assert.equal((await stepsOf(w.store, plan.id)).X, 'failed');
      assert.ok(['failed', 'superseded'].includes((await planStatus(w, plan.id))!), 'the failure is reconsidered from awaiting_approval');
    });
  });
}
