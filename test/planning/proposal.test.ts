import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { assessProposal } from '../../src/planning/assess.ts';
import { parseProposal } from '../../src/planning/proposal.ts';
import { parsePlanText } from '../../src/planning/plan-text.ts';

const restart = () => ({
  objective: 'Restart atlas-worker.service and confirm it is healthy',
  steps: [
    {
      key: 'P1',
      title: 'Restart atlas-worker',
      kind: 'capability',
      capability: 'service.restart',
      params: { unit: 'atlas-worker.service' },
      expectation: {
        statement: 'atlas-worker is active',
        confidence: 0.8,
        within_seconds: 60,
        check: {
          capability: 'service.status',
          params: { unit: 'atlas-worker.service' },
          field: 'active_state',
          comparison: 'equals',
          value: 'active',
        },
      },
    },
    {
      key: 'V1',
      title: 'Verify atlas-worker is active',
      kind: 'verify',
      depends_on: ['P1'],
      capability: 'service.status',
      params: { unit: 'atlas-worker.service' },
      spec: { verifies: 'P1' },
    },
  ],
});

function parsed(input: unknown) {
  const result = parseProposal(input);
  assert.ok(result.ok, 'expected the proposal to be parsed');
  return result;
}

describe('parseProposal', () => {
  it('forms a draft with neutral defaults from a minimal plan', () => {
    const { draft, errors, warnings } = parsed(restart());
    assert.deepEqual(errors, []);
    assert.deepEqual(warnings, []);
    assert.equal(draft.steps.length, 2);
    const [p1, v1] = draft.steps;
    assert.deepEqual(p1!.depends_on, []);
    assert.equal(p1!.max_attempts, 1);
    assert.equal(p1!.require_approval, false);
    assert.equal(p1!.precondition, null);
    assert.deepEqual(p1!.spec, {});
    assert.equal(p1!.expectation?.check.field, 'active_state');
    assert.deepEqual(v1!.spec, { verifies: 'P1' });
    assert.deepEqual(draft.budget, {});
    assert.deepEqual(draft.assumptions, []);
  });

  it('drops claims of authority at plan and step level and reports each one', () => {
    const input = {
      ...restart(),
      approved: true,
      authorised: 'yes',
      policy: { 'service.restart': 'allow' },
      require_approval: false,
    };
    input.steps[0] = { ...input.steps[0]!, approved: true, require_approval: false, grant: 'g-1' } as never;
    const { draft, warnings, errors } = parsed(input);
    assert.deepEqual(errors, []);
    const claims = warnings
      .filter((w) => w.code === 'ignored_authority_claim')
      .map((w) => w.path)
      .sort();
    assert.deepEqual(claims, ['approved', 'authorised', 'policy', 'require_approval', 'steps[0].approved', 'steps[0].grant', 'steps[0].require_approval']);
    assert.equal(draft.require_approval, false);
    assert.equal(draft.steps[0]!.require_approval, false);
    assert.ok(!('approved' in draft) && !('policy' in draft) && !('approved' in draft.steps[0]!));
  });

  it('drops claims of progress and provenance', () => {
    const input = { ...restart(), status: 'completed', origin: 'operator', id: 'x', validation: { valid: true } };
    input.steps[1] = { ...input.steps[1]!, status: 'completed', result: { ok: true }, attempts: 0, verified: true } as never;
    input.steps[0] = {
      ...input.steps[0]!,
      expectation: { ...input.steps[0]!.expectation!, confirmed: true } as never,
    } as never;
    const { draft, warnings, errors } = parsed(input);
    assert.deepEqual(errors, []);
    const byCode = (code: string) =>
      warnings
        .filter((w) => w.code === code)
        .map((w) => w.path)
        .sort();
    assert.deepEqual(byCode('ignored_progress_claim'), ['status', 'steps[0].expectation.confirmed', 'steps[1].attempts', 'steps[1].result', 'steps[1].status', 'steps[1].verified']);
    assert.deepEqual(byCode('ignored_provenance_claim'), ['id', 'origin', 'validation']);
    assert.ok(!('confirmed' in draft.steps[0]!.expectation!));
  });

  it('keeps require_approval: true, which only adds a requirement', () => {
    const input = restart();
    (input.steps[0] as Record<string, unknown>).require_approval = true;
    const { draft, warnings } = parsed({ ...input, require_approval: true });
    assert.equal(draft.require_approval, true);
    assert.equal(draft.steps[0]!.require_approval, true);
    assert.deepEqual(warnings, []);
  });

  it('refuses unknown fields instead of silently ignoring a typo', () => {
    const input = restart();
    (input.steps[1] as Record<string, unknown>).depend_on = ['P1'];
    (input.steps[0]!.expectation!.check as Record<string, unknown>).feild = 'x';
    const { errors } = parsed({ ...input, objectve: 'typo' });
    assert.deepEqual(
      errors.map((e) => [e.code, e.path]),
      [
        ['unknown_field', 'objectve'],
        ['unknown_field', 'steps[0].expectation.check.feild'],
        ['unknown_field', 'steps[1].depend_on'],
      ],
    );
  });

  it('reports wrong types with their path and still forms a draft', () => {
    const input = {
      objective: 42,
      steps: ['not a step', { key: 'P1', title: 'x', kind: 'capability', depends_on: 'P0', max_attempts: '3', params: [], spec: { request: 'all' } }],
    };
    const { draft, errors } = parsed(input);
    assert.deepEqual(
      errors.map((e) => [e.code, e.path]),
      [
        ['invalid_type', 'steps[0]'],
        ['invalid_type', 'steps[1].depends_on'],
        ['invalid_type', 'steps[1].params'],
        ['invalid_type', 'steps[1].max_attempts'],
        ['invalid_type', 'steps[1].spec.request'],
        ['invalid_type', 'objective'],
      ],
    );
    // The malformed first step keeps its place, so the second keeps its index.
    assert.equal(draft.steps.length, 2);
    assert.equal(draft.steps[1]!.key, 'P1');
    assert.equal(draft.objective, '');
  });

  it('refuses input that is not a plan at all', () => {
    for (const input of [null, [], 'restart nginx', 7, true]) {
      const result = parseProposal(input);
      assert.equal(result.ok, false);
      assert.equal(result.ok ? '' : result.errors[0]!.code, 'malformed_input');
    }
  });

  it('checks budgets and estimates field by field', () => {
    const { draft, errors } = parsed({ ...restart(), budget: { invocations: 5, minutes: 3, money: 'free' } });
    assert.deepEqual(
      errors.map((e) => [e.code, e.path]),
      [
        ['unknown_field', 'budget.minutes'],
        ['invalid_type', 'budget.money'],
      ],
    );
    assert.equal(draft.budget.invocations, 5);
  });
});

describe('parsePlanText', () => {
  it('reads JSON and YAML into the same value', () => {
    const json = parsePlanText('{"objective": "x", "steps": [{"key": "A"}]}', 'json');
    const yaml = parsePlanText('objective: x\nsteps:\n  - key: A\n', 'yaml');
    assert.ok(json.ok && yaml.ok);
    assert.deepEqual(json.value, yaml.value);
  });

  it('refuses YAML that is more than plain data, with a position', () => {
    const cases = {
      duplicate: 'objective: a\nobjective: b\n',
      alias: 'a: &x [1]\nb: *x\n',
      tag: 'objective: !!js/function x\n',
      // YAML 1.1's known tags turn text into values JSON has no word for (a set read as {}, bytes as a Buffer).
      set: 'objective: !!set {a, b}\n',
      binary: 'objective: !!binary aGVsbG8=\n',
      timestamp: 'objective: !!timestamp 2026-12-07\n',
      omap: 'objective: !!omap [{a: 1}]\n',
      pairs: 'objective: !!pairs [{a: 1}]\n',
      documents: 'objective: a\n---\nobjective: b\n',
      syntax: 'steps: [1\n',
    };
    for (const [name, text] of Object.entries(cases)) {
      const result = parsePlanText(text, 'yaml');
      assert.equal(result.ok, false, name);
      if (!result.ok) assert.equal(result.errors[0]!.code, 'malformed_input', name);
    }
    const dup = parsePlanText(cases.duplicate, 'yaml');
    assert.match(dup.ok ? '' : dup.errors[0]!.message, /line 2/);
    // An alias and a merge key, each named with its place: the alias was refused with no
    // position, and a merge key was read as a key named "<<".
    const alias = parsePlanText(cases.alias, 'yaml');
    assert.match(alias.ok ? '' : alias.errors[0]!.message, /^not plain YAML data at line 2, column 4: an alias \(\*x\)/);
    const merge = parsePlanText('base: &b {unit: a}\nsteps:\n  - key: A\n    params:\n      <<: {unit: b}\n', 'yaml');
    assert.equal(merge.ok, false);
    assert.match(merge.ok ? '' : merge.errors[0]!.message, /^not plain YAML data at line 5, column 7: a merge key \(<<\)/);
    // A quoted "<<" is an ordinary key, as in JSON.
    const quoted = parsePlanText('params: {"<<": b}\n', 'yaml');
    assert.deepEqual(quoted.ok ? quoted.value : quoted.errors, { params: { '<<': 'b' } });
  });

  it('refuses malformed JSON with a message instead of a trace', () => {
    const result = parsePlanText('{"objective": ', 'json');
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.errors[0]!.message, /^not valid JSON/);
  });
});

describe('assessing a proposal (parsed, then validated)', () => {
  const registry = builtinRegistry();
  const request = (over: Record<string, unknown> = {}) => ({
    objective: 'Get access to the logs',
    steps: [
      {
        key: 'R',
        title: 'Ask for log access',
        kind: 'request_capability',
        spec: {
          request: { capability: 'logs.query', target_pattern: 'atlas-worker.service', reason: 'r', risk: 'low', mitigation: 'm', fallback: 'f', duration_seconds: 600, max_operations: 5, ...over },
        },
      },
    ],
  });
  const at = (issues: readonly { code: string; path: string }[]) => issues.map((e) => `${e.code} ${e.path}`);

  it('refuses a requested target pattern the capability service would refuse when the request is raised', () => {
    for (const pattern of ['atlas worker.service', 'atlás.service', 'a'.repeat(600)]) {
      const assessed = assessProposal(request({ target_pattern: pattern }), registry);
      assert.deepEqual(at(assessed.errors), ['invalid_target_pattern steps[0].spec.request.target_pattern'], pattern.slice(0, 20));
    }
    assert.equal(assessProposal(request(), registry).valid, true);
  });

  it('ignores require_approval: false wherever it appears, with a warning, as documented', () => {
    const assessed = assessProposal(request({ require_approval: false }), registry);
    assert.equal(assessed.valid, true, JSON.stringify(assessed.errors));
    assert.deepEqual(at(assessed.warnings), ['ignored_authority_claim steps[0].spec.request.require_approval']);
    assert.deepEqual(at(assessProposal(request({ require_approval: true }), registry).errors), ['unknown_field steps[0].spec.request.require_approval']);
  });

  it('reads a budget cap given as null as not stated, as validation does, never as a cap of 0', () => {
    const assessed = assessProposal({ ...restart(), budget: { approvals: null } }, registry);
    assert.equal(assessed.valid, true, JSON.stringify(assessed.errors));
    assert.deepEqual(assessed.draft?.budget, {});
  });

  it("tells validation's findings at the input's index when the parser dropped an entry before them", () => {
    const plan = restart();
    const assessed = assessProposal(
      {
        ...plan,
        abort_conditions: [5, { when: 'step_failed', step: 'P1' }, { when: 'step_failed', step: 'NOPE' }],
        steps: [plan.steps[0], { ...plan.steps[1], depends_on: [5, 'P1', 'NOPE'] }],
      },
      registry,
    );
    const found = at(assessed.errors);
    for (const expected of ['abort_condition_unknown_step abort_conditions[2].step', 'unknown_dependency steps[1].depends_on[2]'])
      assert.ok(found.includes(expected), `${expected} in ${found.join('; ')}`);
    assert.ok(!found.some((p) => p.endsWith('abort_conditions[1].step') || p.endsWith('depends_on[1]')), found.join('; '));
  });
});
