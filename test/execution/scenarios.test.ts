// End-to-end scenarios of the executor on both stores: plans run tick by tick on a manual clock,
// through the real capability service, against the simulated host where a unit is involved.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planIntention } from '../../src/drafting/plan-intention.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, eventTypes, readStep, restartPlan, step, stepsOf, UNIT, type World, useWorlds } from './support.ts';

function restarts(world: World): number {
  return (world.host?.calls() ?? []).filter((c) => c.program === 'systemctl' && c.argv[0] === 'restart').length;
}

for (const kind of STORE_KINDS) {
  describe(`executor scenarios (${kind})`, () => {
    const current = useStore(kind);
    const world = useWorlds(current);

    it('restarts a unit, then verifies it by observation: prediction confirmed, intention fulfilled, procedure recorded', async () => {
      const w = await world({ simulated: true });
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });
      await w.allow('service.restart');
      const { plan, intention } = await w.plan(restartPlan());
      const executor = w.executor();

      await executor.drain();
      // The restart was requested; the unit is still activating, so the verify step waits.
      assert.deepEqual(await stepsOf(w.store, plan.id), { P1: 'completed', V1: 'waiting' });
      const p1 = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.ok(p1.predictionId, 'the expectation became a prediction');
      assert.match(String((p1.result as { summary: string }).summary), /restart requested/);
      const prediction = await w.store.predictions.get(p1.predictionId!);
      assert.equal(prediction?.status, 'open');
      assert.equal(prediction?.windowClosesAt.getTime(), w.clock.now().getTime() + 60_000);

      w.advance(10);
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { P1: 'completed', V1: 'completed' });
      assert.equal((await w.store.predictions.get(p1.predictionId!))?.status, 'confirmed');
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'fulfilled');
      const [memory] = await w.store.proceduralMemories.listByMind(w.mind.id);
      assert.equal(memory?.verified, true);
      assert.match(memory?.summary ?? '', /confirmed by observation/);
      assert.equal(restarts(w), 1);

      const types = await eventTypes(w.store, { intentionId: intention.id });
      for (const expected of [
        'plan_started',
        'plan_step_started',
        'policy_decision',
        'tool_authorised',
        'tool_executed',
        'plan_step_completed',
        'prediction_made',
        'prediction_resolved',
        'plan_completed',
        'intention_fulfilled',
        'procedural_memory_recorded',
      ]) {
        assert.ok(types.includes(expected), `${expected} in the timeline`);
      }
      // Every action of the plan names its step as origin.
      const executions = await w.store.executions.listByMind(w.mind.id);
      assert.ok(executions.every((e) => e.origin.startsWith('plan_step:') && e.correlationId === intention.id));
    });

    it('a refuted restart is followed by a diagnosis with an operator-granted log request, a summary and an escalation, never a second restart', async () => {
      const w = await world({ simulated: true });
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'failed', delay_seconds: 2 } });
      w.host!.addJournal(UNIT, [{ time: new Date(w.clock.now().getTime() - 60_000).toISOString(), message: 'fatal: pool exhausted for bob@example.com', priority: 2 }]);
      await w.allow('service.restart');
      await w.store.policyRules.set({ mindId: w.mind.id, capability: 'host.*', targetPattern: '*', decision: 'deny', approvers: 1 });
      const formed = await formIntention(w.store, { mindId: w.mind.id, means: { capability: 'service.restart', target: UNIT, params: { unit: UNIT } }, origin: 'operator' });
      assert.ok(formed.ok);
      const intentionId = formed.intention.id;
      const planning = { registry: w.registry };
      const first = await planIntention(w.store, planning, intentionId);
      assert.equal(first.status, 'planned');
      const executor = w.executor({ planning });

      await executor.drain();
      for (let i = 0; i < 8; i += 1) {
        w.advance(10);
        await executor.drain();
      }
      const plans = await w.store.plans.listByIntention(intentionId);
      assert.equal(plans.length, 2, 'one replan');
      const [direct, escalation] = plans;
      assert.equal(direct?.status, 'superseded');
      assert.equal(direct?.supersededBy, escalation?.id);
      assert.equal(escalation?.supersedes, direct?.id);
      assert.equal(escalation?.strategy, 'diagnose_then_escalate');
      const directSteps = await stepsOf(w.store, direct!.id);
      assert.deepEqual(directSteps, { P1: 'completed', V1: 'failed' });
      const v1 = (await w.store.plans.get(direct!.id))!.steps.find((s) => s.key === 'V1')!;
      assert.match(v1.error, /expectation failed/);
      const predictions = await w.store.predictions.listByMind(w.mind.id);
      assert.deepEqual(
        predictions.map((p) => p.status),
        ['refuted'],
      );
      const types = await eventTypes(w.store, { intentionId });
      assert.ok(types.includes('prediction_error'));
      assert.ok(types.includes('reconsideration'));
      assert.ok(types.includes('plan_replanned'));

      // The diagnosis waits for journal access, and says so; an operator grants it.
      assert.equal((await w.store.plans.get(escalation!.id))?.status, 'awaiting_approval');
      const waiting = await stepsOf(w.store, escalation!.id);
      assert.equal(waiting.R1, 'awaiting_grant');
      assert.equal((await w.store.intentions.get(intentionId))?.status, 'blocked');
      const r1 = (await w.store.plans.get(escalation!.id))!.steps.find((s) => s.key === 'R1')!;
      const granted = await w.service.grant(r1.requestId!, 'alice');
      assert.equal(granted.status, 'granted');
      await executor.drain();

      const final = await stepsOf(w.store, escalation!.id);
      assert.deepEqual(final, { U1: 'completed', R1: 'completed', L1: 'completed', S1: 'completed', N1: 'completed' });
      assert.equal((await w.store.plans.get(escalation!.id))?.status, 'completed');
      const s1 = (await w.store.plans.get(escalation!.id))!.steps.find((s) => s.key === 'S1')!;
      assert.match(JSON.stringify(s1.observation), /U1/);
      assert.match(JSON.stringify(s1.observation), /L1/);
      const intention = await w.store.intentions.get(intentionId);
      assert.notEqual(intention?.status, 'fulfilled', 'a completed escalation does not fulfil the intention');
      const notes = (await w.store.events.list({ planId: escalation!.id, limit: 1000 })).filter((e) => e.type === 'operator_note');
      assert.equal(notes.length, 1);
      assert.equal(restarts(w), 1, 'the failed restart is never repeated');
    });

    it('an approval denied fails the step with the note, ends the wait and runs nothing', async () => {
      const w = await world();
      await w.allow('test.read');
      const { plan, intention } = await w.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha' } })]));
      const executor = w.executor();
      await executor.drain();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_approval');
      assert.ok(waiting.approvalId && waiting.intentionId);
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'blocked');
      assert.equal((await w.store.intentions.get(intention.id))?.reason, 'awaiting_approval');
      const approval = await w.store.approvals.get(waiting.approvalId!);
      assert.equal(approval?.origin, `plan_step:${waiting.id}`);
      assert.equal(approval?.correlationId, intention.id);
      assert.deepEqual(approval?.evidence, { intention_id: intention.id, plan_id: plan.id, step_id: waiting.id });
      assert.match(String(approval?.explanation.what), /test.write on alpha/);

      assert.equal((await w.service.deny(waiting.approvalId!, 'alice', 'not during business hours')).status, 'denied');
      await executor.drain();
      const failed = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /not during business hours/);
      assert.equal((await w.store.intentions.get(waiting.intentionId!))?.status, 'abandoned', 'the subordinate wait ended');
      assert.equal((await w.store.plans.get(plan.id))?.status, 'failed');
      const parent = await w.store.intentions.get(intention.id);
      assert.equal(parent?.status, 'abandoned', 'without a planner no strategy is left');
      assert.equal(parent?.reason, 'no_possible_plan');
      assert.equal(w.log.calls.length, 0, 'nothing ran');
      const reconsideration = (await w.store.events.list({ intentionId: intention.id, limit: 1000 })).find((e) => e.type === 'reconsideration');
      assert.equal(reconsideration?.data.failure, 'approval_denied');
    });

    it('an approval approved completes the step, fulfils the subordinate and resumes the parent', async () => {
      const w = await world();
      const { plan, intention } = await w.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'beta' } })]));
      const executor = w.executor();
      await executor.drain();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      const answer = await w.service.approve(waiting.approvalId!, 'alice');
      assert.equal(answer.status, 'approved');
      assert.equal(w.log.calls.length, 0, 'approving only records the decision');
      await executor.drain();
      const done = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(done.status, 'completed');
      assert.equal((await w.store.intentions.get(waiting.intentionId!))?.status, 'fulfilled');
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'fulfilled', 'resumed, then fulfilled by the completed plan');
      assert.deepEqual(
        w.log.calls.map((c) => c.capability),
        ['test.write'],
        'the executor serving the mind ran the approved action, once',
      );
      const approval = (await w.store.approvals.get(waiting.approvalId!))!;
      assert.equal(approval.status, 'executed');
      assert.equal(approval.executionId, done.executionId);
    });

    it('an approval raised by a step tells the approver the risk, what limits it and what happens if it fails', async () => {
      const w = await world({ simulated: true });
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });
      await w.store.policyRules.set({ mindId: w.mind.id, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 1 });
      const draft = { ...restartPlan(), risk: 'a restart drops in-flight jobs', abort_conditions: ['the unit is masked'] };
      const { plan } = await w.plan(draft);
      await w.executor().drain();
      const p1 = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(p1.status, 'awaiting_approval');
      const explanation = (await w.store.approvals.get(p1.approvalId!))!.explanation;
      assert.equal(explanation.risk, 'a restart drops in-flight jobs');
      assert.match(String(explanation.mitigation), /atlas-worker is not already running/);
      assert.match(String(explanation.mitigation), /observation checks "atlas-worker is active"/);
      assert.match(String(explanation.fallback), /never repeated/);
      assert.match(String(explanation.fallback), /the unit is masked/);
    });

    it('an approval that expires fails the step as an expired approval', async () => {
      const w = await world();
      const { plan } = await w.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'gamma' } })]));
      const executor = w.executor();
      await executor.drain();
      w.advance(3601);
      await executor.drain();
      const failed = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /expired approval/);
      assert.equal(w.log.calls.length, 0);
    });

    it('a spent budget blocks the step and the plan and suspends the intention', async () => {
      const w = await world();
      await w.allow('test.read');
      const { plan, intention } = await w.plan(
        draftOf([readStep('A'), step('W', { kind: 'wait', depends_on: ['A'], spec: { seconds: 50 } }), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['W'] })], {
          budget: { invocations: 20, wall_seconds: 100 },
        }),
      );
      const executor = w.executor();
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { A: 'completed', W: 'waiting', B: 'pending' });
      // The daemon was down for a while: by the time the wait ends, the plan's wall time is spent.
      w.advance(200);
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { A: 'completed', W: 'completed', B: 'blocked' });
      const blocked = (await w.store.plans.get(plan.id))!;
      assert.equal(blocked.status, 'blocked');
      assert.match(blocked.steps[2]!.error, /budget exhausted: wall seconds/);
      const suspended = await w.store.intentions.get(intention.id);
      assert.equal(suspended?.status, 'suspended');
      assert.equal(suspended?.reason, 'budget_exhausted');
      assert.equal(w.log.calls.length, 1, 'B never acted');
      assert.ok((await eventTypes(w.store, { planId: plan.id })).includes('plan_blocked'));
    });

    it('a precondition that no longer holds skips the restart and fulfils the intention without acting', async () => {
      const w = await world({ simulated: true });
      w.host!.setUnit(UNIT, { active_state: 'active', sub_state: 'running' });
      await w.allow('service.restart');
      const { plan, intention } = await w.plan(restartPlan());
      await w.executor().drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { P1: 'skipped', V1: 'skipped' });
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
      const fulfilled = await w.store.intentions.get(intention.id);
      assert.equal(fulfilled?.status, 'fulfilled');
      assert.equal(fulfilled?.reason, 'precondition_met');
      assert.equal(restarts(w), 0);
      const precondition = await w.store.executions.listByOrigin(`plan_step:${plan.steps[0]!.id}:precondition`);
      assert.equal(precondition.length, 1, 'the precondition was observed once, read-only');
    });

    it('a monitor completes only after holding continuously for its stable period', async () => {
      let value = 'ok';
      const w = await world({
        implementations: {
          'test.read': async (params) => ({ observation: { name: String(params.name), value }, summary: `read ${value}` }),
        },
      });
      await w.allow('test.read');
      const { plan } = await w.plan(
        draftOf([
          step('M', {
            kind: 'monitor',
            capability: 'test.read',
            params: { name: 'svc' },
            spec: { field: 'value', comparison: 'equals', value: 'ok', stable_seconds: 60, deadline_seconds: 300, interval_seconds: 20 },
          }),
        ]),
      );
      const executor = w.executor();
      await executor.drain(); // t=0 holds
      w.advance(20);
      await executor.drain(); // t=20 holds
      value = 'flapping';
      w.advance(20);
      await executor.drain(); // t=40 breaks
      value = 'ok';
      for (let t = 60; t <= 100; t += 20) {
        w.advance(20);
        await executor.drain();
        assert.equal((await stepsOf(w.store, plan.id)).M, 'waiting', `still waiting at t=${t}`);
      }
      w.advance(20);
      await executor.drain(); // t=120: held since t=60
      const done = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(done.status, 'completed');
      assert.equal((done.observation as { held_since: string }).held_since, new Date(w.clock.now().getTime() - 60_000).toISOString());
    });

    it('a monitor that never settles fails at its deadline', async () => {
      const w = await world({
        implementations: { 'test.read': async () => ({ observation: { name: 'svc', value: 'down' }, summary: 'down' }) },
      });
      await w.allow('test.read');
      const { plan } = await w.plan(
        draftOf([
          step('M', {
            kind: 'monitor',
            capability: 'test.read',
            params: { name: 'svc' },
            spec: { field: 'value', comparison: 'equals', value: 'ok', stable_seconds: 60, deadline_seconds: 120, interval_seconds: 30 },
          }),
        ]),
      );
      const executor = w.executor();
      for (let i = 0; i < 6; i += 1) {
        await executor.drain();
        w.advance(30);
      }
      const failed = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /did not hold for 60 s within 120 s/);
    });

    it('a wait survives a restart of the executor: its end is stored, nothing sleeps', async () => {
      const w = await world();
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([step('W', { kind: 'wait', spec: { seconds: 600 } }), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['W'] })]));
      const first = w.executor();
      await first.drain();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'waiting');
      const end = new Date(w.clock.now().getTime() + 600_000);
      assert.deepEqual(waiting.nextRunAt, end);

      // A new executor object (the daemon restarted) picks up where the first left off.
      w.advance(300);
      const second = w.executor();
      await second.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { W: 'waiting', B: 'pending' });
      w.advance(300);
      await second.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { W: 'completed', B: 'completed' });
      const done = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.deepEqual(done.result, { until: end.toISOString() });
    });

    it('a capability request raised, granted by an operator, completes the step; a capped one waits ten minutes and asks again', async () => {
      const w = await world();
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
      // Fill the mind's cap of five open requests first.
      for (let i = 0; i < 5; i += 1) {
        await w.service.requestCapability({
          mindId: w.mind.id,
          origin: 'operator:test',
          capability: 'test.read',
          targetPattern: `other-${i}`,
          durationSeconds: 60,
          maxOperations: 1,
          reason: 'r',
          risk: 'r',
          mitigation: 'm',
          fallback: 'f',
        });
      }
      const { plan, intention } = await w.plan(draftOf([step('R', { kind: 'request_capability', spec: { request } }), readStep('B', 'test.read', { name: 'svc-a' }, { depends_on: ['R'] })]));
      const executor = w.executor();
      await executor.drain();
      const capped = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(capped.status, 'waiting');
      assert.deepEqual(capped.nextRunAt, new Date(w.clock.now().getTime() + 600_000));
      for (const open of await w.store.capabilityRequests.list({ mindId: w.mind.id, status: 'open' })) await w.service.denyRequest(open.id, 'alice', 'no');
      w.advance(600);
      await executor.drain();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_grant');
      assert.equal((await w.store.intentions.get(intention.id))?.reason, 'awaiting_grant');
      assert.equal((await w.service.grant(waiting.requestId!, 'alice')).status, 'granted');
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { R: 'completed', B: 'completed' });
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'fulfilled');
      const [execution] = await w.store.executions.listByOrigin(`plan_step:${plan.steps[1]!.id}`);
      assert.ok(execution?.grantId, 'B ran under the grant');
    });

    it('at the replan limit a failed plan abandons its intention with the reason', async () => {
      const w = await world();
      const { plan, intention } = await w.plan(draftOf([readStep('A', 'test.flaky')]), { revision: 4 });
      await w.allow('test.flaky');
      await w.executor({ planning: { registry: w.registry } }).drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'failed');
      const abandoned = await w.store.intentions.get(intention.id);
      assert.equal(abandoned?.status, 'abandoned');
      assert.equal(abandoned?.reason, 'replan_limit');
      const reconsideration = (await w.store.events.list({ intentionId: intention.id, limit: 1000 })).find((e) => e.type === 'reconsideration');
      assert.equal(reconsideration?.data.decision, 'abandon');
      assert.equal(reconsideration?.data.replans_used, 3);
    });
  });
}
