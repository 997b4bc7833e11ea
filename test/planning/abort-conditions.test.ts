// Abort conditions at the boundary: what parsing keeps, what validation accepts, refuses and
// flags, how stored entries (old words included) read back, and what each deterministic
// strategy writes (every one of them evaluable against its own steps).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { abortConditionText, describeAbortCondition, normaliseAbortConditions } from '../../src/core/abort-conditions.ts';
import type { PlanDraft } from '../../src/core/plan.ts';
import { parseProposal } from '../../src/planning/proposal.ts';
import { Planner } from '../../src/planning/planner.ts';
import { validate } from '../../src/planning/validate.ts';
import { failedRestart, investigateNginx, request, restartAtlas } from './planner-fixtures.ts';

const registry = builtinRegistry();
const UNIT = 'atlas-worker.service';

function diagnosis(abort: unknown[]): PlanDraft {
  const parsed = parseProposal({
    objective: `Investigate ${UNIT}`,
    abort_conditions: abort,
    steps: [
      { key: 'U1', title: 'state', kind: 'capability', capability: 'service.status', params: { unit: UNIT }, max_attempts: 2 },
      { key: 'L1', title: 'journal', kind: 'capability', capability: 'logs.query', params: { unit: UNIT, lines: 50 }, max_attempts: 2 },
      {
        key: 'P1',
        title: 'restart',
        kind: 'capability',
        capability: 'service.restart',
        params: { unit: UNIT },
        expectation: {
          statement: 'active',
          confidence: 0.8,
          within_seconds: 60,
          check: { capability: 'service.status', params: { unit: UNIT }, field: 'active_state', comparison: 'equals', value: 'active' },
        },
      },
      { key: 'V1', title: 'verify', kind: 'verify', depends_on: ['P1'], capability: 'service.status', params: { unit: UNIT }, spec: { verifies: 'P1' } },
      { key: 'S1', title: 'summary', kind: 'internal', depends_on: ['U1', 'L1'], spec: { action: 'summarise_findings' } },
    ],
  });
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.errors, []);
  return parsed.draft;
}

function codes(abort: unknown[]): { errors: string[]; warnings: string[] } {
  const result = validate(diagnosis(abort), registry);
  return {
    errors: result.errors.filter((e) => e.path.startsWith('abort_conditions')).map((e) => `${e.code} ${e.path}`),
    warnings: result.warnings.filter((w) => w.path.startsWith('abort_conditions')).map((w) => `${w.code} ${w.path}`),
  };
}

describe('abort conditions: validation', () => {
  it('accepts every evaluable kind that names fitting steps, without a warning', () => {
    assert.deepEqual(
      codes([
        { when: 'every_observation_failed', steps: ['U1', 'L1'] },
        { when: 'step_failed', step: 'P1', statement: 'the restart is refused' },
        { when: 'expectation_refuted', step: 'V1' },
      ]),
      { errors: [], warnings: [] },
    );
  });

  it('keeps plain words as display_only, with a warning saying they are never evaluated', () => {
    const result = validate(diagnosis(['the disk is full']), registry);
    assert.equal(result.valid, true);
    const warning = result.warnings.find((w) => w.code === 'abort_condition_display_only');
    assert.equal(warning?.path, 'abort_conditions[0]');
    assert.match(warning!.message, /never evaluated/);
    assert.match(warning!.message, /step_failed \| every_observation_failed \| expectation_refuted/);
    assert.deepEqual(codes([{ when: 'display_only', statement: 'an operator says stop' }]).warnings, ['abort_condition_display_only abort_conditions[0]']);
  });

  it('refuses what the executor could not evaluate, naming the field', () => {
    assert.deepEqual(codes([{ when: 'disk_full' }]).errors, ['unknown_abort_condition abort_conditions[0].when']);
    assert.deepEqual(codes([{ when: 'step_failed', step: 'X9' }]).errors, ['abort_condition_unknown_step abort_conditions[0].step']);
    assert.deepEqual(codes([{ when: 'step_failed' }]).errors, ['missing_abort_step abort_conditions[0].step']);
    assert.deepEqual(codes([{ when: 'expectation_refuted', step: 'P1' }]).errors, ['abort_condition_not_verify abort_conditions[0].step']);
    assert.deepEqual(codes([{ when: 'every_observation_failed', steps: [] }]).errors, ['missing_abort_step abort_conditions[0].steps']);
    // A write and an internal step are not observations.
    assert.deepEqual(codes([{ when: 'every_observation_failed', steps: ['U1', 'P1', 'S1'] }]).errors, [
      'abort_condition_not_observation abort_conditions[0].steps[1]',
      'abort_condition_not_observation abort_conditions[0].steps[2]',
    ]);
    assert.deepEqual(codes(['']).errors, ['empty_abort_condition abort_conditions[0]']);
    assert.deepEqual(codes([{ when: 'display_only' }]).errors, ['empty_abort_condition abort_conditions[0].statement']);
    // The parser already refuses a number; validation (what library callers reach) does too.
    const raw = { ...diagnosis([]), abort_conditions: [42] } as unknown as PlanDraft;
    assert.deepEqual(
      validate(raw, registry).errors.map((e) => `${e.code} ${e.path}`),
      ['invalid_abort_condition abort_conditions[0]'],
    );
    const notList = { ...diagnosis([]), abort_conditions: 'stop' } as unknown as PlanDraft;
    assert.deepEqual(
      validate(notList, registry).errors.map((e) => `${e.code} ${e.path}`),
      ['invalid_abort_conditions abort_conditions'],
    );
    assert.deepEqual(codes([{ when: 'step_failed', step: 'P1', statement: 'x'.repeat(501) }]).errors, ['abort_condition_too_long abort_conditions[0].statement']);
  });

  it('parsing refuses unknown fields of a condition, and non-lists', () => {
    const parsed = parseProposal({ objective: 'o', abort_conditions: [{ when: 'step_failed', step: 'A', stpe: 'B' }], steps: [] });
    assert.ok(parsed.ok);
    assert.ok(
      parsed.errors.some((e) => e.code === 'unknown_field' && e.path === 'abort_conditions[0].stpe'),
      JSON.stringify(parsed.errors),
    );
    assert.deepEqual(parsed.draft.abort_conditions, [{ when: 'step_failed', step: 'A' }]);
    const notList = parseProposal({ objective: 'o', abort_conditions: 'stop', steps: [] });
    assert.ok(notList.ok && notList.errors.some((e) => e.path === 'abort_conditions'));
  });
});

describe('abort conditions: stored form', () => {
  it('words read back as display_only; conditions get words when they state none', () => {
    assert.deepEqual(normaliseAbortConditions(['the restart is denied', { when: 'every_observation_failed', steps: ['U1', 'L1'] }, { when: 'step_failed', step: 'P1', statement: 'P1 is refused' }]), [
      { when: 'display_only', statement: 'the restart is denied' },
      { when: 'every_observation_failed', steps: ['U1', 'L1'], statement: 'every observation fails (U1, L1)' },
      { when: 'step_failed', step: 'P1', statement: 'P1 is refused' },
    ]);
    // A row written by hand with an unknown kind is never evaluated.
    assert.deepEqual(normaliseAbortConditions([{ when: 'moon_phase' }]), [{ when: 'display_only', statement: 'moon_phase' }]);
    assert.deepEqual(normaliseAbortConditions('nope'), []);
    assert.equal(describeAbortCondition({ when: 'expectation_refuted', step: 'V1' }), 'V1 refutes its expectation');
    assert.equal(abortConditionText({ when: 'display_only', statement: 'the note is lost' }), 'the note is lost (shown only, not checked)');
    assert.equal(abortConditionText({ when: 'step_failed', step: 'N1', statement: 'N1 fails' }), 'N1 fails');
  });
});

describe('abort conditions: what the strategies write', () => {
  const planner = new Planner(registry);
  const draftOf = (outcome: ReturnType<Planner['plan']>) => {
    assert.equal(outcome.kind, 'plan');
    return (outcome as Extract<typeof outcome, { kind: 'plan' }>).draft;
  };

  it('direct stops when P1 fails or V1 refutes its expectation', () => {
    const draft = draftOf(planner.plan(request(restartAtlas)));
    assert.deepEqual(
      draft.abort_conditions.map((c) => typeof c !== 'string' && [c.when, c.step]),
      [
        ['step_failed', 'P1'],
        ['expectation_refuted', 'V1'],
      ],
    );
    assert.deepEqual(
      validate(draft, registry).warnings.filter((w) => w.path.startsWith('abort')),
      [],
    );
  });

  it('diagnose stops only when every observation failed, and names them', () => {
    const draft = draftOf(planner.plan(request(investigateNginx)));
    const observations = draft.steps.filter((s) => s.kind === 'capability').map((s) => s.key);
    assert.deepEqual(draft.abort_conditions, [{ when: 'every_observation_failed', steps: observations, statement: `every observation of nginx.service fails (${observations.join(', ')})` }]);
    assert.deepEqual(validate(draft, registry).errors, []);
    assert.deepEqual(
      validate(draft, registry).warnings.filter((w) => w.path.startsWith('abort')),
      [],
    );
  });

  it('diagnose_then_escalate stops when the note cannot be left; its diagnosis never aborts it', () => {
    const draft = draftOf(planner.plan(request(restartAtlas, { failedStrategies: ['direct'], history: [failedRestart] })));
    assert.equal(draft.strategy, 'diagnose_then_escalate');
    assert.deepEqual(
      draft.abort_conditions.map((c) => typeof c !== 'string' && [c.when, c.step]),
      [['step_failed', 'N1']],
    );
    assert.deepEqual(validate(draft, registry).errors, []);
  });
});
