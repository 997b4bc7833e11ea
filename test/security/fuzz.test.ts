// Property tests over proposals and API bodies (issue 15): whatever a caller sends, Praxis
// answers with a typed refusal or a stored result, never a 500 or a crash, and a refused input
// leaves nothing behind. Runs are seeded and bounded for `npm test`; PRAXIS_FUZZ_RUNS raises the
// count (and PRAXIS_FUZZ_SEED changes the seed) for a longer search.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { inputProblems } from '../../src/core/input-limits.ts';
import { assessProposal } from '../../src/planning/assess.ts';
import { validate } from '../../src/planning/validate.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld, pendingApproval, type ApiWorld } from '../server/support.ts';
import { draftOf, makeWorld, step } from '../execution/support.ts';
import { call, connect, serveMcp, tokenFor } from '../mcp/support.ts';

const SEED = Number(process.env.PRAXIS_FUZZ_SEED ?? 20_261_203);
const RUNS = Number(process.env.PRAXIS_FUZZ_RUNS ?? 0);
const runs = (base: number) => ({ seed: SEED, numRuns: RUNS > 0 ? RUNS : base });
/** Through a server each run costs milliseconds and inputs are large: report the first failure as found, without shrinking. */
const served = (base: number) => ({ ...runs(base), endOnFailure: true });

// Text that tends to break things: controls, NUL, lone surrogates, long runs, JSON-looking text.
const nasty = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'nul\u0000',
    '\u0007',
    '\u001b[31m',
    '\uD800',
    '\uDFFF',
    '\u202E',
    '\u0085',
    'a\tb\nc\r',
    '😀',
    '__proto__',
    'constructor',
    '{"a":1}',
    '../../etc/passwd',
    "'; DROP TABLE plans; --",
  ),
  fc.integer({ min: 60_000, max: 70_000 }).map((n) => 'x'.repeat(n)),
);
const scalar = fc.oneof(nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(nasty, tie('node'), { maxKeys: 4 })),
})).node;
const deepValue = fc.integer({ min: 1, max: 200 }).map((depth) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) v = depth % 2 ? [v] : { value: v };
  return v;
});

const KINDS = ['capability', 'verify', 'monitor', 'wait', 'internal', 'request_capability', 'bogus'];
const CAPABILITIES = ['test.read', 'test.write', 'host.memory.status', 'service.status', 'no.such'];
const stepArb = fc.record(
  {
    key: fc.oneof(fc.constantFrom('S1', 'S2', 'S3', 'A'), nasty),
    title: nasty,
    kind: fc.oneof(fc.constantFrom(...KINDS), nasty),
    capability: fc.oneof(fc.constantFrom(...CAPABILITIES), nasty),
    params: fc.oneof(fc.constant({ name: 'x' }), fc.dictionary(nasty, value, { maxKeys: 3 }), value),
    depends_on: fc.oneof(
      fc.array(fc.constantFrom('S1', 'S2', 'S3', 'A'), { maxLength: 5 }),
      fc.array(nasty, { maxLength: 3 }),
      fc.integer({ min: 1_001, max: 1_200 }).map((n) => new Array(n).fill('S1')),
      value,
    ),
    spec: fc.oneof(fc.dictionary(fc.constantFrom('verifies', 'field', 'comparison', 'value', 'seconds', 'action', 'message', 'request'), fc.oneof(value, deepValue), { maxKeys: 4 }), value),
    expectation: fc.oneof(fc.constant(null), value),
    max_attempts: fc.oneof(fc.integer({ min: -2, max: 12 }), value),
    require_approval: fc.oneof(fc.boolean(), value),
    status: fc.constant('completed'),
    extra: value,
  },
  { requiredKeys: ['key', 'kind'] },
);
const proposalArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        objective: nasty,
        strategy: nasty,
        steps: fc.oneof(
          { weight: 6, arbitrary: fc.array(stepArb, { maxLength: 6 }) },
          {
            weight: 1,
            arbitrary: fc
              .integer({ min: 31, max: 1_900 })
              .map((n) => Array.from({ length: n }, (_, i) => ({ key: `S${i}`, title: 't', kind: 'capability', capability: 'test.read', params: { name: 'x' } }))),
          },
          { weight: 1, arbitrary: value },
        ),
        budget: value,
        estimate: value,
        assumptions: value,
        require_approval: value,
        approved: fc.boolean(),
        risk: nasty,
      },
      { requiredKeys: ['objective', 'steps'] },
    ),
  },
  { weight: 1, arbitrary: value },
  { weight: 1, arbitrary: fc.anything() },
);

describe('fuzz: proposals (pure)', () => {
  const registry = builtinRegistry();

  it('assessing any proposal never throws, bounds its errors, and keeps a draft only of input the rule accepts', () => {
    fc.assert(
      fc.property(proposalArb, (input) => {
        const assessment = assessProposal(input, registry);
        assert.ok(assessment.errors.length <= 51);
        if (assessment.draft) {
          assert.deepEqual(inputProblems(input), [], 'a draft was kept from input the rule refuses');
          assert.ok(JSON.stringify(assessment.draft).length > 0);
          assert.equal(assessment.valid, assessment.errors.length === 0);
        } else {
          assert.equal(assessment.valid, false);
          assert.ok(assessment.errors.length > 0);
        }
      }),
      runs(400),
    );
  });

  it('validating a draft of any shape never throws', () => {
    fc.assert(
      fc.property(value, (draft) => {
        const result = validate(draft as never, registry);
        assert.equal(result.valid, result.errors.length === 0);
      }),
      runs(300),
    );
  });
});

/** The mind's plans, intentions and events, to tell that a refused request left nothing. */
async function footprint(api: ApiWorld): Promise<string> {
  const { store, mind } = api.world;
  const plans = await store.plans.listPage({ mindId: mind.id, limit: 1000 });
  const intentions = await store.intentions.listPage(mind.id, { limit: 1000 });
  const events = await store.events.list({ mindId: mind.id, limit: 1000 });
  const approvals = await store.approvals.list({ mindId: mind.id, limit: 1000 });
  return JSON.stringify([plans.map((p) => p.id), intentions.map((i) => [i.id, i.status]), events.length, approvals.map((a) => [a.id, a.status, a.decisions.length])]);
}

const kind = STORE_KINDS[0]!;

describe(`fuzz: API bodies (${kind})`, () => {
  const store = useStore(kind);

  it('a plan submission answers 201, 400, 413 or 422, never 500; a refusal stores nothing', async () => {
    const api = await makeApiWorld(store());
    try {
      const url = `/api/v1/minds/${api.world.mind.name}/plans`;
      await fc.assert(
        fc.asyncProperty(proposalArb, async (proposal) => {
          const before = await footprint(api);
          const answer = await api.call('agent', 'POST', url, proposal === undefined ? null : proposal);
          assert.ok([201, 400, 413, 415, 422].includes(answer.status), `${answer.status}: ${JSON.stringify(answer.body).slice(0, 400)}`);
          if (answer.status === 422 && answer.body.error?.code === 'invalid_plan') {
            // An invalid plan is refused as a failure but kept as a draft, which it names.
            assert.equal((await api.world.store.plans.get(answer.body.draft.plan_id))?.status, 'draft');
          } else if (answer.status !== 201) {
            assert.equal(typeof answer.body.error?.code, 'string');
            assert.equal(await footprint(api), before, 'a refused proposal left something behind');
          }
        }),
        served(60),
      );
    } finally {
      await api.app.close();
    }
  });

  it('every other body, query and path is answered with a typed 2xx or 4xx, never 500; a 4xx changes nothing', async () => {
    const api = await makeApiWorld(store());
    try {
      const mind = api.world.mind.name;
      const approval = await pendingApproval(api.world);
      const { plan, intention } = await api.world.plan(
        draftOf([step('S1', { kind: 'capability', title: 't', capability: 'test.read', params: { name: 'x' }, max_attempts: 1 })], { objective: 'fuzzed' }),
      );
      const routes: [method: 'POST' | 'PUT' | 'DELETE' | 'GET', path: string][] = [
        ['POST', `/api/v1/minds/${mind}/intentions`],
        ['POST', `/api/v1/minds/${mind}/preview`],
        ['POST', `/api/v1/approvals/${approval}/approve`],
        ['POST', `/api/v1/approvals/${approval}/deny`],
        ['POST', `/api/v1/plans/${plan.id}/cancel`],
        ['POST', `/api/v1/intentions/${intention.id}/cancel`],
        ['POST', `/api/v1/plans/${plan.id}/steps/S1/retry`],
        ['PUT', `/api/v1/minds/${mind}/policy`],
        ['DELETE', `/api/v1/minds/${mind}/policy`],
        ['POST', '/api/v1/minds'],
      ];
      const field = fc.constantFrom('objective', 'means', 'capability', 'params', 'note', 'reason', 'target_pattern', 'decision', 'approvers', 'name', 'host', 'sandbox', 'require_approval', 'bogus');
      const body = fc.oneof(
        { weight: 6, arbitrary: fc.dictionary(field, value, { maxKeys: 4 }) },
        { weight: 2, arbitrary: fc.record({ note: nasty }, { requiredKeys: [] }) },
        { weight: 2, arbitrary: fc.record({ reason: nasty }) },
        { weight: 2, arbitrary: fc.record({ objective: nasty }) },
        { weight: 2, arbitrary: fc.record({ means: fc.record({ capability: fc.constantFrom(...CAPABILITIES), params: fc.dictionary(nasty, value, { maxKeys: 3 }) }) }) },
        { weight: 1, arbitrary: value },
      );
      const query = fc.oneof(fc.constant(''), fc.constantFrom('?limit=0x10', '?limit=1e1', '?limit=-1', '?limit=99999999999999999999', '?cursor=%00', '?bogus=1', '?limit=5', '?status=%F0%9F%98%80'));
      const reads = fc.constantFrom('/api/v1/plans', `/api/v1/minds/${mind}/intentions`, '/api/v1/grants', `/api/v1/minds/${mind}/timeline`, `/api/v1/plans/${plan.id}/timeline`, '/api/v1/minds');
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...routes), body, reads, query, async ([method, path], payload, read, q) => {
          const before = await footprint(api);
          const written = await api.call('admin', method, path, payload);
          assert.ok(written.status < 500, `${method} ${path} ${written.status}: ${JSON.stringify(written.body).slice(0, 400)}`);
          if (written.status >= 400) {
            assert.equal(typeof written.body.error?.code, 'string');
            assert.equal(await footprint(api), before, `${method} ${path} refused with ${written.status} yet changed something`);
          }
          const listed = await api.call('viewer', 'GET', `${read}${q}`);
          assert.ok(listed.status < 500, `GET ${read}${q} ${listed.status}: ${JSON.stringify(listed.body).slice(0, 300)}`);
        }),
        served(120),
      );
    } finally {
      await api.app.close();
    }
  });
});

describe(`fuzz: MCP tool inputs (${kind})`, () => {
  const store = useStore(kind);

  it('every tool answers a result or an error result, never a crash; a refused call stores nothing', async () => {
    const world = await makeWorld(store());
    const mcp = await serveMcp(world);
    const client = await connect(mcp.url, await tokenFor(world, 'agent'));
    try {
      const formed = await call(client, 'form_intention', { objective: 'fuzz target' });
      assert.equal(formed.isError, false, formed.text);
      const intentionId = formed.json.intention.id as string;
      const footprintOf = async () =>
        JSON.stringify([
          (await world.store.plans.listPage({ mindId: world.mind.id, limit: 1000 })).map((p) => p.id),
          (await world.store.intentions.listPage(world.mind.id, { limit: 1000 })).map((i) => [i.id, i.status]),
        ]);
      const args = fc.oneof(
        fc.record({ name: fc.constant('propose_plan'), args: fc.record({ intention_id: fc.oneof(fc.constant(intentionId), nasty), plan: proposalArb }) }),
        fc.record({ name: fc.constant('form_intention'), args: fc.dictionary(fc.constantFrom('objective', 'means', 'require_approval', 'plan', 'mind', 'bogus'), value, { maxKeys: 3 }) }),
        fc.record({ name: fc.constant('preview_decision'), args: fc.record({ capability: fc.oneof(fc.constantFrom(...CAPABILITIES), nasty), params: value }) }),
        fc.record({
          name: fc.constantFrom('show_plan', 'show_timeline', 'list_capabilities', 'withdraw_requests'),
          args: fc.dictionary(fc.constantFrom('plan_id', 'intention_id', 'mind', 'limit', 'after_seq'), value, { maxKeys: 2 }),
        }),
      );
      await fc.assert(
        fc.asyncProperty(args, async ({ name, args: input }) => {
          const before = await footprintOf();
          let answer: Awaited<ReturnType<typeof call>>;
          try {
            answer = await call(client, name, input as Record<string, unknown>);
          } catch (error) {
            // The HTTP boundary may refuse the message itself (a "__proto__" key is not JSON to
            // Fastify's parser, a body over the size limit): a typed 400 or 413, and nothing changes.
            assert.ok([400, 413].includes((error as { code?: number }).code ?? 0), String(error).slice(0, 400));
            assert.equal(await footprintOf(), before);
            return;
          }
          if (answer.isError) {
            assert.ok(answer.text.length > 0);
            if (name === 'form_intention' || name === 'propose_plan') assert.equal(await footprintOf(), before, `${name} was refused yet changed something`);
          }
        }),
        served(40),
      );
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});
