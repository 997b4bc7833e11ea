// The approvals budget counts operator attention before it is asked for: an approval that policy
// (not the step) asks for, and a capability request step, are checked against the plan's budget
// before the request is raised. And a prediction names the event that recorded the execution it
// follows from. Both stores, through the executor.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, readStep, restartPlan, step, useWorlds } from './support.ts';

const request = {
  capability: 'test.read',
  target_pattern: 'svc-*',
  duration_seconds: 600,
  max_operations: 5,
  reason: 'read the service',
  risk: 'little',
  mitigation: 'read-only',
  fallback: 'ask the operator',
};

for (const kind of STORE_KINDS) {
  describe(`operator attention against the budget, and predictions linked to their execution event (${kind})`, () => {
    const current = useStore(kind);
    const world = useWorlds(current);

    it('a write policy asks about is counted before the approval is raised: the one past the budget blocks the step and plan, and asks nobody', async () => {
      const w = await world();
      // Neither write requires approval itself; policy's default asks for both. They run in one pass.
      const { plan, intention } = await w.plan(
        draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha' } }), step('W2', { kind: 'capability', capability: 'test.write', params: { name: 'beta' } })], {
          budget: { invocations: 20, approvals: 1 },
        }),
      );
      await w.executor().drain();

      const steps = Object.fromEntries((await w.store.plans.get(plan.id))!.steps.map((s) => [s.key, s]));
      assert.equal(steps.W1!.status, 'awaiting_approval');
      assert.equal(steps.W2!.status, 'blocked');
      assert.match(steps.W2!.error, /budget exhausted: approvals used 1 \+ 1 for this step of 1 \(policy asks an operator\)/);
      const approvals = await w.store.approvals.list({ mindId: w.mind.id });
      assert.deepEqual(
        approvals.map((a) => a.target),
        ['alpha'],
        'only the approval inside the budget was raised',
      );
      assert.equal((await w.store.plans.get(plan.id))?.status, 'blocked');
      const suspended = await w.store.intentions.get(intention.id);
      assert.equal(suspended?.status, 'suspended');
      assert.equal(suspended?.reason, 'budget_exhausted');
      // The policy decision that asked is on the record; no request for beta was announced.
      const events = await w.store.events.list({ planId: plan.id, limit: 500 });
      const intentionEvents = await w.store.events.list({ intentionId: intention.id, limit: 500 });
      assert.equal(intentionEvents.filter((e) => e.type === 'approval_requested').length, 1);
      assert.ok(intentionEvents.some((e) => e.type === 'policy_decision' && e.data.target === 'beta' && e.data.decision === 'ask'));
      assert.ok(events.some((e) => e.type === 'plan_step_blocked' && e.stepId === steps.W2!.id));
      assert.equal(w.log.calls.length, 0);
    });

    it('a write inside the approvals budget still asks', async () => {
      const w = await world();
      const { plan } = await w.plan(
        draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha' } }), step('W2', { kind: 'capability', capability: 'test.write', params: { name: 'beta' } })], {
          budget: { invocations: 20, approvals: 2 },
        }),
      );
      await w.executor().drain();
      const statuses = (await w.store.plans.get(plan.id))!.steps.map((s) => s.status);
      assert.deepEqual(statuses, ['awaiting_approval', 'awaiting_approval']);
      assert.equal((await w.store.approvals.list({ mindId: w.mind.id })).length, 2);
    });

    it('a capability request step is checked against the approvals budget before it is raised', async () => {
      const w = await world();
      // W1's approval (asked by policy) spends the one approval the budget allows; R1 comes after it.
      const { plan, intention } = await w.plan(
        draftOf(
          [
            step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha' } }),
            step('R1', { kind: 'request_capability', depends_on: ['W1'], spec: { request } }),
            readStep('B', 'test.read', { name: 'svc-a' }, { depends_on: ['R1'] }),
          ],
          { budget: { invocations: 20, approvals: 1 } },
        ),
      );
      const executor = w.executor();
      await executor.drain();
      const w1 = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal((await w.service.approve(w1.approvalId!, 'alice')).status, 'approved');
      await executor.drain();

      const steps = Object.fromEntries((await w.store.plans.get(plan.id))!.steps.map((s) => [s.key, s]));
      assert.equal(steps.W1!.status, 'completed');
      assert.equal(steps.R1!.status, 'blocked');
      assert.match(steps.R1!.error, /budget exhausted: approvals used 1 \+ 1 for this step of 1/);
      assert.equal(steps.B!.status, 'pending');
      assert.deepEqual(await w.store.capabilityRequests.list({ mindId: w.mind.id }), [], 'no capability request was raised');
      assert.equal((await w.store.plans.get(plan.id))?.status, 'blocked');
      assert.equal((await w.store.intentions.get(intention.id))?.reason, 'budget_exhausted');
    });

    it('in one pass, a capability request and a write policy asks about share the approvals budget: whichever asks first, the other is blocked', async () => {
      const w = await world();
      const { plan } = await w.plan(
        draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha' } }), step('R1', { kind: 'request_capability', spec: { request } })], {
          budget: { invocations: 20, approvals: 1 },
        }),
      );
      await w.executor().drain();
      const steps = (await w.store.plans.get(plan.id))!.steps;
      const asked = (await w.store.approvals.list({ mindId: w.mind.id })).length + (await w.store.capabilityRequests.list({ mindId: w.mind.id })).length;
      assert.equal(asked, 1, 'one operator was asked, not two');
      const blocked = steps.filter((s) => s.status === 'blocked');
      assert.equal(blocked.length, 1);
      assert.match(blocked[0]!.error, /budget exhausted: approvals used 1 \+ 1 for this step of 1/);
      assert.ok(steps.some((s) => s.status === 'awaiting_approval' || s.status === 'awaiting_grant'));
    });

    it('a prediction names the tool_executed event of the act it follows from', async () => {
      const w = await world({ simulated: true });
      w.host!.setUnit('atlas-worker.service', { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });
      await w.allow('service.restart');
      const { plan } = await w.plan(restartPlan());
      await w.executor().drain();
      const p1 = (await w.store.plans.get(plan.id))!.steps[0]!;
      const prediction = (await w.store.predictions.get(p1.predictionId!))!;
      assert.ok(prediction.eventId, 'the prediction is linked to an event');
      const linked = (await w.store.events.list({ intentionId: plan.intentionId, limit: 500 })).find((e) => e.id === prediction.eventId);
      assert.equal(linked?.type, 'tool_executed');
      assert.equal(linked?.data.execution_id, p1.executionId);
      assert.equal(linked?.data.capability, 'service.restart');
      assert.equal(prediction.executionId, p1.executionId);
    });

    it('an approved write links its prediction to the event of the approved act', async () => {
      const w = await world({ simulated: true });
      w.host!.setUnit('atlas-worker.service', { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });
      // No allow rule: the default policy asks an operator for the restart.
      const { plan } = await w.plan(restartPlan());
      const executor = w.executor();
      await executor.drain();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_approval');
      assert.equal((await w.service.approve(waiting.approvalId!, 'alice')).status, 'approved');
      await executor.drain();
      const p1 = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(p1.status, 'completed');
      const prediction = (await w.store.predictions.get(p1.predictionId!))!;
      const linked = (await w.store.events.list({ intentionId: plan.intentionId, limit: 500 })).find((e) => e.id === prediction.eventId);
      assert.equal(linked?.type, 'tool_executed');
      assert.equal(linked?.data.execution_id, p1.executionId);
    });
  });
}
