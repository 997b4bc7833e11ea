import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import { planIntention } from '../../src/drafting/plan-intention.ts';
import { formBelief } from '../../src/mind/beliefs.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import { parsePlanText } from '../../src/planning/plan-text.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

function example(path: string): unknown {
  const parsed = parsePlanText(readFileSync(path, 'utf8'), path.endsWith('.json') ? 'json' : 'yaml');
  assert.ok(parsed.ok);
  return parsed.value;
}

for (const kind of STORE_KINDS) {
  describe(`submitting plans (${kind})`, () => {
    const current = useStore(kind);

    it('stores a valid plan as validated, with derived targets and the computed estimate', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: 'ops' });
      const result = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: example('examples/diagnose-atlas-worker.yaml'), origin: 'operator' });
      assert.ok(result.stored);
      assert.equal(result.plan.status, 'validated');
      assert.equal(result.plan.origin, 'operator');
      assert.equal(result.intention.objective, 'Find out why atlas-worker.service keeps failing');
      assert.deepEqual(
        result.plan.steps.map((s) => [s.key, s.target, s.status]),
        [
          ['S0', 'atlas-worker.service', 'pending'],
          ['M0', 'host', 'pending'],
          ['D0', '/var', 'pending'],
          ['R1', '', 'pending'],
          ['L1', 'atlas-worker.service', 'pending'],
          ['S1', '', 'pending'],
        ],
      );
      assert.deepEqual(result.plan.estimate, result.assessment.estimate);
      const events = await store.events.list({ planId: result.plan.id });
      assert.deepEqual(
        events.map((e) => e.type),
        ['plan_created', 'plan_validated'],
      );
    });

    it('keeps an invalid plan as a draft with its errors', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: 'ops-drafts' });
      const result = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: example('examples/invalid/model-claims-authority.json'), origin: 'model' });
      assert.ok(result.stored);
      assert.equal(result.plan.status, 'draft');
      assert.deepEqual(result.plan.validation.errors.map((e) => e.code).sort(), ['check_not_read_only', 'invalid_params', 'non_idempotent_retry', 'verify_without_expectation']);
      assert.ok(result.plan.validation.warnings.some((w) => w.code === 'ignored_authority_claim' && w.path === 'approved'));
      // The claimed `require_approval: false` did not become part of the plan.
      assert.equal(result.plan.steps[0]!.requireApproval, false);
      assert.equal(result.plan.steps[0]!.status, 'pending');
      const events = await store.events.list({ planId: result.plan.id });
      assert.deepEqual(
        events.map((e) => e.type),
        ['plan_created', 'plan_rejected'],
      );
    });

    it("checks assumptions that name a belief against the mind's beliefs as they are now", async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: 'ops-assumes' });
      const formed = await formBelief(store, { mindId: mind.id, statement: 'atlas-worker recovers from a restart', confidence: 0.4 });
      assert.ok(formed.ok);
      const { belief } = formed;
      const assuming = (beliefId: string, min: number) => {
        const plan = example('examples/restart-atlas-worker.json') as { assumptions: unknown[] };
        return { ...plan, assumptions: [{ statement: 'atlas-worker recovers from a restart', belief_id: beliefId, min_confidence: min }] };
      };
      const held = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: assuming(belief.id, 0.3), origin: 'operator', authoredBy: 'alice' });
      assert.ok(held.stored);
      assert.equal(held.plan.status, 'validated');
      const weak = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: assuming(belief.id, 0.5), origin: 'operator', authoredBy: 'alice' });
      assert.ok(weak.stored);
      assert.equal(weak.plan.status, 'draft', 'a belief held below the minimum keeps the plan a draft');
      assert.deepEqual(
        weak.plan.validation.errors.map((e) => [e.code, e.path]),
        [['assumption_below_confidence', 'assumptions[0].min_confidence']],
      );
      const missing = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: assuming('0190f1c2-0000-7000-8000-00000000beef', 0.1), origin: 'model' });
      assert.ok(missing.stored);
      assert.equal(missing.plan.status, 'draft');
      assert.deepEqual(
        missing.plan.validation.errors.map((e) => [e.code, e.path]),
        [['assumption_belief_missing', 'assumptions[0].belief_id']],
      );
    });

    it("refuses, storing nothing, a draft whose steps no plan_steps row can hold as written: each column's rule, with its validation error", async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: 'ops-unstorable' });
      const read = (key: string, over: Record<string, unknown> = {}) => ({ key, title: `read ${key}`, kind: 'capability', capability: 'service.status', params: { unit: 'atlas.service' }, ...over });
      const cases: [what: string, steps: unknown[], problems: [code: string, path: string][]][] = [
        ['a kind outside the vocabulary', [read('S1'), read('S2', { kind: 'bogus' })], [['unknown_kind', 'steps[1].kind']]],
        ['a kind that is no text', [read('S1', { kind: 7 })], [['invalid_type', 'steps[0].kind']]],
        ['a key used twice', [read('S1'), read('S1')], [['duplicate_key', 'steps[1].key']]],
        // Each becomes the empty key: reported as a type error, and no row could hold the second.
        [
          'two keys that are no text',
          [read('S1', { key: 5 }), read('S2', { key: 6 })],
          [
            ['invalid_type', 'steps[0].key'],
            ['invalid_type', 'steps[1].key'],
          ],
        ],
        ['a fractional max_attempts', [read('S1', { max_attempts: 1.5 })], [['invalid_max_attempts', 'steps[0].max_attempts']]],
        ['a huge max_attempts', [read('S1', { max_attempts: 1e300 })], [['invalid_max_attempts', 'steps[0].max_attempts']]],
        // A whole number SQLite would keep and PostgreSQL's integer would not: refused on both.
        ['a max_attempts beyond a 32-bit integer', [read('S1', { max_attempts: 3_000_000_000 })], [['invalid_max_attempts', 'steps[0].max_attempts']]],
        ['a negative one beyond it', [read('S1', { max_attempts: -3_000_000_000 })], [['invalid_max_attempts', 'steps[0].max_attempts']]],
      ];
      const formed = await store.intentions.create({ mindId: mind.id, objective: 'read atlas', origin: 'operator' });
      for (const [what, steps, problems] of cases) {
        for (const target of [{}, { intentionId: formed.id }]) {
          for (const origin of ['model', 'operator'] as const) {
            const result = await submitPlan(store, builtinRegistry(), { mindId: mind.id, origin, input: { objective: 'read atlas', steps }, ...target });
            assert.equal(result.stored, false, `${what}: stored`);
            if (result.stored) continue;
            assert.match(result.reason, /^not stored, not even as a draft: a step's kind, key or max_attempts cannot be stored as written \(steps\[\d\]\./, what);
            assert.equal(result.assessment.draft, null);
            assert.deepEqual(
              result.assessment.errors.map((e) => [e.code, e.path]),
              problems,
              what,
            );
          }
        }
      }
      // Nothing of any of them: no intention formed, no plan, no event.
      assert.deepEqual(
        (await store.intentions.listByMind(mind.id)).map((i) => i.id),
        [formed.id],
      );
      assert.deepEqual(await store.plans.listByMind(mind.id), []);
      assert.deepEqual(await store.events.list({ mindId: mind.id }), []);

      // A max_attempts a row holds is kept, as a draft with the same error; so is one keyless step.
      const kept = await submitPlan(store, builtinRegistry(), { mindId: mind.id, origin: 'model', input: { objective: 'read atlas', steps: [read('S1', { max_attempts: 11 }), read('', {})] } });
      assert.ok(kept.stored);
      assert.equal(kept.plan.status, 'draft');
      assert.deepEqual(
        kept.plan.validation.errors.map((e) => [e.code, e.path]),
        [
          ['invalid_key', 'steps[1].key'],
          ['invalid_max_attempts', 'steps[0].max_attempts'],
        ],
      );
      assert.deepEqual(
        kept.plan.steps.map((s) => [s.key, s.maxAttempts]),
        [
          ['S1', 11],
          ['', 1],
        ],
      );
    });

    it("stores a proposal for an intention that has plans as its next revision, superseding the latest with links both ways, so the planner's next revision follows it", async () => {
      const { store } = current();
      const registry = builtinRegistry();
      const mind = await store.minds.create({ name: 'ops-revisions' });
      const unit = 'atlas-worker.service';
      const formed = await formIntention(store, { mindId: mind.id, means: { capability: 'service.restart', target: unit, params: { unit } }, origin: 'operator', requireApproval: true });
      assert.ok(formed.ok);
      const intentionId = formed.intention.id;
      const status = { objective: 'look at atlas-worker', steps: [{ key: 'S1', title: 'Read its status', kind: 'capability', capability: 'service.status', params: { unit } }] };
      // As MCP's propose_plan submits: a model's proposal, only while nothing of the intention runs.
      const propose = (input: unknown) => submitPlan(store, registry, { mindId: mind.id, intentionId, input, origin: 'model', onlyPlan: true, authoredBy: 'agent-a' });
      const plans = () => store.plans.listByIntention(intentionId);

      const first = await propose({ ...status, steps: [{ ...status.steps[0], capability: 'service.statuss' }] });
      assert.ok(first.stored);
      assert.deepEqual([first.plan.revision, first.plan.status, first.plan.supersedes], [1, 'draft', null]);

      const second = await propose(status);
      assert.ok(second.stored);
      assert.deepEqual([second.plan.revision, second.plan.status, second.plan.supersedes], [2, 'validated', first.plan.id]);
      assert.equal(second.plan.requireApproval, true, "the intention's approval requirement holds for a proposal too");
      assert.deepEqual(
        (await plans()).map((p) => [p.revision, p.status, p.supersedes, p.supersededBy]),
        [
          [1, 'superseded', null, second.plan.id],
          [2, 'validated', first.plan.id, null],
        ],
      );
      const replanned = (await store.events.list({ intentionId })).filter((e) => e.type === 'plan_replanned');
      assert.deepEqual(
        replanned.map((e) => [e.data.from, e.data.to, e.data.revision]),
        [[first.plan.id, second.plan.id, 2]],
      );

      // Running, it is not replaced: a proposal (or an operator's plan) for the intention is refused, nothing stored.
      assert.ok(await store.plans.transition(second.plan.id, 'validated', 'executing'));
      for (const only of [true, false]) {
        const refused = await submitPlan(store, registry, { mindId: mind.id, intentionId, input: status, origin: only ? 'model' : 'operator', onlyPlan: only, authoredBy: 'olga' });
        assert.equal(refused.stored, false);
        assert.ok(!refused.stored && 'conflict' in refused && refused.conflict === 'plan_in_progress', JSON.stringify(refused).slice(0, 300));
      }
      assert.equal((await plans()).length, 2);

      // Ended otherwise (an operator cancelled it), it keeps its status and closing time and gains the link.
      const cancelled = await store.plans.transition(second.plan.id, 'executing', 'abandoned', { statusReason: 'cancelled' });
      assert.ok(cancelled?.closedAt);
      const third = await propose(status);
      assert.ok(third.stored);
      assert.deepEqual([third.plan.revision, third.plan.supersedes], [3, second.plan.id]);
      const after = (await plans()).find((p) => p.id === second.plan.id)!;
      assert.deepEqual([after.status, after.supersededBy, after.closedAt?.getTime()], ['abandoned', third.plan.id, cancelled.closedAt.getTime()]);

      // The planner's next revision is the one after the proposal's, and supersedes it.
      const planned = await planIntention(store, { registry, model: null }, intentionId, { revision: 4 });
      assert.equal(planned.status, 'planned', JSON.stringify(planned).slice(0, 300));
      assert.ok(planned.status === 'planned');
      assert.deepEqual([planned.plan.revision, planned.plan.supersedes], [4, third.plan.id]);
      assert.equal((await store.plans.get(third.plan.id))?.status, 'superseded');
    });

    it("names a model's or an agent's plan by the model strategy, whatever it says; an operator's keeps its own", async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: 'ops-strategy' });
      const plan = example('examples/restart-atlas-worker.json') as Record<string, unknown>;
      for (const [origin, stated, strategy, warned] of [
        ['model', 'direct', 'model', true],
        ['model', '', 'model', false],
        ['model', undefined, 'model', false],
        ['model', 'model', 'model', false],
        ['operator', 'direct', 'direct', false],
        ['operator', '', '', false],
      ] as const) {
        const { strategy: _, ...rest } = plan;
        const input = stated === undefined ? rest : { ...rest, strategy: stated };
        const result = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input, origin });
        assert.ok(result.stored);
        assert.equal(result.plan.strategy, strategy, `${origin} stating ${String(stated)}`);
        const warning = result.plan.validation.warnings.find((w) => w.path === 'strategy');
        assert.equal(warning?.code, warned ? 'ignored_provenance_claim' : undefined, `${origin} stating ${String(stated)}`);
        const created = (await store.events.list({ planId: result.plan.id })).find((e) => e.type === 'plan_created');
        assert.equal(created?.data.strategy, strategy);
      }
    });

    it('stores nothing for input that is not a plan or a mind that does not exist', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: 'ops-nothing' });
      const notAPlan = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: ['restart', 'nginx'], origin: 'model' });
      assert.equal(notAPlan.stored, false);
      const noMind = await submitPlan(store, builtinRegistry(), { mindId: '01a23685-c99d-76a1-8d62-7bc08b429e22', input: example('examples/restart-atlas-worker.json'), origin: 'operator' });
      assert.equal(noMind.stored, false);
      assert.equal((await store.intentions.listByMind(mind.id)).length, 0);
    });
  });
}
