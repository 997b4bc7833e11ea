// Abort conditions and summaries at the executor, on both stores: a summary folds failed reads
// in as findings and the plan goes on; a plan stops (plan_aborted naming the condition, then the
// reconsideration rule) only when one of its evaluable conditions holds; words never stop it.
// The diagnosis the planner writes tolerates a failed read and aborts when nothing could be
// observed; its findings (a fatal journal line, a failed unit) re-enter the mind as an
// observation event and beliefs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AbortConditionDraft } from '../../src/core/abort-conditions.ts';
import { planIntention } from '../../src/index.ts';
import { NEW_BELIEF_CONFIDENCE, OBSERVATION_WEIGHT } from '../../src/mind/findings.ts';
import { revisedConfidence } from '../../src/mind/beliefs.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import type { EventRecord, Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, isActive, readStep, step, stepsOf, UNIT, type World, useWorlds } from './support.ts';

async function events(store: Store, query: { planId?: string; intentionId?: string; mindId?: string }): Promise<EventRecord[]> {
  return store.events.list({ ...query, limit: 1000 });
}

function summaryPlan(reads: { key: string; capability: string }[], abort: AbortConditionDraft[]) {
  return draftOf(
    [...reads.map((r) => readStep(r.key, r.capability)), step('S1', { kind: 'internal', title: 'Summarise', depends_on: reads.map((r) => r.key), spec: { action: 'summarise_findings' } })],
    { abort_conditions: abort },
  );
}

for (const kind of STORE_KINDS) {
  describe(`abort conditions and findings (${kind})`, () => {
    const current = useStore(kind);
    const world = useWorlds(current);

    it('a failed read is a finding: the summary runs over what succeeded, the plan completes, nothing aborts', async () => {
      const w = await world();
      await w.allow('test.read');
      await w.allow('test.flaky');
      const observations = ['R1', 'R2'];
      const { plan, intention } = await w.plan(
        summaryPlan(
          [
            { key: 'R1', capability: 'test.read' },
            { key: 'R2', capability: 'test.flaky' },
          ],
          [{ when: 'every_observation_failed', steps: observations }],
        ),
      );
      await w.executor().drain();

      assert.deepEqual(await stepsOf(w.store, plan.id), { R1: 'completed', R2: 'failed', S1: 'completed' });
      const closed = (await w.store.plans.get(plan.id))!;
      assert.equal(closed.status, 'completed');
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'fulfilled');
      const s1 = closed.steps.find((s) => s.key === 'S1')!;
      const observation = s1.observation as { summary: string; findings: { step: string; level: string; text: string }[]; steps: { key: string; status: string }[] };
      assert.match(observation.summary, /Not observed: R2 \(step R2\) failed: .*unavailable/);
      assert.match(observation.summary, /Also seen: R1/);
      assert.deepEqual(
        observation.steps.map((s) => [s.key, s.status]),
        [
          ['R1', 'completed'],
          ['R2', 'failed'],
        ],
      );
      assert.deepEqual(
        observation.findings.map((f) => [f.step, f.level]),
        [
          ['R2', 'failed'],
          ['R1', 'info'],
        ],
      );

      const log = await events(w.store, { planId: plan.id });
      assert.equal(log.filter((e) => e.type === 'plan_aborted').length, 0);
      assert.equal(log.filter((e) => e.type === 'reconsideration').length, 0, 'a folded failure is not the plan failing');
      const observed = log.filter((e) => e.type === 'findings_observed');
      assert.equal(observed.length, 1);
      assert.equal(observed[0]!.stepId, s1.id);
      assert.equal(observed[0]!.data.summary, observation.summary);
    });

    it('every observation failed (in one pass): the plan stops, the summary is cancelled, plan_aborted names the condition', async () => {
      const w = await world();
      await w.allow('test.flaky');
      const { plan, intention } = await w.plan(
        summaryPlan(
          [
            { key: 'R1', capability: 'test.flaky' },
            { key: 'R2', capability: 'test.flaky' },
          ],
          [{ when: 'every_observation_failed', steps: ['R1', 'R2'] }],
        ),
      );
      await w.executor().drain();

      assert.deepEqual(await stepsOf(w.store, plan.id), { R1: 'failed', R2: 'failed', S1: 'cancelled' });
      const closed = (await w.store.plans.get(plan.id))!;
      assert.equal(closed.status, 'failed');
      assert.match(closed.statusReason, /^aborted: every observation fails \(R1, R2\) \(none of R1 and R2 succeeded: R1 failed .*; R2 failed /);
      const parent = await w.store.intentions.get(intention.id);
      assert.equal(parent?.status, 'abandoned', 'without a planner no strategy is left');

      const log = await events(w.store, { planId: plan.id });
      const aborted = log.filter((e) => e.type === 'plan_aborted');
      assert.equal(aborted.length, 1, 'named once');
      assert.deepEqual(aborted[0]!.data.condition, { when: 'every_observation_failed', statement: 'every observation fails (R1, R2)', steps: ['R1', 'R2'] });
      assert.equal(aborted[0]!.data.index, 0);
      const order = log.map((e) => e.type);
      assert.ok(order.indexOf('plan_aborted') < order.indexOf('plan_failed'), 'the abort is said before the failure it causes');
      assert.ok(order.includes('reconsideration'));
      assert.equal(log.filter((e) => e.type === 'findings_observed').length, 0, 'no summary ran');
    });

    it('the last observation failing in a later pass stops the plan too (the failing move itself sees it)', async () => {
      const w = await world();
      await w.allow('test.read');
      await w.allow('test.flaky');
      // One step a pass: R1 fails first (a finding, the plan settles on), R2 in the next pass.
      const { plan } = await w.plan(
        summaryPlan(
          [
            { key: 'R1', capability: 'test.flaky' },
            { key: 'R2', capability: 'test.flaky' },
          ],
          [{ when: 'every_observation_failed', steps: ['R1', 'R2'] }],
        ),
      );
      const executor = w.executor({ batch: 1 });
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { R1: 'failed', R2: 'failed', S1: 'cancelled' });
      assert.equal((await events(w.store, { planId: plan.id })).filter((e) => e.type === 'plan_aborted').length, 1);
    });

    it('step_failed stops the plan on that step, keeping the failure kind for the reconsideration', async () => {
      const w = await world();
      await w.allow('test.flaky');
      await w.allow('test.read');
      const draft = draftOf([readStep('W1', 'test.flaky'), readStep('W2', 'test.read', { name: 'w2' }, { depends_on: ['W1'] })], {
        abort_conditions: ['an operator says stop', { when: 'step_failed', step: 'W1', statement: 'the first read fails' }],
      });
      const { plan } = await w.plan(draft);
      await w.executor().drain();
      assert.deepEqual(await stepsOf(w.store, plan.id), { W1: 'failed', W2: 'cancelled' });
      const closed = (await w.store.plans.get(plan.id))!;
      assert.match(closed.statusReason, /^aborted: the first read fails \(W1 failed: /);
      const log = await events(w.store, { planId: plan.id });
      const aborted = log.find((e) => e.type === 'plan_aborted');
      assert.deepEqual(aborted?.data.condition, { when: 'step_failed', statement: 'the first read fails', step: 'W1' });
      assert.equal(aborted?.data.index, 1, 'the words before it were never evaluated');
      assert.equal(log.find((e) => e.type === 'reconsideration')?.data.failure, 'step_failed');
      assert.deepEqual(closed.abortConditions[0], { when: 'display_only', statement: 'an operator says stop' });
    });

    it('words never stop a plan: a failure folded into a summary with only display_only conditions completes', async () => {
      const w = await world();
      await w.allow('test.read');
      await w.allow('test.flaky');
      const { plan } = await w.plan(
        summaryPlan(
          [
            { key: 'R1', capability: 'test.read' },
            { key: 'R2', capability: 'test.flaky' },
          ],
          ['R2 fails'],
        ),
      );
      await w.executor().drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
      assert.equal((await events(w.store, { planId: plan.id })).filter((e) => e.type === 'plan_aborted').length, 0);
    });

    it('expectation_refuted stops a restart whose verify refuted it, and says so', async () => {
      const w = await world({ simulated: true });
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'failed', delay_seconds: 1 } });
      await w.allow('service.restart');
      const draft = draftOf(
        [
          step('P1', { kind: 'capability', title: 'Restart', capability: 'service.restart', params: { unit: UNIT }, expectation: { ...isActive, within_seconds: 20 } }),
          step('V1', { kind: 'verify', title: 'Verify', depends_on: ['P1'], capability: 'service.status', params: { unit: UNIT }, spec: { verifies: 'P1', interval_seconds: 10 } }),
        ],
        { abort_conditions: [{ when: 'expectation_refuted', step: 'V1' }] },
      );
      const { plan } = await w.plan(draft);
      const executor = w.executor();
      await executor.drain();
      for (let i = 0; i < 4; i += 1) {
        w.advance(10);
        await executor.drain();
      }
      assert.deepEqual(await stepsOf(w.store, plan.id), { P1: 'completed', V1: 'failed' });
      const v1 = (await w.store.plans.get(plan.id))!.steps.find((s) => s.key === 'V1')!;
      assert.equal((v1.observation as { verdict?: string }).verdict, 'refuted');
      const log = await events(w.store, { planId: plan.id });
      assert.deepEqual(log.find((e) => e.type === 'plan_aborted')?.data.condition, { when: 'expectation_refuted', statement: 'V1 refutes its expectation', step: 'V1' });
      assert.equal(log.find((e) => e.type === 'reconsideration')?.data.failure, 'expectation_failed');
    });

    describe('the planner diagnosis', () => {
      async function diagnose(w: World): Promise<{ intentionId: string; planId: string }> {
        // The mind may read the unit and its journal, nothing else of the host.
        await w.allow('service.status');
        await w.allow('logs.query');
        await w.store.policyRules.set({ mindId: w.mind.id, capability: 'host.*', targetPattern: '*', decision: 'deny', approvers: 1 });
        const formed = await formIntention(w.store, { mindId: w.mind.id, objective: `Investigate ${UNIT}`, origin: 'operator' });
        assert.ok(formed.ok);
        const planned = await planIntention(w.store, { registry: w.registry }, formed.intention.id);
        assert.equal(planned.status, 'planned');
        const [listed] = await w.store.plans.listByIntention(formed.intention.id);
        const plan = await w.store.plans.get(listed!.id);
        assert.equal(plan?.strategy, 'diagnose');
        assert.deepEqual(
          plan?.steps.map((s) => s.key),
          ['U1', 'L1', 'S1'],
        );
        return { intentionId: formed.intention.id, planId: plan!.id };
      }

      async function run(w: World): Promise<void> {
        const executor = w.executor({ planning: { registry: w.registry } });
        await executor.drain();
        // Reads retry once after a backoff.
        for (let i = 0; i < 3; i += 1) {
          w.advance(30);
          await executor.drain();
        }
      }

      it('tolerates a journal that cannot be read: the unit state is still found and the intention fulfilled', async () => {
        const w = await world({ simulated: true });
        w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed' });
        w.host!.setBehaviour('journalctl', { exit_code: 1, stderr: 'Failed to open journal' });
        const { intentionId, planId } = await diagnose(w);
        await run(w);
        assert.deepEqual(await stepsOf(w.store, planId), { U1: 'completed', L1: 'failed', S1: 'completed' });
        assert.equal((await w.store.plans.get(planId))?.status, 'completed');
        assert.equal((await w.store.intentions.get(intentionId))?.status, 'fulfilled');
        const s1 = (await w.store.plans.get(planId))!.steps.find((s) => s.key === 'S1')!;
        const summary = (s1.observation as { summary: string }).summary;
        assert.match(summary, /^Found: atlas-worker\.service is failed\./);
        assert.match(summary, /Not observed: L1 .* failed/);
      });

      it('finds the fatal journal line and the failed unit, and the mind comes to believe them', async () => {
        const w = await world({ simulated: true });
        w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed' });
        const at = (s: number) => new Date(w.clock.now().getTime() - s * 1000).toISOString();
        w.host!.addJournal(UNIT, [
          { time: at(240), message: 'atlas-worker starting, 8 consumers', priority: 6 },
          { time: at(120), message: 'db connect slow (2.8 s)', priority: 4 },
          { time: at(90), message: 'fatal: pool exhausted for bob@example.com', priority: 2 },
        ]);
        // An earlier belief that the unit was running is weakened by seeing it failed.
        const running = await w.store.beliefs.create({ mindId: w.mind.id, statement: `${UNIT} is active`, confidence: 0.8 });
        const { planId } = await diagnose(w);
        await run(w);
        const s1 = (await w.store.plans.get(planId))!.steps.find((s) => s.key === 'S1')!;
        const observation = s1.observation as { summary: string; findings: { level: string; text: string; belief?: string }[] };
        assert.equal(observation.findings[0]!.level, 'fatal');
        assert.equal(observation.findings[0]!.text, `${UNIT} logged: fatal: pool exhausted for [email]`, 'masked as the journal read masks it');
        assert.match(observation.summary, /fatal: pool exhausted for \[email\]/);
        assert.match(observation.summary, /atlas-worker\.service is failed/);
        assert.doesNotMatch(observation.summary, /starting, 8 consumers/, 'info lines are not findings');

        const beliefs = await w.store.beliefs.listByMind(w.mind.id);
        const expected = revisedConfidence(NEW_BELIEF_CONFIDENCE, 'for', OBSERVATION_WEIGHT);
        const fatal = beliefs.find((b) => b.statement === `${UNIT} logged "fatal: pool exhausted for [email]"`);
        assert.equal(fatal?.confidence, expected);
        assert.equal(fatal?.evidence[0]?.source, `plan_step:${s1.id}`);
        assert.equal(beliefs.find((b) => b.statement === `${UNIT} is failed`)?.confidence, expected);
        const weakened = beliefs.find((b) => b.id === running.id)!;
        assert.equal(weakened.confidence, revisedConfidence(0.8, 'against', OBSERVATION_WEIGHT));

        const log = await events(w.store, { mindId: w.mind.id });
        const observed = log.find((e) => e.type === 'findings_observed');
        assert.equal(observed?.planId, planId);
        assert.ok(((observed?.data.beliefs ?? []) as unknown[]).length >= 3);
        assert.ok(log.filter((e) => e.type === 'belief_updated').length >= 3);
      });

      it('aborts when nothing at all could be observed, and only then gives the intention up', async () => {
        const w = await world({ simulated: true });
        w.host!.setBehaviour('systemctl', { exit_code: 1, stderr: 'Failed to connect to bus' });
        w.host!.setBehaviour('journalctl', { exit_code: 1, stderr: 'Failed to open journal' });
        const { intentionId, planId } = await diagnose(w);
        await run(w);
        assert.deepEqual(await stepsOf(w.store, planId), { U1: 'failed', L1: 'failed', S1: 'cancelled' });
        const closed = (await w.store.plans.get(planId))!;
        assert.equal(closed.status, 'failed');
        assert.match(closed.statusReason, /^aborted: every observation of atlas-worker\.service fails \(U1, L1\)/);
        const aborted = (await events(w.store, { planId })).filter((e) => e.type === 'plan_aborted');
        assert.equal(aborted.length, 1);
        assert.equal((aborted[0]!.data.condition as { when: string }).when, 'every_observation_failed');
        const intention = await w.store.intentions.get(intentionId);
        assert.equal(intention?.status, 'abandoned');
      });
    });
  });
}
