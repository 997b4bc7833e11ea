// `praxis plan pause|resume` and `praxis mind pause|resume` against a seeded store, on both
// stores: the pause is recorded with the operator and reason, `praxis plan show` says the plan
// is paused, a second pause is a refusal (exit 1) that changes nothing, and bad input is a usage
// error (exit 2).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { validate } from '../../src/planning/validate.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { praxis, storeEnv } from '../daemon/process.ts';
import { draftOf, step } from '../execution/support.ts';

/** A read of a unit's status through the built-in capability: a plan the CLI's registry knows. */
const restartPlan = draftOf([step('S1', { kind: 'capability', capability: 'service.status', params: { unit: 'atlas-worker.service' } })], { objective: 'Look at atlas-worker' });

async function seed(store: Store, name: string) {
  const mind = await store.minds.create({ name, host: null });
  const intention = await store.intentions.create({ mindId: mind.id, objective: restartPlan.objective, origin: 'operator', authoredBy: 'alice' });
  const validation = validate(restartPlan, builtinRegistry());
  assert.deepEqual(validation.errors, []);
  const plan = await store.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft: restartPlan, validation, status: 'validated', authoredBy: 'alice' });
  return { mind, plan };
}

for (const kind of STORE_KINDS) {
  describe(`praxis plan pause, mind pause (${kind})`, () => {
    const current = useStore(kind);

    it('pauses and resumes a plan, shows it paused, and refuses a second pause', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const { plan } = await seed(store, 'ops-pause');

      const paused = await praxis(['plan', 'pause', plan.id, '--reason', 'change freeze', '--as', 'alice'], env);
      assert.equal(paused.code, 0, paused.stderr);
      assert.match(paused.stdout, new RegExp(`paused plan ${plan.id}\\s+validated\\s+paused by alice`));
      const shown = await praxis(['plan', 'show', plan.id], env);
      assert.match(shown.stdout, /validated \(paused\)/);
      assert.match(shown.stdout, /paused by alice at \S+: change freeze/);

      const again = await praxis(['plan', 'pause', plan.id, '--as', 'bob'], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /already_paused/);
      assert.equal((await store.plans.get(plan.id))?.pause?.by, 'alice', 'the refusal changed nothing');

      const json = JSON.parse((await praxis(['plan', 'resume', plan.id, '--as', 'bob', '--json'], env)).stdout) as { resumed: boolean; plan: { pause: unknown } };
      assert.deepEqual([json.resumed, json.plan.pause], [true, null]);
      const events = await store.events.list({ planId: plan.id, limit: 100 });
      assert.deepEqual(
        events.filter((e) => e.type === 'plan_paused' || e.type === 'plan_resumed').map((e) => [e.type, e.data.operator, e.data.reason]),
        [
          ['plan_paused', 'alice', 'change freeze'],
          ['plan_resumed', 'bob', ''],
        ],
      );
      const notPaused = await praxis(['plan', 'resume', plan.id, '--as', 'bob'], env);
      assert.equal(notPaused.code, 1);
      assert.match(notPaused.stderr, /not_paused/);

      const badId = await praxis(['plan', 'pause', 'nope', '--as', 'bob'], env);
      assert.equal(badId.code, 2);
      assert.match(badId.stderr, /invalid_id/);
    });

    it('pauses and resumes every open plan of a mind', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const { mind, plan } = await seed(store, 'ops-mind-pause');
      const paused = await praxis(['mind', 'pause', mind.name, '--reason', 'incident', '--as', 'alice'], env);
      assert.equal(paused.code, 0, paused.stderr);
      assert.match(paused.stdout, /paused 1 plan of mind ops-mind-pause/);
      assert.equal((await store.plans.get(plan.id))?.pause?.reason, 'incident');
      const nothing = await praxis(['mind', 'pause', mind.name, '--as', 'alice'], env);
      assert.equal(nothing.code, 1);
      assert.match(nothing.stderr, /nothing_to_pause/);
      const resumed = JSON.parse((await praxis(['mind', 'resume', mind.name, '--as', 'alice', '--json'], env)).stdout) as { resumed: string[] };
      assert.deepEqual(resumed.resumed, [plan.id]);
      const unknown = await praxis(['mind', 'pause', 'nobody', '--as', 'alice'], env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown_mind/);
    });
  });
}
