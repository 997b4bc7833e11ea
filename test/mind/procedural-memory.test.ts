import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { describeProcedure, recordProcedure } from '../../src/mind/procedural-memory.ts';
import { Planner } from '../../src/planning/planner.ts';
import type { PlanDraft } from '../../src/core/plan.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { failedRestart, registry, request, restartAtlas } from '../planning/planner-fixtures.ts';

const planner = new Planner(registry);

function draftOf(outcome: ReturnType<Planner['plan']>): PlanDraft {
  if (outcome.kind !== 'plan') throw new Error('no plan');
  return outcome.draft;
}

/** Stores a plan from a draft, completes the given steps (others are skipped) and the plan. */
async function completedPlan(store: Store, draft: PlanDraft, revision: number, skip: string[] = []) {
  const mind = await store.minds.create({ name: `ops-${newId()}` });
  const intention = await store.intentions.create({ mindId: mind.id, objective: draft.objective, origin: 'operator' });
  const plan = await store.plans.create({
    mindId: mind.id,
    intentionId: intention.id,
    origin: revision === 1 ? 'template' : 'replan',
    revision,
    draft,
    validation: { valid: true, errors: [], warnings: [], estimate: { invocations: 0, approvals: 0, wall_seconds: 0, network_ops: 0, money: 0, tokens: 0 } },
    status: 'validated',
  });
  for (const step of plan.steps) {
    await store.steps.move('promote', step.id, 'pending');
    await store.steps.move(skip.includes(step.key) ? 'skip' : 'complete', step.id, 'ready');
  }
  await store.plans.transition(plan.id, 'validated', 'completed');
  return { mind, intention, plan };
}

describe('describing a procedure', () => {
  const steps = draftOf(planner.plan(request(restartAtlas))).steps.map((s) => ({ ...s, status: 'completed' as const }));

  it('says what worked, confirmed by observation', () => {
    const procedure = describeProcedure({ objective: 'Restart atlas-worker.service', strategy: 'direct', revision: 1, steps });
    assert.deepEqual(procedure, {
      summary: 'To restart atlas-worker.service: run service.restart on atlas-worker.service; then verify: atlas-worker.service is active. ' + 'The outcome was confirmed by observation.',
      confidence: 0.9,
      verified: true,
      steps: [
        { key: 'P1', kind: 'capability', capability: 'service.restart', target: 'atlas-worker.service', does: 'run service.restart on atlas-worker.service' },
        { key: 'V1', kind: 'verify', capability: 'service.status', target: 'atlas-worker.service', does: 'verify: atlas-worker.service is active' },
      ],
    });
  });

  it('holds an unverified recipe with less confidence, and leaves out what did not complete', () => {
    const unverified = describeProcedure({
      objective: 'restart atlas-worker.service',
      strategy: 'direct',
      revision: 1,
      steps: steps.map((s) => (s.key === 'V1' ? { ...s, status: 'skipped' as const } : s)),
    });
    assert.equal(unverified?.summary, 'To restart atlas-worker.service: run service.restart on atlas-worker.service. The outcome was not confirmed by observation.');
    assert.equal(unverified?.confidence, 0.6);
    assert.equal(unverified?.verified, false);
    assert.equal(describeProcedure({ objective: 'o', strategy: 'direct', revision: 1, steps: [] }), null);
  });
});

for (const kind of STORE_KINDS) {
  describe(`procedural memory (${kind})`, () => {
    const current = useStore(kind);

    it('records a completed plan once, with the event', async () => {
      const { store } = current();
      const { mind, plan } = await completedPlan(store, draftOf(planner.plan(request(restartAtlas))), 1);
      const first = await recordProcedure(store, plan.id);
      assert.equal(first.recorded, true);
      if (!first.recorded) return;
      assert.equal(first.created, true);
      assert.equal(first.memory.confidence, 0.9);
      assert.equal(first.memory.verified, true);
      assert.equal(first.memory.strategy, 'direct');
      assert.match(first.memory.summary, /^To restart atlas-worker\.service: run service\.restart on atlas-worker\.service; then verify: /);
      const again = await recordProcedure(store, plan.id);
      assert.deepEqual(again, { recorded: true, memory: first.memory, created: false });
      const recorded = (await store.events.list({ planId: plan.id })).filter((e) => e.type === 'procedural_memory_recorded');
      assert.equal(recorded.length, 1);
      assert.deepEqual(await store.proceduralMemories.listByMind(mind.id), [first.memory]);
    });

    it('says an escalation informed an operator, not that it worked, and what became of the revision before it', async () => {
      const { store } = current();
      const escalation = draftOf(planner.plan(request(restartAtlas, { failedStrategies: ['direct'], history: [failedRestart] })));
      const { mind, intention, plan } = await completedPlan(store, escalation, 2, ['R1', 'L1']);
      // Revision 1: the direct restart, whose verify step failed; replanning superseded it.
      const first = await store.plans.create({
        mindId: mind.id,
        intentionId: intention.id,
        origin: 'template',
        revision: 1,
        draft: draftOf(planner.plan(request(restartAtlas))),
        validation: { valid: true, errors: [], warnings: [], estimate: { invocations: 0, approvals: 0, wall_seconds: 0, network_ops: 0, money: 0, tokens: 0 } },
        status: 'validated',
      });
      const refuted = first.steps.find((s) => s.key === 'V1')!.id;
      await store.steps.move('promote', refuted, 'pending');
      await store.steps.move('fail', refuted, 'ready');
      await store.plans.transition(first.id, 'validated', 'superseded', { supersededBy: plan.id });
      const result = await recordProcedure(store, plan.id);
      assert.equal(result.recorded, true);
      if (!result.recorded) return;
      assert.equal(
        result.memory.summary,
        'To restart atlas-worker.service: run service.status on atlas-worker.service; then run host.memory.status on host; ' +
          'then run host.disk.usage on /; then summarise the findings; then notify the operator. ' +
          'The outcome was not confirmed by observation. It did not bring the objective about: it escalated to an operator at revision 2, after revision 1 (direct) failed.',
      );
      assert.doesNotMatch(result.memory.summary, /worked/);
      assert.equal(result.memory.confidence, 0.6);
      assert.equal(result.memory.revision, 2);
    });

    it('names what became of each earlier revision instead of calling them all failed', () => {
      const steps = draftOf(planner.plan(request(restartAtlas))).steps.map((s) => ({ ...s, status: 'completed' as const }));
      const procedure = describeProcedure({
        objective: 'Restart atlas-worker.service',
        strategy: 'direct',
        revision: 3,
        steps,
        earlier: [
          { revision: 1, strategy: 'direct', outcome: 'superseded' },
          { revision: 2, strategy: 'model', outcome: 'failed' },
        ],
      });
      assert.match(procedure!.summary, / It worked at revision 3, after revision 1 \(direct\) was superseded and revision 2 \(model\) failed\.$/);
    });

    it('records nothing for a plan that has not completed', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `ops-${newId()}` });
      const intention = await store.intentions.create({ mindId: mind.id, objective: 'o', origin: 'operator' });
      const plan = await store.plans.create({
        mindId: mind.id,
        intentionId: intention.id,
        origin: 'template',
        draft: draftOf(planner.plan(request(restartAtlas))),
        validation: { valid: true, errors: [], warnings: [], estimate: { invocations: 0, approvals: 0, wall_seconds: 0, network_ops: 0, money: 0, tokens: 0 } },
        status: 'validated',
      });
      assert.deepEqual(await recordProcedure(store, plan.id), { recorded: false, reason: 'plan_not_completed' });
      assert.deepEqual(await recordProcedure(store, newId()), { recorded: false, reason: 'unknown_plan' });
      assert.equal(await store.proceduralMemories.getByPlan(plan.id), undefined);
    });
  });
}
