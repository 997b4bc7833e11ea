// The model role end to end against a local fake OpenAI-compatible server: a good answer
// becomes a stored plan linked to its recorded call; every failure ends in a recorded,
// explained planning failure, never an exception.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { newId } from '../../src/core/ids.ts';
import { OpenAiModelRole, displayUrl, modelRoleConfigFromEnv, type ModelRoleConfig } from '../../src/drafting/model-role.ts';
import { planIntention, type PlanIntentionResult } from '../../src/drafting/plan-intention.ts';
import { formBelief } from '../../src/mind/beliefs.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { OBJECTIVE, closedPortURL, goodPlan, startFakeModel, type FakeModel } from './planner-fake-model.ts';

const registry = builtinRegistry();

/** A monotonic clock that moves 125 ms per reading: every call takes exactly 125 ms. */
function steadyMeasure(): () => number {
  let t = 1_000;
  return () => (t += 125);
}

function role(config: Partial<ModelRoleConfig> & { baseURL: string }) {
  return new OpenAiModelRole({ model: 'fake-planner', apiKey: 'test-key', timeoutMs: 2_000, ...config }, { measure: steadyMeasure() });
}

async function intentionFor(store: Store, requireApproval = false) {
  const mind = await store.minds.create({ name: `ops-${newId()}` });
  const formed = await formIntention(store, { mindId: mind.id, objective: OBJECTIVE, origin: 'operator', requireApproval });
  if (!formed.ok) throw new Error('not formed');
  return formed.intention;
}

function noTrace(message: string) {
  assert.doesNotMatch(message, /\n\s+at /, 'no stack trace in a failure message');
  assert.ok(message.length > 0 && message.length < 500, message);
}

let fake: FakeModel;
before(async () => {
  fake = await startFakeModel();
});
after(async () => {
  await fake.close();
});

describe('model role configuration', () => {
  it('comes from the environment only when both base URL and model are set', () => {
    assert.equal(modelRoleConfigFromEnv({}), null);
    assert.equal(modelRoleConfigFromEnv({ PRAXIS_MODEL_BASE_URL: 'http://127.0.0.1:1/v1' }), null);
    assert.deepEqual(modelRoleConfigFromEnv({ PRAXIS_MODEL_BASE_URL: 'http://127.0.0.1:1/v1', PRAXIS_MODEL: 'qwen', PRAXIS_MODEL_API_KEY: 'k', PRAXIS_MODEL_TIMEOUT_MS: '5000' }), {
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'qwen',
      apiKey: 'k',
      timeoutMs: 5000,
    });
    assert.equal(displayUrl('http://user:secret@models.internal:8080/v1/?token=x'), 'http://models.internal:8080/v1');
  });
});

for (const kind of STORE_KINDS) {
  describe(`the model role (${kind})`, () => {
    const current = useStore(kind);

    async function plan(requireApproval = false, config: Partial<ModelRoleConfig> = {}) {
      const { store } = current();
      const intention = await intentionFor(store, requireApproval);
      const result = await planIntention(store, { registry, model: role({ baseURL: fake.baseURL, ...config }) }, intention.id);
      return { store, intention, result };
    }

    function failure(result: PlanIntentionResult) {
      if (result.status !== 'model_failed') assert.fail(`expected a model failure, got ${JSON.stringify(result).slice(0, 300)}`);
      noTrace(result.message);
      return result;
    }

    async function assertNothingStored(store: Store, intentionId: string, llmCallId: string) {
      assert.deepEqual(await store.plans.listByIntention(intentionId), []);
      assert.equal((await store.intentions.get(intentionId))?.status, 'active', 'the intention is left as it was');
      const rejected = (await store.events.list({ intentionId })).filter((e) => e.type === 'plan_rejected');
      assert.equal(rejected.length, 1);
      assert.equal(rejected[0]!.data.llm_call, llmCallId);
    }

    it('stores a validated plan from the model, linked to the recorded call', async () => {
      fake.next({ kind: 'answer', content: JSON.stringify(goodPlan) });
      const seen = fake.requests.length;
      const { store, intention, result } = await plan();
      assert.equal(result.status, 'planned', JSON.stringify(result).slice(0, 400));
      if (result.status !== 'planned') return;
      assert.equal(result.strategy, 'model');
      assert.equal(result.plan.origin, 'model');
      assert.equal(result.plan.status, 'validated');
      assert.equal(result.plan.strategy, 'model');
      assert.deepEqual(
        result.plan.steps.map((s) => [s.key, s.capability, s.target]),
        [
          ['D1', 'host.disk.usage', '/var'],
          ['S1', '', ''],
        ],
      );
      assert.equal(result.plan.llmCall, result.llmCallId);
      assert.deepEqual(
        result.plan.alternatives.map((a) => [a.strategy, a.score, a.selected, a.estimate.tokens]),
        [['model', 0.499, true, 366]],
      );

      const call = await store.llmCalls.get(result.llmCallId!);
      assert.ok(call);
      assert.deepEqual(
        {
          model: call.model,
          baseUrl: call.baseUrl,
          role: call.role,
          outcome: call.outcome,
          prompt: call.promptTokens,
          completion: call.completionTokens,
          latency: call.latencyMs,
          finish: call.finishReason,
          error: call.error,
        },
        { model: 'fake-planner', baseUrl: fake.baseURL, role: 'plan', outcome: 'answered', prompt: 321, completion: 45, latency: 125, finish: 'stop', error: '' },
      );
      assert.equal(call.intentionId, intention.id);
      assert.equal(call.response, JSON.stringify(goodPlan));
      assert.deepEqual(await store.llmCalls.listByIntention(intention.id), [call]);

      const asked = fake.requests[seen]!;
      assert.equal(asked.authorization, 'Bearer test-key');
      assert.equal(asked.body.model, 'fake-planner');
      assert.equal(asked.body.messages[0]!.role, 'system');
      const payload = JSON.parse(asked.body.messages[1]!.content);
      assert.equal(payload.intention.objective, OBJECTIVE);
      assert.equal(payload.capabilities.length, registry.list().length);
      assert.deepEqual(payload.capabilities.find((c: { name: string }) => c.name === 'logs.query').policy, { target: '*', decision: 'ask' });
      assert.deepEqual((call.request.messages as unknown[]).length, 2);
    });

    it("ignores a proposal's claims of approval and progress", async () => {
      const claiming = {
        ...goodPlan,
        approved: true,
        require_approval: false,
        steps: [{ key: 'P1', title: 'Restart atlas-worker', kind: 'capability', capability: 'service.restart', params: { unit: 'atlas-worker.service' }, approved: true, status: 'completed' }],
      };
      fake.next({ kind: 'answer', content: JSON.stringify(claiming) });
      const { result } = await plan(true);
      assert.equal(result.status, 'planned');
      if (result.status !== 'planned') return;
      assert.equal(result.plan.requireApproval, true, "the intention's approval requirement stands");
      assert.equal(result.plan.steps[0]!.status, 'pending', 'a claimed completion is not progress');
      const ignored = result.plan.validation.warnings.map((w) => `${w.code} ${w.path}`);
      for (const claim of ['ignored_authority_claim approved', 'ignored_authority_claim steps[0].approved', 'ignored_progress_claim steps[0].status']) {
        assert.ok(ignored.includes(claim), `${claim} in ${ignored.join(', ')}`);
      }
      assert.equal(result.plan.alternatives[0]!.estimate.approvals, 1);
    });

    it('stores an invalid proposal only as a draft with its errors', async () => {
      const invalid = { ...goodPlan, steps: [{ key: 'X1', title: 'Run a command', kind: 'capability', capability: 'shell.exec', params: { cmd: 'id' } }] };
      fake.next({ kind: 'answer', content: JSON.stringify(invalid) });
      const { store, result } = await plan();
      assert.equal(result.status, 'draft');
      if (result.status !== 'draft') return;
      assert.equal(result.plan.status, 'draft');
      assert.equal(result.plan.origin, 'model');
      assert.deepEqual(
        result.errors.map((e) => e.code),
        ['unknown_capability'],
      );
      assert.equal(result.plan.statusReason, '1 validation error(s)');
      assert.equal((await store.llmCalls.get(result.llmCallId))?.outcome, 'answered');
      assert.deepEqual(
        (await store.events.list({ planId: result.plan.id })).map((e) => e.type),
        ['plan_created', 'plan_rejected'],
      );
    });

    it("checks a proposal's assumptions against the mind's beliefs, as a submitted plan's: one held too weakly keeps it a draft", async () => {
      const { store } = current();
      const intention = await intentionFor(store);
      const weak = await formBelief(store, { mindId: intention.mindId, statement: 'the export volume is /var', confidence: 0.3 });
      assert.ok(weak.ok);
      const assuming = (beliefId: string) => ({ ...goodPlan, assumptions: [{ statement: 'the export writes to /var', belief_id: beliefId, min_confidence: 0.7 }] });

      fake.next({ kind: 'answer', content: JSON.stringify(assuming(weak.belief.id)) });
      const refused = await planIntention(store, { registry, model: role({ baseURL: fake.baseURL }) }, intention.id);
      assert.equal(refused.status, 'draft');
      if (refused.status !== 'draft') return;
      assert.equal(refused.plan.status, 'draft');
      assert.deepEqual(
        refused.errors.map((e) => [e.code, e.path]),
        [['assumption_below_confidence', 'assumptions[0].min_confidence']],
      );

      const other = await intentionFor(store);
      const held = await formBelief(store, { mindId: other.mindId, statement: 'the nightly export needs 2 GiB', confidence: 0.9 });
      assert.ok(held.ok);
      fake.next({ kind: 'answer', content: JSON.stringify(assuming(held.belief.id)) });
      const stored = await planIntention(store, { registry, model: role({ baseURL: fake.baseURL }) }, other.id);
      assert.equal(stored.status, 'planned', JSON.stringify(stored).slice(0, 300));
    });

    it('ends a malformed answer in a recorded failure', async () => {
      fake.next({ kind: 'answer', content: '{"objective": "x", "steps": [ {"key": "A1",' });
      const { store, intention, result } = await plan();
      const failed = failure(result);
      assert.equal(failed.outcome, 'malformed');
      assert.equal(failed.retryable, false);
      assert.match(failed.message, /^the answer is not valid JSON: /);
      const call = await store.llmCalls.get(failed.llmCallId);
      assert.equal(call?.outcome, 'malformed');
      assert.equal(call?.error, failed.message);
      assert.equal(call?.response, '{"objective": "x", "steps": [ {"key": "A1",');
      await assertNothingStored(store, intention.id, failed.llmCallId);
    });

    it('ends a proposal whose steps no row can hold as written (a kind outside the vocabulary, a key twice, a fractional max_attempts) in a recorded malformed failure', async () => {
      const [read, summary] = goodPlan.steps;
      const answers: [what: string, steps: unknown[], path: string][] = [
        ['kind', [read, { ...summary, kind: 'bogus' }], 'steps[1].kind'],
        ['key', [read, { ...summary, key: 'D1' }], 'steps[1].key'],
        ['max_attempts', [{ ...read, max_attempts: 1.5 }, summary], 'steps[0].max_attempts'],
      ];
      for (const [what, steps, path] of answers) {
        const content = JSON.stringify({ ...goodPlan, steps });
        fake.next({ kind: 'answer', content });
        const { store, intention, result } = await plan();
        const failed = failure(result);
        assert.equal(failed.outcome, 'malformed', what);
        assert.equal(failed.retryable, false);
        assert.ok(failed.message.startsWith('not stored, not even as a draft: ') && failed.message.endsWith(`(${path})`), failed.message);
        const call = await store.llmCalls.get(failed.llmCallId);
        assert.equal(call?.outcome, 'malformed', 'the call is recorded as what it came to, not as answered');
        assert.equal(call?.response, content);
        await assertNothingStored(store, intention.id, failed.llmCallId);
        const rejected = (await store.events.list({ intentionId: intention.id })).find((e) => e.type === 'plan_rejected');
        assert.equal(rejected?.data.outcome, 'malformed');
      }
    });

    it('keeps a model plan that repeats a restart which failed in an earlier revision as a draft, never run', async () => {
      const unit = 'atlas-worker.service';
      const restart = { ...goodPlan, steps: [{ key: 'P1', title: 'Restart atlas-worker', kind: 'capability', capability: 'service.restart', params: { unit } }] };
      fake.next({ kind: 'answer', content: JSON.stringify(restart) });
      const { store, intention, result } = await plan();
      assert.equal(result.status, 'planned', JSON.stringify(result).slice(0, 300));
      if (result.status !== 'planned') return;
      const p1 = result.plan.steps[0]!;
      assert.ok(await store.steps.move('promote', p1.id, 'pending'));
      assert.ok(await store.steps.move('fail', p1.id, 'ready', { error: 'the restart failed' }));
      assert.ok(await store.plans.transition(result.plan.id, 'validated', 'failed'));

      // Asked again (the model strategy not counted as failed), it answers the same restart.
      fake.next({ kind: 'answer', content: JSON.stringify({ ...restart, steps: [{ ...restart.steps[0], key: 'R1' }] }) });
      const again = await planIntention(store, { registry, model: role({ baseURL: fake.baseURL }) }, intention.id, { failedStrategies: [] });
      assert.equal(again.status, 'draft', JSON.stringify(again).slice(0, 300));
      if (again.status !== 'draft') return;
      assert.equal(again.plan.revision, 2);
      assert.equal(again.plan.status, 'draft');
      assert.deepEqual(
        again.errors.map((e) => [e.code, e.path]),
        [['repeated_failed_write', 'steps[0].capability']],
      );
      assert.match(again.errors[0]!.message, /^step "R1" repeats service\.restart on "atlas-worker\.service", which P1 of revision 1 did, and it failed/);
      assert.deepEqual(again.plan.validation.errors, again.errors);
    });

    it('ends a prose refusal in a recorded failure', async () => {
      fake.next({ kind: 'answer', content: "I'm sorry, I can't help with that." });
      const { store, intention, result } = await plan();
      const failed = failure(result);
      assert.equal(failed.outcome, 'refused');
      assert.equal(failed.message, `the model answered in prose instead of a plan: "I'm sorry, I can't help with that."`);
      assert.equal((await store.llmCalls.get(failed.llmCallId))?.outcome, 'refused');
      await assertNothingStored(store, intention.id, failed.llmCallId);
    });

    it('ends an API-level refusal in a recorded failure', async () => {
      fake.next({ kind: 'refusal', refusal: 'I cannot assist with operating servers.' });
      const { store, intention, result } = await plan();
      const failed = failure(result);
      assert.equal(failed.outcome, 'refused');
      assert.equal(failed.message, 'the model refused: I cannot assist with operating servers.');
      await assertNothingStored(store, intention.id, failed.llmCallId);
    });

    it('records a reply whose finish reason and refusal carry control characters (PostgreSQL refuses a NUL)', async () => {
      fake.next({ kind: 'answer', content: "I'm sorry.", finishReason: 'stop\u0000x' });
      const prose = await plan();
      const call = await prose.store.llmCalls.get(failure(prose.result).llmCallId);
      assert.equal(call?.finishReason, 'stop\ufffdx');
      fake.next({ kind: 'refusal', refusal: 'I cannot\u0000 help.' });
      const refused = await plan();
      const failed = failure(refused.result);
      assert.equal(failed.outcome, 'refused');
      const recorded = await refused.store.llmCalls.get(failed.llmCallId);
      assert.equal(recorded?.outcome, 'refused');
      assert.doesNotMatch(recorded?.error ?? '', /\u0000/);
      await assertNothingStored(refused.store, refused.intention.id, failed.llmCallId);
    });

    it('ends an HTTP 500 in a recorded, retryable failure', async () => {
      fake.next({ kind: 'status', status: 500, body: { error: { message: 'the GPU caught fire', type: 'server_error' } } });
      const { store, intention, result } = await plan();
      const failed = failure(result);
      assert.equal(failed.outcome, 'http_error');
      assert.equal(failed.retryable, true);
      assert.match(failed.message, /^the model server answered HTTP 500: /);
      const call = await store.llmCalls.get(failed.llmCallId);
      assert.equal(call?.statusCode, 500);
      assert.equal(call?.response, null);
      await assertNothingStored(store, intention.id, failed.llmCallId);
    });

    it('ends a timeout in a recorded, retryable failure', async () => {
      fake.next({ kind: 'hang' });
      const { store, intention, result } = await plan(false, { timeoutMs: 300 });
      const failed = failure(result);
      assert.equal(failed.outcome, 'timeout');
      assert.equal(failed.retryable, true);
      assert.equal(failed.message, 'the model did not answer within 300 ms');
      assert.equal((await store.llmCalls.get(failed.llmCallId))?.outcome, 'timeout');
      await assertNothingStored(store, intention.id, failed.llmCallId);
    });

    it('ends an unreachable server in a recorded, retryable failure', async () => {
      const nowhere = await closedPortURL();
      const { store, intention, result } = await plan(false, { baseURL: nowhere });
      const failed = failure(result);
      assert.equal(failed.outcome, 'unreachable');
      assert.equal(failed.retryable, true);
      assert.match(failed.message, /^the model server at http:\/\/127\.0\.0\.1:\d+\/v1 could not be reached \(ECONNREFUSED\)$/);
      const call = await store.llmCalls.get(failed.llmCallId);
      assert.equal(call?.baseUrl, nowhere);
      await assertNothingStored(store, intention.id, failed.llmCallId);
    });

    it('is not asked when a deterministic strategy applies, nor again once the model strategy failed', async () => {
      const { store } = current();
      const seen = fake.requests.length;
      const mind = await store.minds.create({ name: `ops-${newId()}` });
      const formed = await formIntention(store, { mindId: mind.id, objective: 'investigate nginx.service', origin: 'operator' });
      const result = await planIntention(store, { registry, model: role({ baseURL: fake.baseURL }) }, formed.ok ? formed.intention.id : '');
      assert.equal(result.status === 'planned' && result.strategy, 'diagnose');
      const intention = await intentionFor(store);
      const spent = await planIntention(store, { registry, model: role({ baseURL: fake.baseURL }) }, intention.id, { failedStrategies: ['model'] });
      assert.equal(spent.status, 'no_possible_plan');
      assert.equal(fake.requests.length, seen, 'the model was not called');
    });
  });
}
