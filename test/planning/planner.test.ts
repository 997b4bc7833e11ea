import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRegistry } from '../../src/capabilities/registry.ts';
import { BUILTIN_CAPABILITIES } from '../../src/capabilities/catalogue/index.ts';
import { policyViewOf } from '../../src/drafting/policy-view.ts';
import { FAILED_BEFORE, Planner } from '../../src/planning/planner.ts';
import type { PlannerOutcome } from '../../src/planning/planner-types.ts';
import { scoreOf } from '../../src/planning/scoring.ts';
import { WRITE_EFFECTS } from '../../src/planning/strategies/index.ts';
import { validate } from '../../src/planning/validate.ts';
import { testRegistry } from '../support/test-capabilities.ts';
import { NOW, commitment, failedRestart, investigateNginx, logGrant, policy, registry, request, restartAtlas, rule } from './planner-fixtures.ts';

const planner = new Planner(registry);

function planned(outcome: PlannerOutcome) {
  assert.equal(outcome.kind, 'plan', `expected a plan, got ${JSON.stringify(outcome)}`);
  return outcome as Extract<PlannerOutcome, { kind: 'plan' }>;
}

function keys(outcome: PlannerOutcome): string[] {
  return planned(outcome).draft.steps.map((s) => s.key);
}

function stepOf(outcome: PlannerOutcome, key: string) {
  const step = planned(outcome).draft.steps.find((s) => s.key === key);
  assert.ok(step, `no step ${key}`);
  return step;
}

describe('planner: direct', () => {
  it('restarts atlas-worker.service and verifies it is active within 60 s', () => {
    const outcome = planned(planner.plan(request(restartAtlas)));
    assert.equal(outcome.strategy, 'direct');
    assert.deepEqual(keys(outcome), ['P1', 'V1']);
    const p1 = stepOf(outcome, 'P1');
    assert.equal(p1.capability, 'service.restart');
    assert.equal(p1.target, 'atlas-worker.service');
    assert.deepEqual(p1.params, { unit: 'atlas-worker.service' });
    assert.equal(p1.max_attempts, 1);
    assert.equal(p1.require_approval, false);
    assert.deepEqual(p1.expectation, {
      statement: 'atlas-worker.service is active',
      confidence: 0.8,
      within_seconds: 60,
      check: { capability: 'service.status', params: { unit: 'atlas-worker.service' }, field: 'active_state', comparison: 'equals', value: 'active' },
    });
    const v1 = stepOf(outcome, 'V1');
    assert.equal(v1.kind, 'verify');
    assert.deepEqual(v1.depends_on, ['P1']);
    assert.equal(v1.capability, 'service.status');
    assert.deepEqual(v1.spec, { verifies: 'P1' });
    assert.deepEqual(outcome.draft.budget, { invocations: 20 });
    assert.equal(outcome.validation.valid, true);
    assert.deepEqual(outcome.validation.warnings, []);
    assert.deepEqual(validate(outcome.draft, registry).errors, [], 'the stored draft passes validation as it is');
    assert.match(outcome.draft.completion_criteria, /V1 observes that atlas-worker\.service is active within 60 s/);
    assert.ok(outcome.draft.abort_conditions.length >= 2);
    assert.match(outcome.draft.risk, /not idempotent/);
    assert.deepEqual(outcome.notes, ['service.restart on atlas-worker.service will ask an operator (default rule service.restart * → ask)']);
  });

  it('scores the restart exactly: 0.8 − 0.05 × 1 approval − 0.001 × 6 s = 0.744', () => {
    const outcome = planned(planner.plan(request(restartAtlas)));
    assert.deepEqual(outcome.alternatives, [
      {
        strategy: 'direct',
        estimate: { invocations: 2, approvals: 1, wall_seconds: 6, network_ops: 0, money: 0, tokens: 0 },
        expected_confidence: 0.8,
        score: 0.744,
        selected: true,
        why: 'chosen: the intention names service.restart on atlas-worker.service as its means; the first applicable strategy in preference order',
      },
    ]);
    assert.deepEqual(outcome.draft.alternatives, outcome.alternatives, 'the alternatives are recorded on the plan');
    assert.deepEqual(outcome.draft.estimate, outcome.alternatives[0]!.estimate);
  });

  it('requires approval when the intention does, without counting it twice', () => {
    const outcome = planned(planner.plan(request({ ...restartAtlas, requireApproval: true })));
    assert.equal(stepOf(outcome, 'P1').require_approval, true);
    assert.equal(outcome.draft.require_approval, true);
    assert.equal(outcome.alternatives[0]!.estimate.approvals, 1);
    assert.equal(outcome.alternatives[0]!.score, 0.744);
  });

  it('needs no approval where a rule allows the restart, and scores 0.794', () => {
    const outcome = planned(planner.plan(request(restartAtlas, { policy: policy({ rules: [rule('service.restart', 'allow', 'atlas-*')] }) })));
    assert.equal(outcome.alternatives[0]!.estimate.approvals, 0);
    assert.equal(outcome.alternatives[0]!.score, 0.794);
    assert.deepEqual(outcome.notes, []);
  });

  it('does not apply when policy denies the action, and then there is no possible plan', () => {
    const outcome = planner.plan(request(restartAtlas, { policy: policy({ rules: [rule('service.restart', 'deny')] }) }));
    assert.equal(outcome.kind, 'none');
    const direct = outcome.considered.find((c) => c.strategy === 'direct');
    assert.equal(direct?.applicable, false);
    assert.match(direct?.why ?? '', /^policy denies service\.restart on atlas-worker\.service/);
  });

  it('refuses a means whose parameters fail the schema or whose target disagrees', () => {
    const bad = planner.plan(request({ ...restartAtlas, means: { capability: 'service.restart', target: '', params: { unit: '-rf' } } }));
    assert.equal(bad.kind, 'none');
    assert.match(bad.considered[0]!.why, /parameters are refused/);
    const mismatch = planner.plan(request({ ...restartAtlas, means: { ...restartAtlas.means!, target: 'nginx.service' } }));
    assert.match(mismatch.considered[0]!.why, /names target nginx\.service but its parameters act on atlas-worker\.service/);
    const unknown = planner.plan(request({ ...restartAtlas, means: { capability: 'shell.exec', target: '', params: {} } }));
    assert.match(unknown.considered[0]!.why, /shell\.exec is not a registered capability/);
  });

  it('reads without verification, retrying a read once', () => {
    const outcome = planned(
      planner.plan(request({ objective: 'read the state of nginx.service', means: { capability: 'service.status', target: '', params: { unit: 'nginx.service' } }, requireApproval: false })),
    );
    assert.deepEqual(keys(outcome), ['P1']);
    assert.equal(stepOf(outcome, 'P1').max_attempts, 2);
    assert.equal(stepOf(outcome, 'P1').expectation, null);
    // 0.9 − 0.001 × (2 attempts × 1 s)
    assert.equal(outcome.alternatives[0]!.score, 0.898);
  });

  it('gives a writing capability without a declared effect no verification, and says so', () => {
    const testPolicy = policyViewOf(testRegistry, { rules: [], commitments: [], grants: [] }, NOW);
    const outcome = planned(
      new Planner(testRegistry).plan(request({ objective: 'write alpha', means: { capability: 'test.write', target: '', params: { name: 'alpha' } }, requireApproval: false }, { policy: testPolicy })),
    );
    assert.deepEqual(keys(outcome), ['P1']);
    assert.deepEqual(
      outcome.validation.warnings.map((w) => w.code),
      ['write_without_expectation'],
    );
    assert.equal(outcome.alternatives[0]!.expected_confidence, 0.5);
    assert.ok(outcome.notes.some((n) => /declares no observable effect/.test(n)));
  });

  it('declares a verification for every writing built-in capability, observed by a read-only one', () => {
    for (const definition of BUILTIN_CAPABILITIES.filter((d) => !d.readOnly)) {
      const effect = WRITE_EFFECTS[definition.name];
      assert.ok(effect, `${definition.name} writes but declares no effect in WRITE_EFFECTS`);
      const expectation = effect.expectation({ unit: 'atlas-worker.service' }, 'atlas-worker.service');
      const check = registry.get(expectation.check.capability);
      assert.equal(check?.readOnly, true, `${definition.name} is verified by a read-only capability`);
    }
    for (const name of Object.keys(WRITE_EFFECTS)) assert.equal(registry.get(name)?.readOnly, false, `${name} is a registered writing capability`);
  });

  it('keeps a plan inside its budget: a budget too small leaves no candidate', () => {
    const outcome = planner.plan(request(restartAtlas, { budget: { invocations: 1 } }));
    assert.equal(outcome.kind, 'none');
    assert.equal(outcome.considered[0]!.why, 'its draft failed validation (budget_exceeded)');
  });
});

describe('planner: diagnose', () => {
  it('investigates nginx.service: status, memory, disk, and logs behind a 30-minute request when logs ask', () => {
    const outcome = planned(planner.plan(request(investigateNginx)));
    assert.equal(outcome.strategy, 'diagnose');
    assert.deepEqual(keys(outcome), ['U1', 'M1', 'D1', 'R1', 'L1', 'S1']);
    assert.deepEqual(
      planned(outcome).draft.steps.map((s) => [s.key, s.capability, s.target]),
      [
        ['U1', 'service.status', 'nginx.service'],
        ['M1', 'host.memory.status', 'host'],
        ['D1', 'host.disk.usage', '/'],
        ['R1', '', ''],
        ['L1', 'logs.query', 'nginx.service'],
        ['S1', '', ''],
      ],
    );
    const r1 = stepOf(outcome, 'R1');
    assert.equal(r1.kind, 'request_capability');
    assert.deepEqual(r1.spec.request, {
      capability: 'logs.query',
      target_pattern: 'nginx.service',
      param_limits: { lines: { max: 200 } },
      duration_seconds: 1800,
      max_operations: 20,
      reason: 'The recent journal of nginx.service is the most direct evidence of why it misbehaves',
      risk: 'Logs may contain personal identifiers such as e-mail and IP addresses, and credential-like values',
      mitigation: 'Identifiers and credential-like values are masked by default; access is limited to nginx.service, 30 minutes and 20 reads of at most 200 lines',
      fallback: 'Ask the operator to read the journal of nginx.service and report what it shows',
      alternatives: ['diagnose from the unit state, host memory and disk usage alone'],
    });
    assert.deepEqual(stepOf(outcome, 'L1').depends_on, ['R1']);
    assert.deepEqual(stepOf(outcome, 'L1').params, { unit: 'nginx.service', since: '-1h', lines: 200 });
    const s1 = stepOf(outcome, 'S1');
    assert.deepEqual(s1.spec, { action: 'summarise_findings' });
    assert.deepEqual(s1.depends_on, ['U1', 'M1', 'D1', 'R1', 'L1']);
    assert.equal(outcome.validation.valid, true);
    assert.ok(!outcome.draft.steps.some((s) => s.capability === 'service.restart'), 'a diagnosis only reads');
    // 0.7 − 0.05 × 1 (the request) − 0.001 × 10 s (each read may run twice)
    assert.deepEqual(outcome.alternatives, [
      {
        strategy: 'diagnose',
        estimate: { invocations: 8, approvals: 1, wall_seconds: 10, network_ops: 0, money: 0, tokens: 0 },
        expected_confidence: 0.7,
        score: 0.64,
        selected: true,
        why: 'chosen: the objective asks to investigate nginx.service (named in full); the first applicable strategy in preference order',
      },
    ]);
  });

  it('reads the logs straight away when a live grant covers them: no request', () => {
    const outcome = planned(planner.plan(request(investigateNginx, { policy: policy({ grants: [logGrant('nginx.service')] }) })));
    assert.deepEqual(keys(outcome), ['U1', 'M1', 'D1', 'L1', 'S1']);
    assert.deepEqual(stepOf(outcome, 'L1').depends_on, []);
    assert.deepEqual(stepOf(outcome, 'S1').depends_on, ['U1', 'M1', 'D1', 'L1']);
    assert.equal(outcome.alternatives[0]!.estimate.approvals, 0);
    assert.equal(outcome.alternatives[0]!.score, 0.69);
  });

  it('still requests access when the only grant has expired or covers another unit', () => {
    const expired = logGrant('nginx.service', new Date(NOW.getTime() - 3600_000));
    const elsewhere = logGrant('atlas-worker.service');
    for (const grant of [expired, elsewhere]) {
      const outcome = planned(planner.plan(request(investigateNginx, { policy: policy({ grants: [grant] }) })));
      assert.deepEqual(keys(outcome), ['U1', 'M1', 'D1', 'R1', 'L1', 'S1']);
    }
  });

  it('leaves the logs out when policy denies them', () => {
    const outcome = planned(planner.plan(request(investigateNginx, { policy: policy({ rules: [rule('logs.query', 'deny')] }) })));
    assert.deepEqual(keys(outcome), ['U1', 'M1', 'D1', 'S1']);
    assert.deepEqual(stepOf(outcome, 'S1').depends_on, ['U1', 'M1', 'D1']);
    assert.ok(outcome.notes.some((n) => /logs\.query on nginx\.service is denied by policy/.test(n)));
    // 0.65 − 0.001 × 6 s
    assert.equal(outcome.alternatives[0]!.score, 0.644);
    assert.equal(outcome.draft.risk, 'read-only');
  });

  it('asks for each read directly when a commitment binds the logs (a grant would not lift it)', () => {
    const outcome = planned(planner.plan(request(investigateNginx, { policy: policy({ commitments: [commitment('logs.query')] }) })));
    assert.deepEqual(keys(outcome), ['U1', 'M1', 'D1', 'L1', 'S1']);
    assert.equal(outcome.alternatives[0]!.estimate.approvals, 1, 'the log read itself will ask');
  });

  it('skips every denied read and does not apply when nothing can be observed', () => {
    const all = policy({ rules: [rule('service.status', 'deny'), rule('host.*', 'deny'), rule('logs.query', 'deny')] });
    const outcome = planner.plan(request(investigateNginx, { policy: all }));
    assert.equal(outcome.kind, 'none');
    assert.equal(outcome.considered.find((c) => c.strategy === 'diagnose')?.why, 'policy allows no observation of nginx.service');
    const onlyMemory = planned(planner.plan(request(investigateNginx, { policy: policy({ rules: [rule('service.status', 'deny'), rule('host.disk.usage', 'deny'), rule('logs.query', 'deny')] }) })));
    assert.deepEqual(keys(onlyMemory), ['M1', 'S1']);
  });

  it('recognises investigations of service-like subjects, and nothing else', () => {
    const cases: [string, string | null][] = [
      ['investigate atlas-worker.service', 'atlas-worker.service'],
      ['Investigate nginx.service.', 'nginx.service'],
      ['why is nginx failing', 'nginx.service'],
      ['Why does atlas-worker keep crashing?', 'atlas-worker.service'],
      ['why nginx keeps restarting', 'nginx.service'],
      ['diagnose postgresql@14-main', 'postgresql@14-main.service'],
      ['troubleshoot the nginx service', 'nginx.service'],
      ["what's wrong with redis-server", 'redis-server.service'],
      ['find out why cron.service stopped', 'cron.service'],
      ['look into the failures of docker.socket', 'docker.socket'],
      ['restart atlas-worker.service', null],
      ['why does the disk fill up', null],
      ['investigate high load', null],
      ['investigate the host', null],
      ['why is it slow', null],
      ['investigate -rf.service', null],
      ['keep nginx.service running', null],
    ];
    for (const [objective, unit] of cases) {
      const outcome = planner.plan(request({ objective, means: null, requireApproval: false }));
      if (unit === null) {
        assert.notEqual(outcome.kind === 'plan' && outcome.strategy, 'diagnose', `"${objective}" is not an investigation`);
      } else {
        assert.equal(stepOf(outcome, 'U1').target, unit, `"${objective}" investigates ${unit}`);
      }
    }
  });

  it('prefers a direct read named as the means, recording the diagnosis as a scored alternative', () => {
    const intention = {
      objective: 'investigate nginx.service',
      means: { capability: 'service.status', target: 'nginx.service', params: { unit: 'nginx.service' } },
      requireApproval: false,
    };
    const outcome = planned(planner.plan(request(intention)));
    assert.equal(outcome.strategy, 'direct');
    assert.deepEqual(
      outcome.alternatives.map((a) => [a.strategy, a.expected_confidence, a.score, a.selected]),
      [
        ['direct', 0.9, 0.898, true],
        ['diagnose', 0.7, 0.64, false],
      ],
    );
    assert.equal(outcome.alternatives[1]!.why, 'not chosen: the objective asks to investigate nginx.service (named in full), but direct comes first in preference order (score 0.898 against 0.64)');
    assert.deepEqual(planner.applicableStrategies(request(intention)), ['direct', 'diagnose']);
  });
});

describe('planner: diagnose_then_escalate', () => {
  const afterFailure = request(restartAtlas, { failedStrategies: ['direct'], history: [failedRestart] });

  it('after a failed restart, diagnoses and tells the operator, without a second restart', () => {
    const outcome = planned(planner.plan(afterFailure));
    assert.equal(outcome.strategy, 'diagnose_then_escalate');
    assert.deepEqual(keys(outcome), ['U1', 'M1', 'D1', 'R1', 'L1', 'S1', 'N1']);
    assert.ok(!outcome.draft.steps.some((s) => s.capability === 'service.restart'), 'the restart is not repeated');
    assert.ok(!outcome.draft.steps.some((s) => s.kind === 'verify' || s.expectation !== null));
    const n1 = stepOf(outcome, 'N1');
    assert.equal(n1.kind, 'internal');
    assert.deepEqual(n1.depends_on, ['S1']);
    assert.equal(n1.spec.action, 'notify_operator');
    assert.equal(
      n1.spec.message,
      'Tried service.restart on atlas-worker.service (revision 1); it did not bring about "restart atlas-worker.service". ' +
        'Seen: V1 (Verify: atlas-worker.service is active) failed: expectation failed: atlas-worker.service was not active within 60 s; ' +
        'observed active_state "failed", sub_state "failed". service.restart is not being repeated. ' +
        'The findings of a read-only diagnosis of atlas-worker.service (U1, M1, D1, L1) are summarised in S1.',
    );
    assert.equal(outcome.validation.valid, true);
    assert.match(outcome.draft.completion_criteria, /does not fulfil the intention/);
    assert.deepEqual(outcome.considered[0], { strategy: 'direct', applicable: false, why: FAILED_BEFORE });
    assert.deepEqual(
      outcome.alternatives.map((a) => [a.strategy, a.score]),
      [['diagnose_then_escalate', 0.64]],
    );
  });

  it('only escalates after a direct action failed', () => {
    const fresh = planned(planner.plan(request(restartAtlas)));
    assert.equal(fresh.strategy, 'direct');
    assert.equal(fresh.considered.find((c) => c.strategy === 'diagnose_then_escalate')?.why, 'no direct action has failed for this intention');
  });

  it('still tells the operator when policy allows no observation at all', () => {
    const blind = policy({ rules: [rule('service.status', 'deny'), rule('host.*', 'deny'), rule('logs.query', 'deny')] });
    const outcome = planned(planner.plan({ ...afterFailure, policy: blind }));
    assert.deepEqual(keys(outcome), ['N1']);
    assert.deepEqual(stepOf(outcome, 'N1').depends_on, []);
    assert.match(String(stepOf(outcome, 'N1').spec.message), /Policy allows no observation of atlas-worker\.service/);
  });
});

describe('planner: failed strategies and the model', () => {
  it('never uses a strategy again once it failed: after direct and escalation failed there is no plan', () => {
    const outcome = planner.plan(request(restartAtlas, { failedStrategies: ['direct', 'diagnose_then_escalate'], history: [failedRestart] }));
    assert.equal(outcome.kind, 'none');
    assert.deepEqual(
      outcome.considered.map((c) => [c.strategy, c.applicable, c.why]),
      [
        ['direct', false, FAILED_BEFORE],
        ['diagnose', false, 'the objective does not ask to investigate a service-like subject'],
        ['diagnose_then_escalate', false, FAILED_BEFORE],
        ['model', false, 'no model is configured for the plan role'],
      ],
    );
    assert.equal(outcome.kind === 'none' && outcome.reason, 'no possible plan: no strategy applies to this intention');
  });

  it('asks the model only when no deterministic strategy applies and one is configured', () => {
    assert.equal(planned(planner.plan(request(investigateNginx, { modelConfigured: true }))).strategy, 'diagnose');
    const wiki = request({ objective: 'tidy up the team wiki', means: null, requireApproval: false }, { modelConfigured: true });
    assert.equal(planner.plan(wiki).kind, 'ask_model');
    assert.deepEqual(planner.applicableStrategies(wiki), ['model']);
    const failedModel = planner.plan({ ...wiki, failedStrategies: ['model'] });
    assert.equal(failedModel.kind, 'none');
    assert.equal(failedModel.considered.at(-1)?.why, FAILED_BEFORE);
    assert.deepEqual(planner.applicableStrategies({ ...wiki, modelConfigured: false }), []);
  });

  it('is a pure function of its request', () => {
    const a = planner.plan(request(investigateNginx, { policy: policy({ grants: [logGrant('nginx.service')] }) }));
    const b = planner.plan(request(investigateNginx, { policy: policy({ grants: [logGrant('nginx.service')] }) }));
    assert.deepEqual(a, b);
  });
});

describe('scoring', () => {
  it('is expected confidence − 0.05 × approvals − 0.001 × wall seconds − 0.01 × money', () => {
    assert.equal(scoreOf(0.8, { approvals: 1, wall_seconds: 6 }), 0.744);
    assert.equal(scoreOf(0.7, { approvals: 2, wall_seconds: 120, money: 3 }), 0.45);
    assert.equal(scoreOf(0.5, {}), 0.5);
    assert.equal(scoreOf(0.2, { approvals: 4, wall_seconds: 100 }), -0.1);
  });

  it('gives every built-in capability a registry entry the planner can plan with', () => {
    // Guard for the fixtures above: a change to the built-ins shows up here first.
    assert.deepEqual(
      createRegistry(BUILTIN_CAPABILITIES)
        .list()
        .map((d) => d.name),
      registry.list().map((d) => d.name),
    );
  });
});
