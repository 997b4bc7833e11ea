// Plan drafts through the API: as JSON or YAML (the format of most plan files), and an invalid
// plan answered so that no client can take it for success: 422 `invalid_plan` with the
// validation errors, while the draft it was kept as is named beside them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld, type ApiWorld } from './support.ts';

const YAML_PLAN = `
objective: read a then b
strategy: direct
steps:
  - key: a
    title: read a
    kind: capability
    capability: test.read
    params: { name: a }
  - key: b
    title: read b
    kind: capability
    capability: test.read
    params: { name: b }
    depends_on: [a]
`;

async function send(api: ApiWorld, url: string, type: string, payload: string) {
  const response = await api.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${api.tokens.operator}`, 'content-type': type }, payload });
  return { status: response.statusCode, body: response.json() };
}

for (const kind of STORE_KINDS) {
  describe(`plan bodies (${kind})`, () => {
    const store = useStore(kind);

    it('takes a plan as application/yaml exactly as the same plan in JSON', async () => {
      const api = await makeApiWorld(store());
      try {
        const url = `/api/v1/minds/${api.world.mind.name}/plans`;
        const yaml = await send(api, url, 'application/yaml; charset=utf-8', YAML_PLAN);
        assert.equal(yaml.status, 201, JSON.stringify(yaml.body));
        assert.equal(yaml.body.status, 'validated');
        const stored = await api.world.store.plans.get(yaml.body.plan_id);
        assert.deepEqual(
          stored?.steps.map((s) => [s.key, s.capability, s.params, s.dependsOn]),
          [
            ['a', 'test.read', { name: 'a' }, []],
            ['b', 'test.read', { name: 'b' }, ['a']],
          ],
        );
        assert.equal(stored?.origin, 'operator');
      } finally {
        await api.app.close();
      }
    });

    it('refuses YAML that is not plain data with its line, and YAML on a route that takes only JSON; nothing is stored', async () => {
      const api = await makeApiWorld(store());
      try {
        const before = await api.world.store.events.latestSeq();
        const url = `/api/v1/minds/${api.world.mind.name}/plans`;
        const broken = await send(api, url, 'application/yaml', 'objective: x\nsteps: [\n  - key: a\n');
        assert.equal(broken.status, 400);
        assert.equal(broken.body.error.code, 'malformed_input');
        assert.match(broken.body.error.message, /not valid YAML at line \d+/);
        assert.equal(broken.body.error.problems[0].path, 'body');
        const alias = await send(api, url, 'application/yaml', 'base: &b { name: a }\nobjective: *b\n');
        assert.equal(alias.status, 400, JSON.stringify(alias.body));

        const elsewhere = await send(api, `/api/v1/minds/${api.world.mind.name}/intentions`, 'application/yaml', 'objective: read a\n');
        assert.equal(elsewhere.status, 415);
        assert.equal(elsewhere.body.error.code, 'unsupported_media_type');
        assert.doesNotMatch(elsewhere.body.error.message, /yaml/);
        const text = await send(api, url, 'text/plain', YAML_PLAN);
        assert.equal(text.status, 415);
        assert.match(text.body.error.message, /application\/yaml/);

        assert.equal(await api.world.store.events.latestSeq(), before);
        assert.equal((await api.world.store.plans.listByMind(api.world.mind.id)).length, 0);
      } finally {
        await api.app.close();
      }
    });

    it('answers an invalid plan 422 invalid_plan with its errors and the draft it was kept as; a misspelt capability gets a suggestion', async () => {
      const api = await makeApiWorld(store());
      try {
        const url = `/api/v1/minds/${api.world.mind.name}/plans`;
        const answer = await send(api, url, 'application/yaml', YAML_PLAN.replace('capability: test.read\n    params: { name: b }', 'capability: test.raed\n    params: { name: b }'));
        assert.equal(answer.status, 422, JSON.stringify(answer.body));
        assert.equal(answer.body.error.code, 'invalid_plan');
        assert.match(answer.body.error.message, /invalid \(1 error\).*draft .*never run/);
        const problem = answer.body.error.problems.find((p: { code: string }) => p.code === 'unknown_capability');
        assert.equal(problem.path, 'body.steps[1].capability');
        assert.match(problem.message, /"test\.raed" is not a registered capability \(did you mean "test\.read"\?\)/);
        assert.equal(answer.body.draft.status, 'draft');
        assert.equal(answer.body.draft.stored, true);
        assert.equal('errors' in answer.body.draft, false, 'the errors are said once, as problems');
        const stored = await api.world.store.plans.get(answer.body.draft.plan_id);
        assert.equal(stored?.status, 'draft');
        assert.equal(stored?.intentionId, answer.body.draft.intention_id);

        const means = await send(api, `/api/v1/minds/${api.world.mind.name}/intentions`, 'application/json', JSON.stringify({ means: { capability: 'test.wirte', params: { name: 'a' } } }));
        assert.equal(means.status, 400);
        assert.equal(means.body.error.problems[0].path, 'body.means.capability');
        assert.match(means.body.error.problems[0].message, /\(did you mean "test\.write"\?\)$/);

        const far = await send(api, url, 'application/json', JSON.stringify({ objective: 'x', steps: [{ key: 'a', title: 'a', kind: 'capability', capability: 'deploy', params: {} }] }));
        assert.equal(far.status, 422);
        assert.doesNotMatch(JSON.stringify(far.body.error.problems), /did you mean/, 'no suggestion for a name that is nothing like a known one');
      } finally {
        await api.app.close();
      }
    });

    it('answers 422 not_stored, with each problem at its body path, a plan whose steps no row can hold as written; nothing is stored', async () => {
      const api = await makeApiWorld(store());
      try {
        const url = `/api/v1/minds/${api.world.mind.name}/plans`;
        const read = (key: string, over: Record<string, unknown> = {}) => ({
          key,
          title: `read ${key}`,
          kind: 'capability',
          capability: 'test.read',
          params: { name: key.toLowerCase() || 'x' },
          ...over,
        });
        const cases: [what: string, steps: unknown[], problems: [code: string, path: string][]][] = [
          ['a kind outside the vocabulary', [read('A'), read('B', { kind: 'bogus' })], [['unknown_kind', 'body.steps[1].kind']]],
          ['a key used twice', [read('A'), read('A')], [['duplicate_key', 'body.steps[1].key']]],
          ['a fractional max_attempts', [read('A', { max_attempts: 1.5 })], [['invalid_max_attempts', 'body.steps[0].max_attempts']]],
          ['a huge max_attempts', [read('A', { max_attempts: 1e300 })], [['invalid_max_attempts', 'body.steps[0].max_attempts']]],
          ['a max_attempts beyond a 32-bit integer', [read('A', { max_attempts: 3_000_000_000 })], [['invalid_max_attempts', 'body.steps[0].max_attempts']]],
        ];
        const before = await api.world.store.events.latestSeq();
        for (const [what, steps, problems] of cases) {
          for (const who of ['agent', 'operator'] as const) {
            const answer = await api.call(who, 'POST', url, { objective: 'read a', steps });
            assert.equal(answer.status, 422, `${what}: ${JSON.stringify(answer.body)}`);
            assert.equal(answer.body.error.code, 'not_stored', what);
            assert.equal(answer.body.error.message, 'the plan was not stored');
            assert.deepEqual(
              answer.body.error.problems.map((p: { code: string; path: string }) => [p.code, p.path]),
              problems,
              what,
            );
            assert.equal('draft' in answer.body, false, `${what}: no draft is named`);
          }
        }
        assert.equal(await api.world.store.events.latestSeq(), before, 'no event, so no intention or plan either');
        assert.deepEqual(await api.world.store.plans.listByMind(api.world.mind.id), []);
      } finally {
        await api.app.close();
      }
    });
  });
}
