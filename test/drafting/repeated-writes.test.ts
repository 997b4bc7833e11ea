// A write that failed, or whose expectation was refuted, in an earlier revision of an intention is
// not proposed again by a model or an agent: such a proposal is kept as a draft with an error
// naming the step and the revision, and never runs. An operator may still decide to retry it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const registry = builtinRegistry();
const UNIT = 'atlas-worker.service';

/** The bundled restart plan (P1 restarts the unit, V1 verifies it), for `unit`. */
function restartPlan(unit = UNIT): Record<string, unknown> {
  return JSON.parse(readFileSync('examples/restart-atlas-worker.json', 'utf8').replaceAll(UNIT, unit));
}

const statusPlan = { objective: 'look at atlas-worker', steps: [{ key: 'S1', title: 'Read its status', kind: 'capability', capability: 'service.status', params: { unit: UNIT } }] };

/** An intention whose revision 1, the restart plan, ran and ended failed: `spend` says how its P1 did. */
async function afterARestart(store: Store, spend: (p1: string, planId: string, intentionId: string, mindId: string) => Promise<void>) {
  const mind = await store.minds.create({ name: `ops-${Math.random().toString(36).slice(2, 10)}` });
  const formed = await formIntention(store, { mindId: mind.id, means: { capability: 'service.restart', target: UNIT, params: { unit: UNIT } }, origin: 'operator', authoredBy: 'olga' });
  assert.ok(formed.ok);
  const first = await submitPlan(store, registry, { mindId: mind.id, intentionId: formed.intention.id, input: restartPlan(), origin: 'operator', authoredBy: 'olga' });
  assert.ok(first.stored && first.plan.status === 'validated');
  const p1 = first.plan.steps.find((s) => s.key === 'P1')!;
  assert.ok(await store.steps.move('promote', p1.id, 'pending'));
  await spend(p1.id, first.plan.id, formed.intention.id, mind.id);
  assert.ok(await store.plans.transition(first.plan.id, 'validated', 'failed', { statusReason: 'P1 did not work' }));
  const propose = (input: unknown, origin: 'model' | 'operator' = 'model') =>
    submitPlan(store, registry, { mindId: mind.id, intentionId: formed.intention.id, input, origin, onlyPlan: origin === 'model', authoredBy: origin === 'model' ? 'agent-a' : 'olga' });
  return { mind, intentionId: formed.intention.id, propose };
}

for (const kind of STORE_KINDS) {
  describe(`repeating a write that did not work (${kind})`, () => {
    const current = useStore(kind);

    it("keeps a model's proposal repeating a failed restart of the same unit as a draft naming the step and revision; an operator's retry is allowed", async () => {
      const { store } = current();
      const { intentionId, propose } = await afterARestart(store, async (p1) => {
        assert.ok(await store.steps.move('fail', p1, 'ready', { error: 'the restart failed: Job for atlas-worker.service failed' }));
      });

      const repeated = await propose(restartPlan());
      assert.ok(repeated.stored);
      assert.equal(repeated.plan.status, 'draft', 'never runs');
      assert.equal(repeated.plan.revision, 2);
      const errors = repeated.plan.validation.errors.map((e) => [e.code, e.path]);
      assert.deepEqual(errors, [['repeated_failed_write', 'steps[0].capability']]);
      assert.deepEqual(
        repeated.assessment.errors.map((e) => [e.code, e.path]),
        errors,
        'the submitter is told what was stored',
      );
      const message = repeated.plan.validation.errors[0]!.message;
      assert.match(message, /^step "P1" repeats service\.restart on "atlas-worker\.service", which P1 of revision 1 did, and it failed \(the restart failed: Job for atlas-worker\.service failed\)/);
      const rejected = (await store.events.list({ planId: repeated.plan.id })).find((e) => e.type === 'plan_rejected');
      assert.deepEqual(rejected?.data.codes, ['repeated_failed_write']);

      // Something else is fine: a read of the same unit, a restart of another unit.
      const read = await propose(statusPlan);
      assert.ok(read.stored);
      assert.equal(read.plan.status, 'validated', JSON.stringify(read.plan.validation.errors));
      assert.ok(await store.plans.transition(read.plan.id, 'validated', 'abandoned'));
      const other = await propose(restartPlan('atlas-api.service'));
      assert.ok(other.stored);
      assert.equal(other.plan.status, 'validated', JSON.stringify(other.plan.validation.errors));
      assert.ok(await store.plans.transition(other.plan.id, 'validated', 'abandoned'));

      // The rule is a repeat of the same write, whatever else the plan says: a lone restart too.
      const bare = await propose({ objective: 'restart it', steps: [{ key: 'R9', title: 'Restart', kind: 'capability', capability: 'service.restart', params: { unit: UNIT } }] });
      assert.ok(bare.stored);
      assert.deepEqual(
        bare.plan.validation.errors.map((e) => [e.code, e.path]),
        [['repeated_failed_write', 'steps[0].capability']],
      );

      // An operator may decide to retry.
      const retry = await propose(restartPlan(), 'operator');
      assert.ok(retry.stored);
      assert.equal(retry.plan.status, 'validated', JSON.stringify(retry.plan.validation.errors));
      assert.equal((await store.plans.listByIntention(intentionId)).length, 6);
    });

    it('holds a restart whose expectation was refuted (the step itself completed) to the same rule', async () => {
      const { store } = current();
      const { propose } = await afterARestart(store, async (p1, planId, intentionId, mindId) => {
        const now = store.clock.now();
        const prediction = await store.predictions.create({
          mindId,
          intentionId,
          planId,
          stepId: p1,
          statement: 'atlas-worker is active',
          verification: {},
          confidence: 0.8,
          windowOpensAt: now,
          windowClosesAt: new Date(now.getTime() + 60_000),
        });
        assert.ok(await store.steps.move('complete', p1, 'ready', { predictionId: prediction.id }));
        assert.ok(await store.predictions.resolve(prediction.id, 'refuted', { note: 'the window closed and the check did not hold' }));
      });
      const repeated = await propose(restartPlan());
      assert.ok(repeated.stored);
      assert.equal(repeated.plan.status, 'draft');
      assert.deepEqual(
        repeated.plan.validation.errors.map((e) => e.code),
        ['repeated_failed_write'],
      );
      assert.match(repeated.plan.validation.errors[0]!.message, /which P1 of revision 1 did, and its expectation was refuted/);
    });

    it('lets a model propose again a restart that completed and whose expectation was not refuted', async () => {
      const { store } = current();
      const { propose } = await afterARestart(store, async (p1) => {
        assert.ok(await store.steps.move('complete', p1, 'ready'));
      });
      const again = await propose(restartPlan());
      assert.ok(again.stored);
      assert.equal(again.plan.status, 'validated', JSON.stringify(again.plan.validation.errors));
    });
  });
}
