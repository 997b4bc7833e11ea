// Recovery in one process: a step is left `executing` as a vanished executor would leave it (a
// claim whose lease then runs out, with or without records by its origin), and a fresh executor
// resolves it from what the origin recorded. The same cases with real killed processes are in
// crash.test.ts.

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { OUTCOME_UNKNOWN } from '../../src/execution/recovery.ts';
import type { StepDraft } from '../../src/core/plan.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, eventTypes, makeWorld, readStep, step, type World } from './support.ts';

/** Stores a one-step plan and leaves its step claimed by an executor that is gone. */
async function abandonedClaim(w: World, only: StepDraft) {
  const { plan, intention } = await w.plan(draftOf([only]));
  await w.store.plans.transition(plan.id, 'validated', 'executing');
  await w.store.steps.move('promote', plan.steps[0]!.id, 'pending');
  const claimed = await w.store.steps.claim(plan.steps[0]!.id, { leaseSeconds: 32 });
  assert.ok(claimed);
  return { plan, intention, stepId: claimed.id, origin: `plan_step:${claimed.id}` };
}

async function stepOf(store: Store, id: string) {
  return (await store.steps.get(id))!;
}

for (const kind of STORE_KINDS) {
  describe(`executor recovery (${kind})`, () => {
    const current = useStore(kind);
    const worlds: World[] = [];
    const world = async () => {
      const w = await makeWorld(current());
      worlds.push(w);
      await w.allow('test.read');
      await w.allow('test.write');
      return w;
    };
    afterEach(() => {
      const errors = worlds.flatMap((w) => w.errors.splice(0));
      assert.deepEqual(errors, []);
    });

    it('leaves a claim alone while its lease lasts', async () => {
      const w = await world();
      const { stepId } = await abandonedClaim(w, step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } }));
      w.advance(31);
      await w.executor().drain();
      assert.equal((await stepOf(w.store, stepId)).status, 'executing');
      assert.equal(w.log.calls.length, 0);
    });

    it('puts a non-idempotent write whose claim left no write-ahead record back to ready, and runs it once', async () => {
      const w = await world();
      const { stepId, intention, plan } = await abandonedClaim(w, step('W', { kind: 'capability', capability: 'test.write', params: { name: 'unrecorded' } }));
      w.advance(33);
      await w.executor().drain();
      assert.equal((await stepOf(w.store, stepId)).status, 'completed');
      // Counted by name: the store is shared with the earlier tests, whose abandoned claims this executor may recover too.
      const writes = w.log.calls.filter((c) => c.params.name === 'unrecorded');
      assert.equal(writes.length, 1, 'the write ran once: the claim without a record proved it had never begun');
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'fulfilled');
      const requeued = (await w.store.events.list({ planId: plan.id, limit: 100 })).filter((e) => e.type === 'plan_step_released');
      assert.equal(requeued.length, 1);
      assert.equal(requeued[0]?.data.recovered, true);
      assert.match(String(requeued[0]?.data.reason), /never began/);
    });

    it('blocks a non-idempotent write whose only record is a write-ahead `started` row, and runs it once the operator releases it', async () => {
      const w = await world();
      const { stepId, origin, intention, plan } = await abandonedClaim(w, step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } }));
      const started = await w.store.executions.start({ mindId: w.mind.id, capability: 'test.write', target: 'w', params: { name: 'w' }, origin, correlationId: '', evidence: {} });
      w.advance(33);
      const executor = w.executor();
      await executor.drain();
      const blocked = await stepOf(w.store, stepId);
      assert.equal(blocked.status, 'blocked');
      assert.equal(blocked.error, OUTCOME_UNKNOWN);
      assert.equal(blocked.executionId, started.id);
      const held = await w.store.intentions.get(intention.id);
      assert.equal(held?.status, 'blocked');
      assert.equal(held?.reason, 'outcome_unverified');
      assert.equal(w.log.calls.length, 0, 'not repeated');
      assert.ok((await eventTypes(w.store, { planId: plan.id })).includes('plan_step_blocked'));

      assert.equal((await executor.releaseStep(stepId, '')).released, false);
      w.advance(5);
      const release = await executor.releaseStep(stepId, 'alice');
      assert.equal(release.released, true);
      assert.equal((await executor.releaseStep(stepId, 'alice')).released, false, 'released once');
      await executor.drain();
      assert.equal((await stepOf(w.store, stepId)).status, 'completed');
      assert.equal(w.log.calls.length, 1);
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'fulfilled');
      assert.ok((await eventTypes(w.store, { planId: plan.id })).includes('plan_step_released'));
    });

    it('refuses to release a blocked step of a plan that has closed since: it would only sit ready, never run, reported as released', async () => {
      const w = await world();
      const { stepId, origin, plan } = await abandonedClaim(w, step('W', { kind: 'capability', capability: 'test.write', params: { name: 'closed' } }));
      await w.store.executions.start({ mindId: w.mind.id, capability: 'test.write', target: 'closed', params: { name: 'closed' }, origin, correlationId: '', evidence: {} });
      w.advance(33);
      const executor = w.executor();
      await executor.drain();
      assert.equal((await stepOf(w.store, stepId)).status, 'blocked');
      // The plan closes around it (a replan or a failure that met it while it was still executing).
      assert.ok(await w.store.plans.transition(plan.id, ['blocked', 'executing'], 'failed', { statusReason: 'failed elsewhere' }));
      const release = await executor.releaseStep(stepId, 'alice');
      assert.deepEqual(release.released ? '' : release.code, 'plan_closed');
      assert.match(release.released ? '' : release.message, /is failed: step W will not run again/);
      assert.equal((await stepOf(w.store, stepId)).status, 'blocked');
      assert.ok(!(await eventTypes(w.store, { planId: plan.id })).includes('plan_step_released'));
    });

    it('adopts a recorded execution instead of acting again, prediction included', async () => {
      const w = await world();
      const expectation = { statement: 'w is done', confidence: 0.7, within_seconds: 30, check: { capability: 'test.read', params: { name: 'w' }, field: 'value', comparison: 'exists' as const } };
      const { stepId, origin } = await abandonedClaim(w, step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' }, expectation }));
      const started = await w.store.executions.start({ mindId: w.mind.id, capability: 'test.write', target: 'w', params: { name: 'w' }, origin, correlationId: '', evidence: {} });
      await w.store.executions.finish(started.id, { status: 'succeeded', result: { observation: { name: 'w', value: 'done' }, summary: 'wrote w' } });
      w.advance(33);
      await w.executor().drain();
      const done = await stepOf(w.store, stepId);
      assert.equal(done.status, 'completed');
      assert.equal(done.executionId, started.id);
      assert.deepEqual(done.observation, { name: 'w', value: 'done' });
      assert.ok(done.predictionId);
      assert.equal(w.log.calls.length, 0);
    });

    it('resumes the wait for an approval the vanished executor had already raised', async () => {
      const w = await world();
      await w.store.policyRules.remove(w.mind.id, 'test.write', '*');
      const { stepId, origin, intention } = await abandonedClaim(w, step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } }));
      const pending = await w.service.invoke({ mindId: w.mind.id, capability: 'test.write', params: { name: 'w' }, origin, correlationId: intention.id, authoredBy: 'tester' });
      assert.equal(pending.status, 'pending');
      w.advance(33);
      const executor = w.executor();
      await executor.drain();
      const waiting = await stepOf(w.store, stepId);
      assert.equal(waiting.status, 'awaiting_approval');
      assert.equal(waiting.approvalId, pending.status === 'pending' ? pending.approvalId : '');
      assert.ok(waiting.intentionId, 'the wait is a subordinate intention');
      await w.service.approve(waiting.approvalId!, 'alice');
      await executor.drain();
      assert.equal((await stepOf(w.store, stepId)).status, 'completed');
      assert.equal(w.log.calls.length, 1);
    });

    it('performs an approved read again under its approval when the executor acting on it stopped part-way', async () => {
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      let acting: () => void = () => {};
      const first = new Promise<void>((resolve) => (acting = resolve));
      let calls = 0;
      const w = await makeWorld(current(), {
        implementations: {
          'test.read': async (params) => {
            calls += 1;
            if (calls === 1) {
              acting();
              await gate;
            }
            return { observation: { name: String(params.name), value: `read ${calls}` }, summary: 'read' };
          },
        },
      });
      worlds.push(w);
      // No rule for test.read: the step asks an operator.
      const { plan } = await w.plan(draftOf([readStep('R')]));
      await w.executor().tick();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_approval');
      assert.equal((await w.service.approve(waiting.approvalId!, 'alice')).status, 'approved');
      // The executor woken for it claims it and acts, and stops there (its act never returns in time).
      const stopped = w.executor().performApproval(waiting.approvalId!);
      await first;
      const claim = (await w.store.approvals.get(waiting.approvalId!))!.executionId;
      assert.ok(claim);
      w.advance(120);
      await w.executor().drain();
      const done = await stepOf(w.store, waiting.id);
      assert.equal(done.status, 'completed', `${done.statusReason} / ${done.error}`);
      assert.equal(calls, 2, 'read once more, under the same approval');
      const approval = (await w.store.approvals.get(waiting.approvalId!))!;
      assert.equal(approval.status, 'executed');
      assert.notEqual(approval.executionId, claim);
      assert.equal(approval.executionId, done.executionId, 'the request names the execution that finished');
      assert.equal((await w.store.intentions.get(plan.intentionId))?.status, 'fulfilled');
      // The stopped act returns at last: its move and its request's move find nothing to move.
      release();
      assert.equal(await stopped, true);
      assert.equal((await stepOf(w.store, waiting.id)).executionId, done.executionId);
      assert.equal((await w.store.approvals.get(waiting.approvalId!))?.executionId, done.executionId);
    });

    it('runs a read-only step again when nothing was recorded', async () => {
      const w = await world();
      const { stepId } = await abandonedClaim(w, readStep('R'));
      w.advance(33);
      await w.executor().drain();
      assert.equal((await stepOf(w.store, stepId)).status, 'completed');
      assert.equal(w.log.calls.length, 1);
    });

    it('lets only one of two executors take an abandoned step over', async () => {
      const w = await world();
      const { stepId, plan, origin } = await abandonedClaim(w, step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' } }));
      await w.store.executions.start({ mindId: w.mind.id, capability: 'test.write', target: 'w', params: { name: 'w' }, origin, correlationId: '', evidence: {} });
      w.advance(33);
      await Promise.all([w.executor().tick(), w.executor().tick()]);
      assert.equal((await stepOf(w.store, stepId)).status, 'blocked');
      const blockedEvents = (await eventTypes(w.store, { planId: plan.id })).filter((t) => t === 'plan_step_blocked');
      assert.equal(blockedEvents.length, 1);
    });

    it('re-runs an abandoned verify step from its stored prediction', async () => {
      const w = await world();
      const expectation = { statement: 'w exists', confidence: 0.7, within_seconds: 60, check: { capability: 'test.read', params: { name: 'w' }, field: 'value', comparison: 'exists' as const } };
      const { plan } = await w.plan(
        draftOf([step('W', { kind: 'capability', capability: 'test.write', params: { name: 'w' }, expectation }), step('V', { kind: 'verify', depends_on: ['W'], spec: { verifies: 'W' } })]),
      );
      // One round per pass, so that the first pass runs W only.
      const executor = w.executor({ rounds: 1 });
      // Run W only: start the plan and handle its first due step.
      await executor.tick();
      const v = plan.steps[1]!;
      await w.store.steps.move('promote', v.id, 'pending');
      assert.ok(await w.store.steps.claim(v.id, { leaseSeconds: 32 }));
      w.advance(33);
      await executor.drain();
      assert.equal((await stepOf(w.store, v.id)).status, 'completed');
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
    });
  });
}
