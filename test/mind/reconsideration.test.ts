import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { failedStrategiesOf, reconsider, recordReconsideration } from '../../src/mind/reconsideration.ts';
import { Planner } from '../../src/planning/planner.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { failedRestart, registry, request, restartAtlas } from '../planning/planner-fixtures.ts';

const planner = new Planner(registry);
const restartLeft = (failed: readonly string[]) => planner.applicableStrategies(request(restartAtlas, { failedStrategies: failed, history: [failedRestart] }));

describe('the reconsideration rule', () => {
  it('replans a failed restart, counting direct as failed', () => {
    const decision = reconsider({
      failure: 'expectation_failed',
      plan: { revision: 1, strategy: 'direct' },
      failedStrategies: [],
      strategiesLeft: restartLeft,
    });
    assert.deepEqual(decision, {
      decision: 'replan',
      failure: 'expectation_failed',
      failedStrategies: ['direct'],
      replansUsed: 0,
      maxReplans: 3,
      nextRevision: 2,
      strategiesLeft: ['diagnose_then_escalate'],
      explanation: 'the direct plan (revision 1) failed (expectation_failed); replanning with diagnose_then_escalate still possible',
    });
  });

  it('abandons when no strategy is left that has not failed', () => {
    const decision = reconsider({
      failure: 'step_failed',
      plan: { revision: 2, strategy: 'diagnose_then_escalate' },
      failedStrategies: ['direct'],
      strategiesLeft: restartLeft,
    });
    assert.equal(decision.decision, 'abandon');
    assert.equal(decision.decision === 'abandon' && decision.reason, 'no_possible_plan');
    assert.deepEqual(decision.failedStrategies, ['direct', 'diagnose_then_escalate']);
  });

  it('abandons at the replan limit, whatever is left', () => {
    const decision = reconsider({
      failure: 'capability_denied',
      plan: { revision: 4, strategy: 'model' },
      failedStrategies: [],
      strategiesLeft: () => ['direct', 'model'],
    });
    assert.equal(decision.decision === 'abandon' && decision.reason, 'replan_limit');
    assert.equal(decision.replansUsed, 3);
    const custom = reconsider({ failure: 'step_failed', plan: { revision: 2, strategy: 'direct', maxReplans: 1 }, failedStrategies: [], strategiesLeft: () => ['diagnose'] });
    assert.equal(custom.decision === 'abandon' && custom.reason, 'replan_limit');
  });

  it('lets a new commitment replan with the same strategy', () => {
    const decision = reconsider({
      failure: 'commitment_added',
      plan: { revision: 1, strategy: 'direct' },
      failedStrategies: [],
      strategiesLeft: (failed) => planner.applicableStrategies(request(restartAtlas, { failedStrategies: failed })),
    });
    assert.equal(decision.decision, 'replan');
    assert.deepEqual(decision.failedStrategies, []);
    assert.deepEqual(decision.decision === 'replan' && decision.strategiesLeft, ['direct']);
  });
});

for (const kind of STORE_KINDS) {
  describe(`recorded reconsiderations (${kind})`, () => {
    const current = useStore(kind);

    it('are events that later planning reads the failed strategies from', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `ops-${newId()}` });
      const intention = await store.intentions.create({ mindId: mind.id, objective: 'restart atlas-worker.service', origin: 'operator' });
      const subject = { mindId: mind.id, intentionId: intention.id, planId: newId(), strategy: 'direct' };
      const first = reconsider({ failure: 'expectation_failed', plan: { revision: 1, strategy: 'direct' }, failedStrategies: [], strategiesLeft: restartLeft });
      const event = await recordReconsideration(store, subject, first);
      assert.equal(event.type, 'reconsideration');
      assert.deepEqual(event.data, {
        decision: 'replan',
        failure: 'expectation_failed',
        strategy: 'direct',
        failed_strategies: ['direct'],
        replans_used: 0,
        max_replans: 3,
        explanation: first.explanation,
        next_revision: 2,
        strategies_left: ['diagnose_then_escalate'],
      });
      const second = reconsider({
        failure: 'step_failed',
        plan: { revision: 2, strategy: 'diagnose_then_escalate' },
        failedStrategies: await failedStrategiesOf(store, intention.id),
        strategiesLeft: restartLeft,
      });
      await recordReconsideration(store, { ...subject, strategy: 'diagnose_then_escalate' }, second);
      assert.deepEqual((await failedStrategiesOf(store, intention.id)).sort(), ['diagnose_then_escalate', 'direct']);
      assert.equal(second.decision === 'abandon' && second.reason, 'no_possible_plan');
    });
  });
}
