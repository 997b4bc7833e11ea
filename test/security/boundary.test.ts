// One input rule where text enters (issue 15, findings 1, 4 and 8): control characters, string,
// array and nesting limits, the step limit and the body size are refused at the HTTP boundary
// with a typed 4xx naming the field, before anything is stored; query numbers are decimal.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INPUT_LIMITS, inputProblems } from '../../src/core/input-limits.ts';
import { MAX_STEPS } from '../../src/core/plan.ts';
import { assessProposal } from '../../src/planning/assess.ts';
import { MAX_REPORTED_ISSUES } from '../../src/planning/findings.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { describeProcedure } from '../../src/mind/procedural-memory.ts';
import { draftOf, step } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld, pendingApproval, type ApiWorld } from '../server/support.ts';

/** What a refused request must not have left behind: the mind's plans, intentions and events. */
async function footprint(api: ApiWorld): Promise<string> {
  const { store, mind } = api.world;
  const plans = await store.plans.listPage({ mindId: mind.id, limit: 1000 });
  const intentions = await store.intentions.listPage(mind.id, { limit: 1000 });
  const events = await store.events.list({ mindId: mind.id, limit: 1000 });
  return JSON.stringify([plans.map((p) => p.id), intentions.map((i) => i.id), events.length]);
}

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = { value };
  return value;
}

const writeStep = (key: string, over: Record<string, unknown> = {}) => ({ ...step(key, { kind: 'capability', capability: 'test.read', params: { name: 'x' } }), ...over });

describe('the input rule (pure)', () => {
  it('names each offending field, and refuses NUL, other controls and lone surrogates, not tab, newline or CR', () => {
    assert.deepEqual(inputProblems({ ok: 'a\tb\nc\r', emoji: '😀' }), []);
    const problems = inputProblems({ objective: 'nul\u0000', steps: [{ title: 'bell\u0007' }], k: '\uD800x' }, 'body');
    assert.deepEqual(
      problems.map((p) => `${p.code} @ ${p.path}`),
      ['control_character @ body.objective', 'control_character @ body.steps[0].title', 'invalid_text @ body.k'],
    );
    assert.deepEqual(
      inputProblems({ 'bad\u0000key': 1 }).map((p) => p.code),
      ['control_character'],
    );
  });

  it('bounds strings, arrays, keys, depth and the number of problems, and never recurses', () => {
    assert.equal(inputProblems('x'.repeat(INPUT_LIMITS.maxStringLength + 1))[0]?.code, 'too_long');
    assert.equal(inputProblems({ d: new Array(INPUT_LIMITS.maxArrayLength + 1).fill('a') })[0]?.path, 'd');
    assert.equal(inputProblems(Object.fromEntries(Array.from({ length: INPUT_LIMITS.maxObjectKeys + 1 }, (_, i) => [`k${i}`, i])))[0]?.code, 'too_many_keys');
    const deep = inputProblems(nested(100_000));
    assert.equal(deep.length, 1);
    assert.equal(deep[0]?.code, 'too_deep');
    const many = inputProblems(Array.from({ length: 500 }, () => '\u0000'));
    assert.equal(many.length, INPUT_LIMITS.maxProblems + 1);
    assert.equal(many.at(-1)?.code, 'more_problems');
    assert.match(many.at(-1)!.message, /^480 more/);
  });

  it('a proposal over the step limit, or breaking the rule, is refused before it is a draft; validation errors are bounded', () => {
    const registry = builtinRegistry();
    const tooMany = assessProposal(draftOf(Array.from({ length: MAX_STEPS + 1 }, (_, i) => step(`S${i}`, { kind: 'capability', capability: 'host.memory.status' }))), registry);
    assert.equal(tooMany.draft, null);
    assert.deepEqual(
      tooMany.errors.map((e) => e.code),
      ['too_many_steps'],
    );
    const nul = assessProposal({ ...draftOf([]), objective: 'nul\u0000' }, registry);
    assert.equal(nul.draft, null);
    assert.equal(nul.errors[0]?.path, 'objective');
    // Thirty steps with several faults each: at most MAX_REPORTED_ISSUES errors and a count of the rest.
    const faulty = assessProposal(
      draftOf(Array.from({ length: MAX_STEPS }, (_, i) => ({ ...step(`S${i}`, { kind: 'capability', capability: 'no.such' }), title: '', depends_on: ['X', 'Y'] }))),
      registry,
    );
    assert.equal(faulty.errors.length, MAX_REPORTED_ISSUES + 1);
    assert.equal(faulty.errors.at(-1)?.code, 'more_errors');
    assert.match(faulty.errors.at(-1)!.message, /^\d+ more errors? not listed$/);
  });
});

describe('procedural memory of text stored before the rule', () => {
  it('a recipe never carries a control character or a lone surrogate, whatever the plan held', () => {
    const procedure = describeProcedure({
      objective: 'nul\u0000 objective\uD800',
      strategy: 'operator',
      revision: 1,
      steps: [{ key: 'S1', kind: 'capability', title: 't\u0007', capability: 'test.read', target: 'x\u0000', status: 'completed', spec: {}, expectation: null }],
    });
    assert.ok(procedure);
    const text = JSON.stringify(procedure);
    assert.deepEqual(inputProblems(procedure), [], text);
    assert.match(procedure.summary, /^To nul\uFFFD objective\uFFFD: run test.read on x\uFFFD\./);
  });
});

for (const kind of STORE_KINDS) {
  describe(`the input rule at the HTTP API (${kind})`, () => {
    const store = useStore(kind);

    it('NUL in an intention objective, a plan objective, spec.value, a note or a cancel reason is a 400 naming the field; nothing is stored', async () => {
      const api = await makeApiWorld(store());
      try {
        const mind = api.world.mind.name;
        const before = await footprint(api);
        const cases: [string, string, unknown, string][] = [
          ['POST', `/api/v1/minds/${mind}/intentions`, { objective: 'nul\u0000' }, 'body.objective'],
          ['POST', `/api/v1/minds/${mind}/plans`, { ...draftOf([writeStep('S1')]), objective: 'nul\u0000' }, 'body.objective'],
          [
            'POST',
            `/api/v1/minds/${mind}/plans`,
            draftOf([
              writeStep('S1', {
                expectation: { statement: 's', confidence: 0.5, within_seconds: 10, check: { capability: 'test.read', params: {}, field: 'f', comparison: 'equals', value: 'v\u0000' } },
              }),
            ]),
            'body.steps[0].expectation.check.value',
          ],
          ['POST', `/api/v1/minds/${mind}/intentions`, { means: { capability: 'test.write', params: { name: 'x\u0001' } } }, 'body.means.params.name'],
          ['POST', `/api/v1/minds/${mind}/preview`, { capability: 'test.read', params: { 'k\u0000': 1 } }, 'body.params["k\\u0000"]'],
        ];
        for (const [method, url, payload, path] of cases) {
          const answer = await api.call('operator', method as 'POST', url, payload);
          assert.equal(answer.status, 400, `${url}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.error.code, 'invalid_input');
          assert.equal(answer.body.error.problems[0].code, 'control_character');
          assert.equal(answer.body.error.problems[0].path, path);
        }
        assert.equal(await footprint(api), before, 'nothing was stored');

        const approval = await pendingApproval(api.world);
        const note = await api.call('operator', 'POST', `/api/v1/approvals/${approval}/approve`, { note: 'ok\u0000' });
        assert.equal(note.status, 400);
        assert.equal(note.body.error.problems[0].path, 'body.note');
        assert.equal((await api.world.store.approvals.get(approval))?.status, 'pending');
        assert.equal(api.world.log.calls.length, 0);

        const { plan } = await api.world.plan(draftOf([step('S1', { kind: 'capability', capability: 'test.read', params: { name: 'x' } })]));
        const cancel = await api.call('operator', 'POST', `/api/v1/plans/${plan.id}/cancel`, { reason: 'because\u0000' });
        assert.equal(cancel.status, 400);
        assert.equal(cancel.body.error.problems[0].path, 'body.reason');
        assert.equal((await api.world.store.plans.get(plan.id))?.status, plan.status);
      } finally {
        await api.app.close();
      }
    });

    it('190,000 depends_on entries, 1,800 steps, 31 steps and 3,000 levels of spec.value are refused quickly with 4xx; nothing is stored', async () => {
      const api = await makeApiWorld(store());
      try {
        const url = `/api/v1/minds/${api.world.mind.name}/plans`;
        const before = await footprint(api);
        const started = Date.now();
        const wide = await api.call('agent', 'POST', url, draftOf([writeStep('S1', { depends_on: new Array(190_000).fill('A') })]));
        assert.equal(wide.status, 400, JSON.stringify(wide.body).slice(0, 300));
        assert.equal(wide.body.error.problems[0].code, 'too_many_items');
        assert.equal(wide.body.error.problems[0].path, 'body.steps[0].depends_on');

        const many = await api.call('agent', 'POST', url, draftOf(Array.from({ length: 1_800 }, (_, i) => writeStep(`S${i}`))));
        assert.equal(many.status, 400, JSON.stringify(many.body).slice(0, 300));
        assert.equal(many.body.error.problems[0].path, 'body.steps');

        const over = await api.call('agent', 'POST', url, draftOf(Array.from({ length: MAX_STEPS + 1 }, (_, i) => writeStep(`S${i}`))));
        assert.equal(over.status, 422, JSON.stringify(over.body).slice(0, 300));
        assert.equal(over.body.error.problems[0].code, 'too_many_steps');

        const deep = await api.call(
          'agent',
          'POST',
          url,
          draftOf([writeStep('S1', { kind: 'verify', capability: '', spec: { verifies: 'S1', field: 'f', comparison: 'equals', value: nested(3_000) } })]),
        );
        assert.equal(deep.status, 400, JSON.stringify(deep.body).slice(0, 300));
        assert.equal(deep.body.error.problems[0].code, 'too_deep');
        assert.match(deep.body.error.problems[0].path, /^body\.steps\[0\]\.spec\.value(\.value)+$/);
        assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
        assert.equal(await footprint(api), before, 'nothing was stored');

        const big = await api.call('agent', 'POST', url, { ...draftOf([writeStep('S1')]), risk: 'x'.repeat(1_100_000) });
        assert.equal(big.status, 413);
        assert.equal(big.body.error.code, 'too_large');
        assert.equal(await footprint(api), before);
      } finally {
        await api.app.close();
      }
    });

    it('query numbers are decimal: ?limit=0x10, 1e1, +5, " 5" and 5.0 are 400 at query.limit; ?limit=16 is read', async () => {
      const api = await makeApiWorld(store());
      try {
        for (const limit of ['0x10', '1e1', '%2B5', '%205', '5.0', '0b11', '']) {
          const answer = await api.call('viewer', 'GET', `/api/v1/minds?limit=${limit}`);
          assert.equal(answer.status, 400, `${limit}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.error.problems[0].path, 'query.limit');
          assert.equal(answer.body.error.problems[0].code, 'invalid_type');
        }
        assert.equal((await api.call('viewer', 'GET', '/api/v1/minds?limit=16')).status, 200);
        const nul = await api.call('viewer', 'GET', '/api/v1/plans?cursor=a%00b');
        assert.equal(nul.status, 400);
        assert.equal(nul.body.error.problems[0].path, 'query.cursor');
      } finally {
        await api.app.close();
      }
    });
  });
}
