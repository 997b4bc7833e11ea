// executorQueries.approvalScene: what an executor woken by an approval reads before it claims
// the step (one statement on PostgreSQL, each part a JSON value). The records must be the very
// ones the repositories read one by one: timestamps as Dates, JSON parsed, counters as numbers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { seedPlan } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { restartApproval } from './authority/fixtures.ts';

for (const kind of STORE_KINDS) {
  describe(`the approval scene (${kind})`, () => {
    const current = useStore(kind);

    it('reads the request, mind, rules, active commitments, plan with its steps and intention as the repositories do', async () => {
      const { store } = current();
      const { mind, plan, intention } = await seedPlan(store);
      const step = plan.steps[1]!;
      // More than one rule and commitment, so order matters; a released commitment is left out.
      await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: 'web-*', decision: 'ask', approvers: 2 });
      await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: 'db-*', decision: 'deny', approvers: 1 });
      await store.policyRules.set({ mindId: mind.id, capability: 'logs.read', targetPattern: '*', decision: 'allow', approvers: 1 });
      // Last by target, first by capability: the order is the capability's, then the target's.
      await store.policyRules.set({ mindId: mind.id, capability: 'disk.usage', targetPattern: 'zz-*', decision: 'allow', approvers: 1 });
      await store.commitments.create({ mindId: mind.id, capability: 'service.restart', targetPattern: 'pay-*', reason: 'payments are frozen' });
      // Made later, first by target: commitments come in the order they were made.
      await store.commitments.create({ mindId: mind.id, capability: 'service.restart', targetPattern: 'a-*', reason: 'audit' });
      const released = await store.commitments.create({ mindId: mind.id, capability: 'service.restart', targetPattern: 'old-*', reason: 'gone' });
      await store.commitments.release(released.id);
      const approval = await store.approvals.create(restartApproval(mind.id, store.clock, { origin: `plan_step:${step.id}` }));
      await store.approvals.transition(approval.id, 'pending', 'approved', { decidedAt: store.clock.now() });

      const scene = await store.executorQueries.approvalScene(approval.id, mind.id, step.id);
      assert.deepEqual(scene.approval, await store.approvals.get(approval.id));
      assert.deepEqual(scene.mind, await store.minds.get(mind.id));
      assert.deepEqual(scene.rules, await store.policyRules.listByMind(mind.id));
      assert.deepEqual(
        scene.rules.map((r) => r.targetPattern),
        ['zz-*', '*', 'db-*', 'web-*'],
      );
      assert.deepEqual(scene.commitments, await store.commitments.listActive(mind.id));
      assert.deepEqual(
        scene.commitments.map((c) => c.targetPattern),
        ['pay-*', 'a-*'],
      );
      assert.deepEqual(scene.plan, await store.plans.get(plan.id));
      assert.deepEqual(
        scene.plan?.steps.map((s) => s.key),
        plan.steps.map((s) => s.key),
      );
      assert.ok(scene.approval?.createdAt instanceof Date && scene.plan?.steps[0]?.createdAt instanceof Date);
      assert.deepEqual(scene.intention, await store.intentions.get(intention.id));
    });

    it('leaves out what is not there: no request, another mind, an unknown step', async () => {
      const { store } = current();
      const { mind } = await seedPlan(store);
      const scene = await store.executorQueries.approvalScene(newId(), mind.id, newId());
      assert.deepEqual(scene, { approval: undefined, mind: await store.minds.get(mind.id), rules: [], commitments: [], plan: undefined, intention: undefined });
      const nobody = await store.executorQueries.approvalScene(newId(), newId(), newId());
      assert.equal(nobody.mind, undefined);
    });
  });
}
