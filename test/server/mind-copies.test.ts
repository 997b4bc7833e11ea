// The API of forks, exports and imports (administrators only), the mind-scoped release of a
// blocked step, and the enforced budget of a plan that stated none. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draftOf, readStep, step } from '../execution/support.ts';
import { STORE_KINDS, useStore, type TestStore } from '../support/stores.ts';
import { makeApiWorld, type ApiWorld } from './support.ts';

async function withApi(ts: TestStore, run: (api: ApiWorld) => Promise<void>): Promise<void> {
  const api = await makeApiWorld(ts);
  try {
    await run(api);
  } finally {
    await api.app.close();
  }
}

for (const kind of STORE_KINDS) {
  describe(`mind copies and mind-scoped plan routes over HTTP (${kind})`, () => {
    const store = useStore(kind);

    it('forks, exports and imports a mind for an admin only; a taken name is a 409 and a bad bundle a 400, both writing nothing', async () => {
      await withApi(store(), async ({ call, world }) => {
        await world.plan(draftOf([readStep('a'), step('w', { kind: 'capability', capability: 'test.write', params: { name: 'svc' }, depends_on: ['a'] })]));
        await world.store.beliefs.create({ mindId: world.mind.id, statement: 'svc is fine', confidence: 0.6 });
        const name = `try-${world.mind.id.slice(-6)}`;
        for (const who of ['operator', 'agent', 'viewer'] as const) {
          assert.equal((await call(who, 'POST', `/api/v1/minds/${world.mind.name}/fork`, { name })).status, 403, who);
          assert.equal((await call(who, 'GET', `/api/v1/minds/${world.mind.name}/export`)).status, 403, who);
        }
        const forked = await call('admin', 'POST', `/api/v1/minds/${world.mind.name}/fork`, { name });
        assert.equal(forked.status, 201, JSON.stringify(forked.body));
        assert.equal(forked.body.mind.status, 'disabled');
        assert.equal(forked.body.mind.sandbox, true);
        assert.deepEqual(forked.body.quiesced, { plans: 1, steps: 2, intentions: 1 });
        assert.equal(forked.body.copied.beliefs, 1);
        const plans = (await call('viewer', 'GET', `/api/v1/minds/${name}/plans`)).body.items;
        assert.deepEqual(
          plans.map((p: { status: string }) => p.status),
          ['blocked'],
        );
        const timeline = (await call('viewer', 'GET', `/api/v1/minds/${name}/timeline`)).body.items.map((e: { type: string }) => e.type);
        assert.equal(timeline[0], 'mind_forked');

        const again = await call('admin', 'POST', `/api/v1/minds/${world.mind.name}/fork`, { name });
        assert.equal(again.status, 409);
        assert.equal(again.body.error.problems[0].code, 'name_taken');
        assert.equal(again.body.error.problems[0].path, 'body.name');
        const badName = await call('admin', 'POST', `/api/v1/minds/${world.mind.name}/fork`, { name: 'no spaces please' });
        assert.equal(badName.status, 400);
        assert.equal(badName.body.error.problems[0].code, 'invalid_name');

        const exported = await call('admin', 'GET', `/api/v1/minds/${world.mind.name}/export`);
        assert.equal(exported.status, 200);
        assert.equal(exported.body.format, 'praxis.mind');
        assert.equal(exported.body.version, 1);
        const imported = await call('admin', 'POST', '/api/v1/minds/import', { bundle: exported.body, name: `imp-${world.mind.id.slice(-6)}` });
        assert.equal(imported.status, 201, JSON.stringify(imported.body));
        assert.equal(imported.body.mind.status, 'active');
        assert.equal((await call('operator', 'POST', '/api/v1/minds/import', { bundle: exported.body, name: 'by-operator' })).status, 403);

        const minds = (await call('admin', 'GET', '/api/v1/minds')).body.items.length;
        const taken = await call('admin', 'POST', '/api/v1/minds/import', { bundle: exported.body });
        assert.equal(taken.status, 409);
        assert.equal(taken.body.error.problems[0].path, 'body.bundle.mind.name');
        const wrongVersion = await call('admin', 'POST', '/api/v1/minds/import', { bundle: { ...exported.body, version: 9 }, name: 'v9' });
        assert.equal(wrongVersion.status, 400);
        assert.deepEqual(
          wrongVersion.body.error.problems.map((p: { code: string; path: string }) => [p.code, p.path]),
          [['unsupported_bundle_version', 'body.bundle.version']],
        );
        assert.equal((await call('admin', 'GET', '/api/v1/minds')).body.items.length, minds);
      });
    });

    it('releases a blocked step through its mind, and answers 404 for a plan of another mind', async () => {
      await withApi(store(), async ({ call, world, other }) => {
        const { plan } = await world.plan(draftOf([readStep('a')]));
        await world.store.steps.move('block', plan.steps[0]!.id, 'pending', { error: 'outcome unknown' });
        const elsewhere = await call('operator', 'POST', `/api/v1/minds/${other.name}/plans/${plan.id}/steps/a/retry`, {});
        assert.equal(elsewhere.status, 404);
        assert.equal((await world.store.steps.get(plan.steps[0]!.id))?.status, 'blocked');
        assert.equal((await call('agent', 'POST', `/api/v1/minds/${world.mind.name}/plans/${plan.id}/steps/a/retry`, {})).status, 403);
        const released = await call('operator', 'POST', `/api/v1/minds/${world.mind.name}/plans/${plan.id}/steps/a/retry`, { note: 'checked' });
        assert.equal(released.status, 200, JSON.stringify(released.body));
        assert.equal(released.body.step.status, 'ready');
        assert.equal((await call('operator', 'POST', `/api/v1/minds/${world.mind.name}/plans/${plan.id}/steps/a/retry`, {})).status, 409);
      });
    });

    it('reads and cancels a plan through its mind, and answers a plan of another mind as a missing one', async () => {
      await withApi(store(), async ({ call, world, other }) => {
        const { plan } = await world.plan(draftOf([readStep('a')]));
        const through = await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/plans/${plan.id}`);
        assert.equal(through.status, 200, JSON.stringify(through.body));
        assert.deepEqual(through.body, (await call('viewer', 'GET', `/api/v1/plans/${plan.id}`)).body);
        assert.equal((await call('agent', 'GET', `/api/v1/minds/${world.mind.id}/plans/${plan.id}`)).status, 200);

        const missing = await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/plans/01a23710-f254-73ae-a073-9b265b75019f`);
        const elsewhere = await call('viewer', 'GET', `/api/v1/minds/${other.name}/plans/${plan.id}`);
        assert.equal(elsewhere.status, 404);
        assert.deepEqual(
          elsewhere.body.error.problems.map((p: { code: string; path: string }) => [p.code, p.path]),
          missing.body.error.problems.map((p: { code: string; path: string }) => [p.code, p.path]),
        );

        const cancelElsewhere = await call('operator', 'POST', `/api/v1/minds/${other.name}/plans/${plan.id}/cancel`, { reason: 'wrong mind' });
        assert.equal(cancelElsewhere.status, 404);
        assert.equal((await call('viewer', 'POST', `/api/v1/minds/${world.mind.name}/plans/${plan.id}/cancel`, { reason: 'no' })).status, 403);
        assert.equal((await world.store.plans.get(plan.id))?.status, plan.status, 'refusals change nothing');
        const cancelled = await call('operator', 'POST', `/api/v1/minds/${world.mind.name}/plans/${plan.id}/cancel`, { reason: 'not needed' });
        assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
        assert.equal(cancelled.body.plan.status, 'abandoned');
        assert.equal((await world.store.plans.get(plan.id))?.status, 'abandoned');
      });
    });

    it('shows the enforced budget of a plan that stated none', async () => {
      await withApi(store(), async ({ call, world }) => {
        const { plan } = await world.plan(draftOf([readStep('a')], { budget: {} }));
        const detail = await call('viewer', 'GET', `/api/v1/plans/${plan.id}`);
        assert.deepEqual(detail.body.plan.budget, { invocations: 20 });
        assert.deepEqual(detail.body.usage.budget, { invocations: 20 });
        const capped = await world.plan(draftOf([readStep('a')], { budget: { invocations: 3, approvals: 0 } }));
        assert.deepEqual((await call('viewer', 'GET', `/api/v1/plans/${capped.plan.id}`)).body.plan.budget, { invocations: 3, approvals: 0 });
      });
    });
  });
}
