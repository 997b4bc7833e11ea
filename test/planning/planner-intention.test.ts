// planIntention: the planner's I/O shell, on both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { addSeconds } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import { planIntention, type PlanIntentionResult } from '../../src/drafting/plan-intention.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import { reconsider, recordReconsideration } from '../../src/mind/reconsideration.ts';
import { FAILED_BEFORE, Planner } from '../../src/planning/planner.ts';
import type { IntentionMeans, Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const registry = builtinRegistry();
const services = { registry };
const restartMeans: IntentionMeans = { capability: 'service.restart', target: 'atlas-worker.service', params: { unit: 'atlas-worker.service' } };

async function intentionFor(store: Store, input: { objective?: string; means?: IntentionMeans; requireApproval?: boolean }) {
  const mind = await store.minds.create({ name: `ops-${newId()}` });
  const formed = await formIntention(store, { mindId: mind.id, origin: 'operator', ...input });
  if (!formed.ok) throw new Error(JSON.stringify(formed.problems));
  return { mind, intention: formed.intention };
}

/** The store, but each transaction waits until `count` of them have been asked for. */
function storeWhoseTransactionsWaitFor(store: Store, count: number): Store {
  let waiting = 0;
  let release: () => void = () => {};
  const allArrived = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    ...store,
    async transaction(work) {
      waiting += 1;
      if (waiting >= count) release();
      await allArrived;
      return store.transaction(work);
    },
  };
}

function expectPlanned(result: PlanIntentionResult) {
  if (result.status !== 'planned') assert.fail(`expected a plan, got ${JSON.stringify(result)}`);
  return result;
}

for (const kind of STORE_KINDS) {
  describe(`planning an intention (${kind})`, () => {
    const current = useStore(kind);

    it('stores the direct restart plan, validated, with its alternatives and events', async () => {
      const { store } = current();
      const { mind, intention } = await intentionFor(store, { objective: 'restart atlas-worker.service', means: restartMeans });
      const result = expectPlanned(await planIntention(store, services, intention.id));
      assert.equal(result.strategy, 'direct');
      const plan = result.plan;
      assert.equal(plan.status, 'validated');
      assert.equal(plan.origin, 'template');
      assert.equal(plan.revision, 1);
      assert.equal(plan.supersedes, null);
      assert.equal(plan.llmCall, null);
      assert.equal(plan.strategy, 'direct');
      assert.deepEqual(
        plan.steps.map((s) => [s.key, s.kind, s.capability, s.status]),
        [
          ['P1', 'capability', 'service.restart', 'pending'],
          ['V1', 'verify', 'service.status', 'pending'],
        ],
      );
      assert.deepEqual(plan.alternatives, [
        {
          strategy: 'direct',
          estimate: { invocations: 2, approvals: 1, wall_seconds: 6, network_ops: 0, money: 0, tokens: 0 },
          expected_confidence: 0.8,
          score: 0.744,
          selected: true,
          why: 'chosen: the intention names service.restart on atlas-worker.service as its means; the first applicable strategy in preference order',
        },
      ]);
      assert.deepEqual(plan.budget, { invocations: 20 });
      assert.equal(plan.validation.valid, true);
      assert.ok(plan.completionCriteria.length > 0 && plan.abortConditions.length > 0 && plan.assumptions.length > 0 && plan.risk.length > 0);
      assert.deepEqual(await store.plans.get(plan.id), plan);

      const events = await store.events.list({ planId: plan.id });
      assert.deepEqual(
        events.map((e) => e.type),
        ['plan_created', 'plan_validated'],
      );
      assert.equal(events[0]!.mindId, mind.id);
      assert.deepEqual(events[0]!.data.alternatives, [{ strategy: 'direct', score: 0.744, selected: true }]);
      assert.equal((events[0]!.data.considered as unknown[]).length, 4);
    });

    it('plans an investigation with the journal request, without it under a live grant, and without logs when denied', async () => {
      const { store } = current();
      const asking = await intentionFor(store, { objective: 'investigate nginx.service' });
      const first = expectPlanned(await planIntention(store, services, asking.intention.id));
      assert.deepEqual(
        first.plan.steps.map((s) => s.key),
        ['U1', 'M1', 'D1', 'R1', 'L1', 'S1'],
      );
      assert.deepEqual(first.plan.steps.find((s) => s.key === 'L1')?.dependsOn, ['R1']);

      const granted = await intentionFor(store, { objective: 'investigate nginx.service' });
      await store.grants.create({
        mindId: granted.mind.id,
        capability: 'logs.query',
        targetPattern: 'nginx.service',
        paramLimits: { lines: { max: 200 } },
        expiresAt: addSeconds(store.clock.now(), 1800),
        operations: 20,
        grantedBy: 'alice',
      });
      const second = expectPlanned(await planIntention(store, services, granted.intention.id));
      assert.deepEqual(
        second.plan.steps.map((s) => s.key),
        ['U1', 'M1', 'D1', 'L1', 'S1'],
      );
      assert.equal(second.plan.alternatives[0]!.score, 0.69);

      const denied = await intentionFor(store, { objective: 'why is nginx failing' });
      await store.policyRules.set({ mindId: denied.mind.id, capability: 'logs.query', targetPattern: '*', decision: 'deny', approvers: 1 });
      const third = expectPlanned(await planIntention(store, services, denied.intention.id));
      assert.deepEqual(
        third.plan.steps.map((s) => s.key),
        ['U1', 'M1', 'D1', 'S1'],
      );
      assert.ok(third.notes.some((n) => /denied by policy/.test(n)));
    });

    it('after a failed restart plans revision 2 as diagnosis and escalation, superseding revision 1; after that, nothing is left', async () => {
      const { store } = current();
      const { intention } = await intentionFor(store, { objective: 'restart atlas-worker.service', means: restartMeans });
      const one = expectPlanned(await planIntention(store, services, intention.id)).plan;

      // The executor's part, by hand: the restart ran, the verification failed, the rule said replan.
      const [p1, v1] = one.steps;
      for (const step of [p1!, v1!]) await store.steps.move('promote', step.id, 'pending');
      await store.steps.move('complete', p1!.id, 'ready', { statusReason: 'restart requested (health not yet verified)' });
      await store.steps.move('fail', v1!.id, 'ready', { error: 'expectation failed: atlas-worker.service was not active within 60 s', observation: { active_state: 'failed' } });
      await store.plans.transition(one.id, 'validated', 'replanning', { statusReason: 'expectation failed' });
      const planner = new Planner(registry);
      const left = (failed: readonly string[]) =>
        planner.applicableStrategies({
          intention: { objective: intention.objective, means: intention.means, requireApproval: false },
          policy: { decide: () => ({ decision: 'allow', source: 'rule', reason: '' }) },
          failedStrategies: failed,
          history: [],
          modelConfigured: false,
        });
      const decision = reconsider({ failure: 'expectation_failed', plan: { revision: 1, strategy: 'direct' }, failedStrategies: [], strategiesLeft: left });
      assert.equal(decision.decision, 'replan');
      await recordReconsideration(store, { mindId: intention.mindId, intentionId: intention.id, planId: one.id, strategy: 'direct' }, decision);

      const result = expectPlanned(await planIntention(store, services, intention.id));
      const two = result.plan;
      assert.equal(result.strategy, 'diagnose_then_escalate');
      assert.equal(two.revision, 2);
      assert.equal(two.origin, 'replan');
      assert.equal(two.supersedes, one.id);
      assert.ok(!two.steps.some((s) => s.capability === 'service.restart'), 'no second restart');
      const note = two.steps.find((s) => s.key === 'N1');
      assert.match(String(note?.spec.message), /Tried service\.restart on atlas-worker\.service \(revision 1\).*V1 \(Verify: atlas-worker\.service is active\) failed: expectation failed/);
      assert.match(String(note?.spec.message), /observed active_state "failed"/);
      assert.deepEqual(result.considered[0], { strategy: 'direct', applicable: false, why: FAILED_BEFORE });
      const old = await store.plans.get(one.id);
      assert.equal(old?.status, 'superseded');
      assert.equal(old?.supersededBy, two.id);
      const replanned = (await store.events.list({ intentionId: intention.id })).find((e) => e.type === 'plan_replanned');
      assert.deepEqual(replanned?.data, { from: one.id, to: two.id, from_revision: 1, revision: 2, strategy: 'diagnose_then_escalate' });

      // Revision 2 fails too: with direct and the escalation spent there is no possible plan.
      await store.plans.transition(two.id, 'validated', 'replanning', { statusReason: 'the note could not be delivered' });
      const end = await planIntention(store, services, intention.id, { revision: 3, failedStrategies: ['direct', 'diagnose_then_escalate'] });
      assert.equal(end.status, 'no_possible_plan');
      if (end.status !== 'no_possible_plan') return;
      assert.equal(end.fresh, false);
      assert.equal(end.intention.status, 'abandoned');
      assert.equal(end.intention.reason, 'no_possible_plan');
      assert.equal((await store.plans.get(two.id))?.status, 'failed');
      assert.equal((await store.plans.listByIntention(intention.id)).length, 2, 'no third revision was stored');
    });

    it('abandons a fresh intention nothing can plan, with no_possible_plan', async () => {
      const { store } = current();
      const { intention } = await intentionFor(store, { objective: 'tidy up the team wiki' });
      const result = await planIntention(store, services, intention.id);
      assert.equal(result.status, 'no_possible_plan');
      if (result.status !== 'no_possible_plan') return;
      assert.equal(result.fresh, true);
      assert.equal(result.intention.reason, 'no_possible_plan');
      assert.deepEqual(
        result.considered.map((c) => c.applicable),
        [false, false, false, false],
      );
      const abandoned = (await store.events.list({ intentionId: intention.id })).find((e) => e.type === 'intention_abandoned');
      assert.equal(abandoned?.data.reason, 'no_possible_plan');
      assert.equal(abandoned?.data.fresh, true);
      assert.deepEqual(await store.plans.listByIntention(intention.id), []);
    });

    it('refuses, changing nothing, when there is nothing it may plan', async () => {
      const { store } = current();
      assert.equal((await planIntention(store, services, newId())).status === 'refused', true);

      const closed = await intentionFor(store, { objective: 'investigate nginx.service' });
      await store.intentions.transition(closed.intention.id, 'active', 'abandoned', 'cancelled');
      const notActive = await planIntention(store, services, closed.intention.id);
      assert.equal(notActive.status === 'refused' && notActive.code, 'intention_not_active');

      const running = await intentionFor(store, { objective: 'investigate nginx.service' });
      const plan = expectPlanned(await planIntention(store, services, running.intention.id)).plan;
      await store.plans.transition(plan.id, 'validated', 'executing');
      const busy = await planIntention(store, services, running.intention.id);
      assert.equal(busy.status === 'refused' && busy.code, 'plan_in_progress');
      await store.plans.transition(plan.id, 'executing', 'replanning');
      const stale = await planIntention(store, services, running.intention.id, { revision: 5 });
      assert.equal(stale.status === 'refused' && stale.code, 'stale_revision');
      assert.equal((await store.plans.listByIntention(running.intention.id)).length, 1);

      const sandbox = await intentionFor(store, { objective: 'investigate nginx.service' });
      await store.minds.setStatus(sandbox.mind.id, 'disabled');
      const disabled = await planIntention(store, services, sandbox.intention.id);
      assert.equal(disabled.status === 'refused' && disabled.code, 'mind_disabled');
      assert.deepEqual(await store.plans.listByIntention(sandbox.intention.id), []);
    });

    it('stores one plan when two planners race for the same revision', async () => {
      const { store } = current();
      const { intention } = await intentionFor(store, { objective: 'restart atlas-worker.service', means: restartMeans });
      // Both planners must read the intention's revisions before either stores its plan: left to
      // chance, one may finish before the other starts (a cold pool connection is enough), and the
      // late one then rightly plans revision 2 over the validated revision 1.
      const racing = storeWhoseTransactionsWaitFor(store, 2);
      const results = await Promise.all([planIntention(racing, services, intention.id), planIntention(racing, services, intention.id)]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['planned', 'refused']);
      const loser = results.find((r) => r.status === 'refused');
      assert.equal(loser?.status === 'refused' && loser.code, 'planned_concurrently');
      assert.equal((await store.plans.listByIntention(intention.id)).length, 1);
    });
  });
}
