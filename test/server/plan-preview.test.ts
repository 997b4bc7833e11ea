// Previewing a plan, in the operation and over HTTP, on both stores: every step's decision as
// policy would make it now (four eyes, a deny rule, a live grant, a capability request, checks
// that can observe), the operator attention and budget in all, assumptions checked against the
// mind's beliefs; and nothing written anywhere: every table's row count, events included, is
// the same before and after, and the grant keeps its operations.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { issueToken } from '../../src/access/tokens.ts';
import { previewPlanDraft } from '../../src/operations/plan-preview.ts';
import { parsePlanText } from '../../src/planning/plan-text.ts';
import { TABLE_NAMES } from '../../src/store/schema.ts';
import type { Store } from '../../src/store/index.ts';
import { exampleRestart, ROOT } from '../daemon/process.ts';
import { makeWorld, UNIT, type World } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { serverFor } from './support.ts';

const admin = { tokenId: null, operator: 'adam', role: 'admin' as const, mindId: null };

function diagnosePlan(): Record<string, unknown> {
  const parsed = parsePlanText(readFileSync(`${ROOT}/examples/diagnose-atlas-worker.yaml`, 'utf8'), 'yaml');
  assert.ok(parsed.ok);
  return parsed.value as Record<string, unknown>;
}

async function everyCount(store: Store): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLE_NAMES) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

/** Four eyes on restarts, disk reads denied, and a live grant of log reads on the unit. */
async function policedMind(world: World) {
  const { store, mind, service } = world;
  await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 2 });
  await store.policyRules.set({ mindId: mind.id, capability: 'host.disk.usage', targetPattern: '*', decision: 'deny', approvers: 1 });
  const raised = await service.requestCapability({
    mindId: mind.id,
    origin: 'test',
    capability: 'logs.query',
    targetPattern: UNIT,
    durationSeconds: 3600,
    maxOperations: 5,
    reason: 'read why it fails',
    risk: 'identifiers',
    mitigation: 'masked',
    fallback: 'ask',
    batchKey: 'b',
  });
  assert.equal(raised.status, 'raised');
  if (raised.status !== 'raised') throw new Error('no request');
  const granted = await service.grant(raised.requestId, 'olga');
  assert.equal(granted.status, 'granted');
  const grant = (await store.grants.listLive(mind.id, world.clock.now()))[0]!;
  const belief = await store.beliefs.create({ mindId: mind.id, statement: 'atlas-worker recovers from a restart', confidence: 0.7 });
  return { grant, belief };
}

for (const kind of STORE_KINDS) {
  describe(`previewing a plan (${kind})`, () => {
    const current = useStore(kind);

    it('says what each step would meet now and what the plan would cost operators, writing nothing', async (t) => {
      const world = await makeWorld(current(), { simulated: true });
      t.after(() => world.host?.remove());
      const { store, registry, mind } = world;
      const { grant, belief } = await policedMind(world);
      const before = await everyCount(store);

      const restart = { ...exampleRestart(), assumptions: [{ statement: belief.statement, belief_id: belief.id, min_confidence: 0.5 }] };
      const a = await previewPlanDraft(store, registry, admin, mind.name, restart);
      assert.equal(a.valid, true, JSON.stringify(a.errors));
      assert.deepEqual(a.budget, { invocations: 10, approvals: 1, wall_seconds: 300 });
      assert.equal(a.within_budget, true);
      const [p1, v1] = a.steps;
      assert.deepEqual([p1!.key, p1!.decision, p1!.source, p1!.needs, p1!.approvals, p1!.target], ['P1', 'ask', 'rule', 'two_approvals', 2, UNIT]);
      assert.deepEqual(
        p1!.checks.map((c) => [c.role, c.capability, c.decision, c.observable]),
        [['precondition', 'service.status', 'allow', true]],
      );
      assert.deepEqual([v1!.key, v1!.needs, v1!.checks[0]!.capability, v1!.checks[0]!.observable], ['V1', 'nothing', 'service.status', true]);
      assert.deepEqual(p1!.uses.invocations, 2, 'the restart and its precondition');
      assert.deepEqual(a.attention, { approval_requests: 1, operator_decisions: 2, capability_requests: 0, grant_operations: 0, blocked_steps: [] });
      assert.equal(a.would_start, true);

      const b = await previewPlanDraft(store, registry, admin, mind.id, diagnosePlan());
      const byKey = Object.fromEntries(b.steps.map((s) => [s.key, s]));
      assert.deepEqual([byKey.S0!.decision, byKey.S0!.source, byKey.S0!.needs], ['allow', 'default', 'nothing']);
      assert.deepEqual([byKey.D0!.decision, byKey.D0!.needs], ['deny', 'refused']);
      assert.deepEqual([byKey.R1!.decision, byKey.R1!.needs, byKey.R1!.capability, byKey.R1!.target], ['none', 'grant', 'logs.query', UNIT]);
      assert.deepEqual([byKey.L1!.decision, byKey.L1!.source, byKey.L1!.grant], ['allow', 'grant', { id: grant.id, operations_left: 5 }]);
      assert.deepEqual([byKey.S1!.decision, byKey.S1!.needs], ['none', 'nothing']);
      assert.deepEqual(b.attention, { approval_requests: 0, operator_decisions: 1, capability_requests: 1, grant_operations: 1, blocked_steps: ['D0'] });
      assert.equal(b.would_start, false);

      const weak = await previewPlanDraft(store, registry, admin, mind.name, { ...restart, assumptions: [{ statement: 's', belief_id: belief.id, min_confidence: 0.9 }] });
      assert.equal(weak.valid, false);
      assert.deepEqual(
        weak.errors.map((e) => [e.code, e.path]),
        [['assumption_below_confidence', 'assumptions[0].min_confidence']],
      );
      assert.equal(weak.would_start, false);
      await assert.rejects(previewPlanDraft(store, registry, admin, mind.name, ['not', 'a', 'plan']), /a plan must be an object/);

      assert.deepEqual(await everyCount(store), before, 'a preview writes nothing');
      assert.equal((await store.grants.get(grant.id))?.operationsLeft, 5);
    });

    it('over HTTP: an agent previews for its own mind only, and the store is unchanged', async (t) => {
      const world = await makeWorld(current(), { simulated: true });
      t.after(() => world.host?.remove());
      await policedMind(world);
      const other = await world.store.minds.create({ name: `other-${world.mind.id.slice(-6)}` });
      const agent = (await issueToken(world.store, { operator: 'model', role: 'agent', mindId: world.mind.id })).token;
      const app = await serverFor(world);
      try {
        const post = (mind: string, payload: unknown) =>
          app.inject({ method: 'POST', url: `/api/v1/minds/${mind}/plans/preview`, headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json' }, payload: payload as object });
        const before = await everyCount(world.store);
        const answer = await post(world.mind.name, exampleRestart());
        assert.equal(answer.statusCode, 200, answer.body);
        const body = answer.json();
        assert.equal(body.steps[0].needs, 'two_approvals');
        assert.equal(body.mind.name, world.mind.name);
        assert.equal((await post(other.name, exampleRestart())).statusCode, 404);
        const notAPlan = await post(world.mind.name, [1, 2]);
        assert.equal(notAPlan.statusCode, 400);
        assert.equal(notAPlan.json().error.problems[0].code, 'malformed_input');
        // An empty JSON body is no plan at all: refused by the preview, and stored as nothing (it
        // was read as a plan with every field missing, and kept as a draft with its intention).
        const empty = (path: string) =>
          app.inject({ method: 'POST', url: `/api/v1/minds/${world.mind.name}/${path}`, headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json' }, payload: '' });
        assert.equal((await empty('plans/preview')).statusCode, 400);
        const submitted = await empty('plans');
        assert.equal(submitted.statusCode, 422, submitted.body);
        assert.equal(submitted.json().error.code, 'not_stored');
        assert.deepEqual(await everyCount(world.store), before);
      } finally {
        await app.close();
      }
    });
  });
}
