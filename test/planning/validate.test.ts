import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BUILTIN_CAPABILITIES } from '../../src/capabilities/catalogue/index.ts';
import type { CapabilityDefinition } from '../../src/capabilities/definition.ts';
import { builtinRegistry, createRegistry } from '../../src/capabilities/registry.ts';
import type { CapabilityRegistry } from '../../src/capabilities/registry.ts';
import type { PlanDraft, ValidationResult } from '../../src/core/plan.ts';
import { budgetLimits, deriveTargets, estimatePlan, validate, withDerivedTargets } from '../../src/planning/validate.ts';

// Tests poke wrong types into drafts on purpose: the validator must not trust the TS shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = { [key: string]: any };

const registry = builtinRegistry();

const ATLAS = 'atlas-worker.service';

function statusCheck(unit = ATLAS): Loose {
  return { capability: 'service.status', params: { unit }, field: 'active_state', comparison: 'equals', value: 'active' };
}

function step(key: string, fields: Loose): Loose {
  return {
    key,
    title: `Step ${key}`,
    kind: 'capability',
    depends_on: [],
    capability: '',
    target: '',
    params: {},
    expectation: null,
    precondition: null,
    max_attempts: 1,
    require_approval: false,
    spec: {},
    ...fields,
  };
}

function plan(objective: string, steps: Loose[], extra: Loose = {}): PlanDraft {
  return {
    objective,
    strategy: 'operator',
    assumptions: [],
    completion_criteria: '',
    abort_conditions: [],
    risk: '',
    estimate: {},
    budget: {},
    alternatives: [],
    steps,
    ...extra,
  } as unknown as PlanDraft;
}

/** The direct strategy's plan: restart atlas-worker, then verify it is active. */
function restartDraft(): PlanDraft {
  return plan('Restart atlas-worker.service and confirm it is healthy', [
    step('P1', {
      title: 'Restart atlas-worker',
      capability: 'service.restart',
      params: { unit: ATLAS },
      precondition: {
        ...statusCheck(),
        comparison: 'not_equals',
        statement: 'atlas-worker is not already running',
        fulfils_intention: true,
      },
      expectation: { statement: 'atlas-worker is active', confidence: 0.8, within_seconds: 60, check: statusCheck() },
    }),
    step('V1', {
      title: 'Verify atlas-worker is active',
      kind: 'verify',
      depends_on: ['P1'],
      capability: 'service.status',
      params: { unit: ATLAS },
      spec: { verifies: 'P1' },
    }),
  ]);
}

/** The diagnose strategy's plan, with a scoped request for log access. */
function diagnoseDraft(): PlanDraft {
  return plan(
    'Find out why atlas-worker.service keeps failing',
    [
      step('S0', { title: "Read the unit's state", capability: 'service.status', params: { unit: ATLAS }, max_attempts: 2 }),
      step('M0', { title: 'Read host memory', capability: 'host.memory.status' }),
      step('D0', { title: 'Read disk usage', capability: 'host.disk.usage', params: { path: '/var' } }),
      step('R1', {
        title: 'Ask for 30 minutes of log access',
        kind: 'request_capability',
        spec: {
          request: {
            capability: 'logs.query',
            target_pattern: ATLAS,
            param_limits: { lines: { max: 200 } },
            duration_seconds: 1800,
            max_operations: 20,
            reason: "The unit's journal shows why it fails",
            risk: 'Logs may contain personal identifiers',
            mitigation: 'Output is masked by default',
            fallback: 'Ask the operator to read the journal',
            alternatives: ['diagnose without logs'],
          },
        },
      }),
      step('L1', {
        title: "Read the last hour of atlas-worker's errors",
        depends_on: ['R1'],
        capability: 'logs.query',
        params: { unit: ATLAS, since: '-1h', priority: 'err', lines: 200 },
      }),
      step('S1', {
        title: 'Summarise the findings',
        kind: 'internal',
        depends_on: ['S0', 'M0', 'D0', 'L1'],
        spec: { action: 'summarise_findings' },
      }),
    ],
    { budget: { invocations: 12, approvals: 1 } },
  );
}

/** Restart, wait, then monitor until stable. */
function monitorDraft(): PlanDraft {
  const d = restartDraft();
  d.steps.push(
    step('W1', { title: 'Let caches warm up', kind: 'wait', depends_on: ['V1'], spec: { seconds: 60 } }) as never,
    step('MON', {
      title: 'Watch until stable',
      kind: 'monitor',
      depends_on: ['W1'],
      capability: 'service.status',
      params: { unit: ATLAS },
      spec: { field: 'sub_state', comparison: 'equals', value: 'running', stable_seconds: 900, deadline_seconds: 2700, interval_seconds: 60 },
    }) as never,
  );
  return d;
}

function mutate(base: () => PlanDraft, change: (d: Loose, s: Loose[]) => void): PlanDraft {
  const d = base();
  change(d as Loose, d.steps as Loose[]);
  return d;
}

function listed(issues: ValidationResult['errors']): string[] {
  return issues.map((i) => `${i.code} @ ${i.path}`);
}

/** The draft has exactly these errors (code @ path), in this order. */
function errorsAre(draft: PlanDraft, expected: string[], reg: CapabilityRegistry = registry): ValidationResult {
  const result = validate(draft, reg);
  assert.deepEqual(listed(result.errors), expected, JSON.stringify(result.errors, null, 1));
  assert.equal(result.valid, expected.length === 0);
  return result;
}

/** The draft has (at least) this error. */
function hasError(draft: PlanDraft, code: string, path: string, reg: CapabilityRegistry = registry): ValidationResult {
  const result = validate(draft, reg);
  assert.ok(listed(result.errors).includes(`${code} @ ${path}`), `expected ${code} @ ${path}; got ${JSON.stringify(result.errors, null, 1)}`);
  assert.equal(result.valid, false);
  return result;
}

function warningsAre(draft: PlanDraft, expected: string[]): ValidationResult {
  const result = validate(draft, registry);
  assert.deepEqual(listed(result.warnings), expected, JSON.stringify(result.warnings, null, 1));
  return result;
}

function registryWith(changes: Record<string, Partial<CapabilityDefinition>>, extra: CapabilityDefinition[] = []): CapabilityRegistry {
  return createRegistry([...BUILTIN_CAPABILITIES.map((d) => ({ ...d, ...(changes[d.name] ?? {}) })), ...extra]);
}

describe('valid plans', () => {
  it('accepts the restart-and-verify plan with no errors or warnings', () => {
    const result = errorsAre(restartDraft(), []);
    assert.deepEqual(result.warnings, []);
  });

  it('accepts the diagnosis plan with a scoped log request and a summary', () => {
    const result = errorsAre(diagnoseDraft(), []);
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(result.estimate, { invocations: 5, approvals: 1, wall_seconds: 6, network_ops: 0, money: 0, tokens: 0 });
  });

  it('accepts restart, wait and monitor', () => {
    errorsAre(monitorDraft(), []);
  });

  it('accepts read-only browser steps', () => {
    errorsAre(
      plan('Read the status page', [
        step('N1', { title: 'Open it', capability: 'browser.navigate', params: { url: 'https://status.example.com/' }, target: 'status.example.com' }),
        step('R1', { title: 'Read it', capability: 'browser.read', params: { url: 'https://status.example.com/', max_chars: 5000 }, max_attempts: 3 }),
      ]),
      [],
    );
  });

  it('is deterministic and does not change the draft', () => {
    const draft = deepFreeze(monitorDraft());
    const first = validate(draft, registry);
    assert.deepEqual(validate(draft, registry), first);
    assert.equal(first.valid, true);
  });
});

describe('plan structure', () => {
  it('invalid_draft: the draft is not an object', () => {
    for (const input of [null, undefined, 'plan', 42, []]) {
      errorsAre(input as unknown as PlanDraft, ['invalid_draft @ ']);
    }
  });

  it('missing_objective', () => {
    errorsAre(
      mutate(restartDraft, (d) => (d.objective = '  ')),
      ['missing_objective @ objective'],
    );
    errorsAre(
      mutate(restartDraft, (d) => (d.objective = 7)),
      ['missing_objective @ objective'],
    );
  });

  it('no_steps: empty or missing', () => {
    errorsAre(
      mutate(restartDraft, (d) => (d.steps = [])),
      ['no_steps @ steps'],
    );
    errorsAre(
      mutate(restartDraft, (d) => (d.steps = { P1: {} })),
      ['no_steps @ steps'],
    );
  });

  it('too_many_steps: more than thirty', () => {
    const steps = (n: number) => Array.from({ length: n }, (_, i) => step(`S${i}`, { capability: 'host.memory.status' }));
    errorsAre(plan('Check memory a lot', steps(30), { budget: { invocations: 100 } }), []);
    errorsAre(plan('Check memory a lot', steps(31), { budget: { invocations: 100 } }), ['too_many_steps @ steps']);
  });

  it('invalid_step: a step that is not an object', () => {
    errorsAre(
      mutate(restartDraft, (d) => d.steps.push('S9')),
      ['invalid_step @ steps[2]'],
    );
  });

  it('invalid_key: empty, malformed or too long', () => {
    for (const key of ['', '1V', 'V 1', 'V.1', 'V1;', 'x'.repeat(33), 7, null]) {
      errorsAre(
        mutate(restartDraft, (_, s) => (s[1]!.key = key)),
        ['invalid_key @ steps[1].key'],
      );
    }
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.key = `V${'x'.repeat(31)}`)),
      [],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.key = 'verify_atlas-1')),
      [],
    );
  });

  it('duplicate_key', () => {
    errorsAre(
      mutate(restartDraft, (d) => d.steps.push(step('V1', { capability: 'host.memory.status' }))),
      ['duplicate_key @ steps[2].key'],
    );
  });

  it('missing_title', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.title = ' ')),
      ['missing_title @ steps[1].title'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => delete s[0]!.title),
      ['missing_title @ steps[0].title'],
    );
  });

  it('invalid_spec: spec is not an object', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.spec = 'fast')),
      ['invalid_spec @ steps[0].spec'],
    );
  });

  it('invalid_require_approval', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.require_approval = 'yes')),
      ['invalid_require_approval @ steps[0].require_approval'],
    );
  });

  it('unknown_kind', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.kind = 'shell')),
      ['unknown_kind @ steps[1].kind'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.kind = 'Verify')),
      ['unknown_kind @ steps[1].kind'],
    );
  });
});

describe('dependencies', () => {
  it('invalid_dependency: not a list, or an entry that is not a key', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.depends_on = ['P1', 7])),
      ['invalid_dependency @ steps[1].depends_on[1]'],
    );
    hasError(
      mutate(restartDraft, (_, s) => (s[1]!.depends_on = 'P1')),
      'invalid_dependency',
      'steps[1].depends_on',
    );
  });

  it('unknown_dependency', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.depends_on = ['P1', 'P9'])),
      ['unknown_dependency @ steps[1].depends_on[1]'],
    );
  });

  it('self_dependency', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.depends_on = ['P1', 'V1'])),
      ['self_dependency @ steps[1].depends_on[1]'],
    );
  });

  it('duplicate_dependency', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.depends_on = ['P1', 'P1'])),
      ['duplicate_dependency @ steps[1].depends_on[1]'],
    );
  });

  it('dependency_cycle: names the steps as a path', () => {
    const result = errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.depends_on = ['V1'])),
      ['dependency_cycle @ steps[0].depends_on[0]'],
    );
    assert.match(result.errors[0]!.message, /P1 -> V1 -> P1/);
  });

  it('dependency_cycle: a longer cycle, and one report per separate cycle', () => {
    const draft = monitorDraft();
    (draft.steps[0] as Loose).depends_on = ['MON'];
    const result = errorsAre(draft, ['dependency_cycle @ steps[0].depends_on[0]']);
    assert.match(result.errors[0]!.message, /P1 -> MON -> W1 -> V1 -> P1/);

    const two = plan('Two loops', [
      step('A', { capability: 'host.memory.status', depends_on: ['B'] }),
      step('B', { capability: 'host.memory.status', depends_on: ['A'] }),
      step('C', { capability: 'host.memory.status', depends_on: ['B', 'D'] }),
      step('D', { capability: 'host.memory.status', depends_on: ['C'] }),
      step('E', { capability: 'host.memory.status', depends_on: ['D'] }),
    ]);
    const both = errorsAre(two, ['dependency_cycle @ steps[0].depends_on[0]', 'dependency_cycle @ steps[2].depends_on[1]']);
    assert.match(both.errors[0]!.message, /A -> B -> A/);
    assert.match(both.errors[1]!.message, /C -> D -> C/);
  });
});

describe('capability steps', () => {
  it('missing_capability', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.capability = '')),
      ['missing_capability @ steps[0].capability'],
    );
  });

  it('unknown_capability', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.capability = 'shell.exec')),
      ['unknown_capability @ steps[0].capability'],
    );
  });

  it('locked_capability', () => {
    const locked = registryWith({ 'service.restart': { locked: true } });
    errorsAre(restartDraft(), ['locked_capability @ steps[0].capability'], locked);
    const statusLocked = registryWith({ 'service.status': { locked: true } });
    hasError(restartDraft(), 'locked_capability', 'steps[0].expectation.check.capability', statusLocked);
    hasError(restartDraft(), 'locked_capability', 'steps[0].precondition.capability', statusLocked);
    hasError(restartDraft(), 'locked_capability', 'steps[1].capability', statusLocked);
  });

  it('invalid_params: one issue per schema problem, at the parameter', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.params = { unit: 'atlas-worker', force: true })),
      ['invalid_params @ steps[0].params.force', 'invalid_params @ steps[0].params.unit'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.params = 'atlas-worker.service')),
      ['invalid_params @ steps[0].params'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[4]!.params.lines = '200')),
      ['invalid_params @ steps[4].params.lines'],
    );
  });

  it('target_mismatch: a stated target must match the parameters', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.target = 'nginx.service')),
      ['target_mismatch @ steps[0].target'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.target = ATLAS)),
      [],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.target = 'nginx.service')),
      ['target_mismatch @ steps[1].target'],
    );
  });

  it('invalid_target: a target that is not text', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.target = ['a'])),
      ['invalid_target @ steps[0].target'],
    );
  });

  it('invalid_max_attempts', () => {
    for (const attempts of [0, -1, 11, 1.5, '1', null]) {
      errorsAre(
        mutate(restartDraft, (_, s) => (s[1]!.max_attempts = attempts)),
        ['invalid_max_attempts @ steps[1].max_attempts'],
      );
    }
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.max_attempts = 10)),
      [],
    );
  });

  it('non_idempotent_retry: a non-idempotent write gets one attempt', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.max_attempts = 2)),
      ['non_idempotent_retry @ steps[0].max_attempts'],
    );
    // A read-only step may retry.
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[0]!.max_attempts = 5)),
      [],
    );
    // A writing but idempotent capability may retry too.
    const idempotent = registryWith({ 'service.restart': { idempotent: true } });
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.max_attempts = 2)),
      [],
      idempotent,
    );
  });

  it('write_without_expectation: a warning, not an error', () => {
    const draft = mutate(restartDraft, (d, s) => {
      s[0]!.expectation = null;
      d.steps.pop();
    });
    const result = errorsAre(draft, []);
    assert.deepEqual(listed(result.warnings), ['write_without_expectation @ steps[0].expectation']);
    warningsAre(diagnoseDraft(), []);
  });

  it('unexpected_expectation and unexpected_precondition: only capability steps carry them', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.expectation = s[0]!.expectation)),
      ['unexpected_expectation @ steps[1].expectation'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.precondition = s[0]!.precondition)),
      ['unexpected_precondition @ steps[1].precondition'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[5]!.precondition = statusCheck())),
      ['unexpected_precondition @ steps[5].precondition'],
    );
  });
});

describe('checks', () => {
  it('check_not_read_only: in an expectation, a precondition, a verify and a monitor', () => {
    const restartCheck = { capability: 'service.restart', params: { unit: ATLAS }, field: 'requested', comparison: 'equals', value: true };
    errorsAre(
      mutate(restartDraft, (d, s) => {
        s[0]!.expectation.check = restartCheck;
        d.steps.pop();
      }),
      ['check_not_read_only @ steps[0].expectation.check.capability'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.precondition = restartCheck)),
      ['check_not_read_only @ steps[0].precondition.capability'],
    );
    hasError(
      mutate(restartDraft, (_, s) => (s[1]!.capability = 'service.restart')),
      'check_not_read_only',
      'steps[1].capability',
    );
    hasError(
      mutate(monitorDraft, (_, s) => (s[3]!.capability = 'service.restart')),
      'check_not_read_only',
      'steps[3].capability',
    );
  });

  it('invalid_check: a check that is not an object', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation.check = 'active')),
      ['invalid_check @ steps[0].expectation.check'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.precondition = 'not running')),
      ['invalid_check @ steps[0].precondition'],
    );
  });

  it('check parameters and capability are validated', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation.check.params = { unit: 'atlas worker' })),
      ['invalid_params @ steps[0].expectation.check.params.unit'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.precondition.capability = 'service.health')),
      ['unknown_capability @ steps[0].precondition.capability'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.precondition.capability = undefined)),
      ['missing_capability @ steps[0].precondition.capability'],
    );
  });

  it('unknown_comparison', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation.check.comparison = 'roughly')),
      ['unknown_comparison @ steps[0].expectation.check.comparison'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.spec.comparison = '==')),
      ['unknown_comparison @ steps[3].spec.comparison'],
    );
  });

  it('unknown_observation_field: the first segment must be observed by the capability', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation.check.field = 'health')),
      ['unknown_observation_field @ steps[0].expectation.check.field'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.spec.field = 'uptime')),
      ['unknown_observation_field @ steps[3].spec.field'],
    );
    // A dotted path below an observed field is fine.
    errorsAre(
      mutate(restartDraft, (_, s) => {
        s[0]!.precondition = { capability: 'host.disk.usage', params: {}, field: 'filesystems.0.used_percent', comparison: 'less_than', value: 90 };
      }),
      [],
    );
  });

  it('invalid_observation_field: not a dotted name', () => {
    for (const field of ['', 'a..b', '.a', 'a b', 5, undefined]) {
      errorsAre(
        mutate(restartDraft, (_, s) => (s[0]!.expectation.check.field = field)),
        ['invalid_observation_field @ steps[0].expectation.check.field'],
      );
    }
  });

  it('missing_check_value: every comparison but exists needs a value', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => delete s[0]!.expectation.check.value),
      ['missing_check_value @ steps[0].expectation.check.value'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => {
        s[0]!.expectation.check.comparison = 'exists';
        delete s[0]!.expectation.check.value;
      }),
      [],
    );
  });

  it('ignored_check_value: a value with exists is a warning', () => {
    const result = errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation.check.comparison = 'exists')),
      [],
    );
    assert.deepEqual(listed(result.warnings), ['ignored_check_value @ steps[0].expectation.check.value']);
  });

  it('invalid_check_value: numbers for ordering, lists for membership', () => {
    for (const comparison of ['greater_than', 'at_least', 'less_than', 'at_most']) {
      errorsAre(
        mutate(restartDraft, (_, s) => (s[0]!.expectation.check.comparison = comparison)),
        ['invalid_check_value @ steps[0].expectation.check.value'],
      );
    }
    for (const comparison of ['in', 'not_in']) {
      errorsAre(
        mutate(restartDraft, (_, s) => (s[0]!.expectation.check.comparison = comparison)),
        ['invalid_check_value @ steps[0].expectation.check.value'],
      );
      errorsAre(
        mutate(restartDraft, (_, s) => {
          s[0]!.expectation.check.comparison = comparison;
          s[0]!.expectation.check.value = ['active', 'reloading'];
        }),
        [],
      );
    }
    errorsAre(
      mutate(monitorDraft, (_, s) => {
        s[3]!.spec.comparison = 'at_most';
        s[3]!.spec.value = '5';
      }),
      ['invalid_check_value @ steps[3].spec.value'],
    );
  });

  it('invalid_precondition: statement and fulfils_intention types', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.precondition.statement = 5)),
      ['invalid_precondition @ steps[0].precondition.statement'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.precondition.fulfils_intention = 'yes')),
      ['invalid_precondition @ steps[0].precondition.fulfils_intention'],
    );
  });
});

describe('expectations', () => {
  it('invalid_expectation: not an object', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation = 'it works')),
      ['invalid_expectation @ steps[0].expectation'],
    );
  });

  it('missing_statement', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation.statement = '')),
      ['missing_statement @ steps[0].expectation.statement'],
    );
  });

  it('invalid_confidence: a number in [0, 1]', () => {
    for (const confidence of [-0.1, 1.01, '0.8', Number.NaN, null]) {
      errorsAre(
        mutate(restartDraft, (_, s) => (s[0]!.expectation.confidence = confidence)),
        ['invalid_confidence @ steps[0].expectation.confidence'],
      );
    }
    for (const confidence of [0, 1])
      errorsAre(
        mutate(restartDraft, (_, s) => (s[0]!.expectation.confidence = confidence)),
        [],
      );
  });

  it('invalid_window: whole seconds from 1 to a day', () => {
    for (const within of [0, -5, 1.5, 86_401, '60']) {
      errorsAre(
        mutate(restartDraft, (_, s) => (s[0]!.expectation.within_seconds = within)),
        ['invalid_window @ steps[0].expectation.within_seconds'],
      );
    }
    errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation.within_seconds = 86_400)),
      [],
    );
  });
});

describe('verify steps', () => {
  it('verify_target_unknown: missing, unknown or itself', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.spec = {})),
      ['verify_target_unknown @ steps[1].spec.verifies'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.spec.verifies = 'P9')),
      ['verify_target_unknown @ steps[1].spec.verifies'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.spec.verifies = 'V1')),
      ['verify_target_unknown @ steps[1].spec.verifies'],
    );
  });

  it('verify_not_dependent: the verify step must come after the step it verifies', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.depends_on = [])),
      ['verify_not_dependent @ steps[1].depends_on'],
    );
    // Depending through another step (restart, wait, then verify) is enough.
    const through = mutate(restartDraft, (d, s) => {
      d.steps.splice(1, 0, step('W1', { title: 'Wait for the restart', kind: 'wait', depends_on: ['P1'], spec: { seconds: 30 } }));
      s[2]!.depends_on = ['W1'];
    });
    errorsAre(through, []);
  });

  it('verify_without_expectation: the verified step must state one', () => {
    const result = errorsAre(
      mutate(restartDraft, (_, s) => (s[0]!.expectation = null)),
      ['verify_without_expectation @ steps[1].spec.verifies'],
    );
    assert.deepEqual(listed(result.warnings), ['write_without_expectation @ steps[0].expectation']);
  });

  it("uses the expectation's check when it names no capability", () => {
    errorsAre(
      mutate(restartDraft, (_, s) => {
        s[1]!.capability = '';
        s[1]!.params = {};
      }),
      [],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => {
        s[1]!.capability = '';
      }),
      ['unexpected_params @ steps[1].params'],
    );
  });

  it('checks overrides against the observing capability', () => {
    // greater_than with the inherited value "active" is not a numeric comparison.
    const result = errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.spec.comparison = 'greater_than')),
      ['invalid_check_value @ steps[1].spec.value'],
    );
    assert.match(result.errors[0]!.message, /expectation of "P1"/);
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.spec.field = 'colour')),
      ['unknown_observation_field @ steps[1].spec.field'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => {
        s[1]!.spec.field = 'sub_state';
        s[1]!.spec.value = 'running';
      }),
      [],
    );
    // Another capability than the expectation's must observe the inherited field.
    errorsAre(
      mutate(restartDraft, (_, s) => {
        s[1]!.capability = 'host.memory.status';
        s[1]!.params = {};
      }),
      ['unknown_observation_field @ steps[1].spec.field'],
    );
  });

  it('invalid_duration: interval_seconds', () => {
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.spec.interval_seconds = 0)),
      ['invalid_duration @ steps[1].spec.interval_seconds'],
    );
    errorsAre(
      mutate(restartDraft, (_, s) => (s[1]!.spec.interval_seconds = 10)),
      [],
    );
  });
});

describe('monitor steps', () => {
  it('needs a read-only capability with valid parameters', () => {
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.capability = '')),
      ['missing_capability @ steps[3].capability'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.params = {})),
      ['invalid_params @ steps[3].params.unit'],
    );
  });

  it('missing_check_value', () => {
    errorsAre(
      mutate(monitorDraft, (_, s) => delete s[3]!.spec.value),
      ['missing_check_value @ steps[3].spec.value'],
    );
  });

  it('invalid_duration: stable_seconds and deadline_seconds', () => {
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.spec.stable_seconds = 0)),
      ['invalid_duration @ steps[3].spec.stable_seconds'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => delete s[3]!.spec.deadline_seconds),
      ['invalid_duration @ steps[3].spec.deadline_seconds'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.spec.interval_seconds = 3601)),
      ['invalid_duration @ steps[3].spec.interval_seconds'],
    );
  });

  it('deadline_not_after_stable', () => {
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.spec.deadline_seconds = 900)),
      ['deadline_not_after_stable @ steps[3].spec.deadline_seconds'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[3]!.spec.deadline_seconds = 901)),
      [],
    );
  });
});

describe('wait and internal steps', () => {
  it('invalid_duration: wait seconds are whole, positive and at most a week', () => {
    for (const seconds of [0, -1, 2.5, '60', 604_801, undefined]) {
      errorsAre(
        mutate(monitorDraft, (_, s) => (s[2]!.spec.seconds = seconds)),
        ['invalid_duration @ steps[2].spec.seconds'],
      );
    }
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[2]!.spec.seconds = 604_800)),
      [],
    );
  });

  it('unexpected_capability, unexpected_params, unexpected_target', () => {
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[2]!.capability = 'service.status')),
      ['unexpected_capability @ steps[2].capability'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[2]!.params = { unit: ATLAS })),
      ['unexpected_params @ steps[2].params'],
    );
    errorsAre(
      mutate(monitorDraft, (_, s) => (s[2]!.target = ATLAS)),
      ['unexpected_target @ steps[2].target'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[5]!.capability = 'logs.query')),
      ['unexpected_capability @ steps[5].capability'],
    );
  });

  it('unknown_internal_action', () => {
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[5]!.spec.action = 'record_procedure')),
      ['unknown_internal_action @ steps[5].spec.action'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[5]!.spec = {})),
      ['unknown_internal_action @ steps[5].spec.action'],
    );
  });

  it('missing_message: notify_operator needs its text', () => {
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[5]!.spec = { action: 'notify_operator' })),
      ['missing_message @ steps[5].spec.message'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[5]!.spec = { action: 'notify_operator', message: 'Restart failed; see findings' })),
      [],
    );
  });
});

describe('request_capability steps', () => {
  it('missing_request', () => {
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec = {})),
      ['missing_request @ steps[3].spec.request'],
    );
  });

  it('the requested capability must be registered and unlocked', () => {
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.capability = 'shell.exec')),
      ['unknown_capability @ steps[3].spec.request.capability'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.capability = '')),
      ['missing_capability @ steps[3].spec.request.capability'],
    );
    const locked = registryWith({ 'logs.query': { locked: true } });
    hasError(diagnoseDraft(), 'locked_capability', 'steps[3].spec.request.capability', locked);
  });

  it('missing_request_field: target pattern, reason, risk, mitigation and fallback', () => {
    for (const field of ['target_pattern', 'reason', 'risk', 'mitigation', 'fallback']) {
      errorsAre(
        mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request[field] = '')),
        [`missing_request_field @ steps[3].spec.request.${field}`],
      );
    }
  });

  it('invalid_duration and invalid_max_operations', () => {
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.duration_seconds = 0)),
      ['invalid_duration @ steps[3].spec.request.duration_seconds'],
    );
    for (const ops of [0, 1.5, '20', 1001]) {
      errorsAre(
        mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.max_operations = ops)),
        ['invalid_max_operations @ steps[3].spec.request.max_operations'],
      );
    }
  });

  it('invalid_param_limits and invalid_alternatives', () => {
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.param_limits = { command: 'rm' })),
      ['invalid_param_limits @ steps[3].spec.request.param_limits.command'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.param_limits = [])),
      ['invalid_param_limits @ steps[3].spec.request.param_limits'],
    );
    // A limit is an object with a known operator: a bare value or a misspelt bound is refused here,
    // not only later when the request is raised.
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.param_limits = { lines: 200, priority: { one_of: ['err'] } })),
      ['invalid_param_limits @ steps[3].spec.request.param_limits.lines'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.param_limits = { lines: { max: 'lots', maximum: 3 } })),
      ['invalid_param_limits @ steps[3].spec.request.param_limits.lines.max', 'invalid_param_limits @ steps[3].spec.request.param_limits.lines.maximum'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.spec.request.alternatives = ['x', 1])),
      ['invalid_alternatives @ steps[3].spec.request.alternatives'],
    );
  });

  it('request_capability_mismatch, unexpected_params and target_mismatch', () => {
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.capability = 'logs.query')),
      [],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.capability = 'service.restart')),
      ['request_capability_mismatch @ steps[3].capability'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.params = { unit: ATLAS })),
      ['unexpected_params @ steps[3].params'],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.target = ATLAS)),
      [],
    );
    errorsAre(
      mutate(diagnoseDraft, (_, s) => (s[3]!.target = 'db.service')),
      ['target_mismatch @ steps[3].target'],
    );
  });
});

describe('estimate and budget', () => {
  it('computes the estimate from the steps', () => {
    assert.deepEqual(validate(restartDraft(), registry).estimate, {
      invocations: 3, // restart + its precondition + the verify check
      approvals: 0,
      wall_seconds: 7, // 5 + 1 + 1
      network_ops: 0,
      money: 0,
      tokens: 0,
    });
    assert.deepEqual(validate(monitorDraft(), registry).estimate, {
      invocations: 4,
      approvals: 0,
      wall_seconds: 7 + 60 + 900 + 1, // + the wait, the stable period and one monitor check
      network_ops: 0,
      money: 0,
      tokens: 0,
    });
  });

  it('counts retries, approvals, network operations and money', () => {
    const paid: CapabilityDefinition = {
      ...BUILTIN_CAPABILITIES.find((d) => d.name === 'host.memory.status')!,
      name: 'paid.lookup',
      cost: { wall_seconds: 2, network_ops: 1, money: 0.5 },
    };
    const reg = registryWith({}, [paid]);
    const draft = plan('Mixed', [
      step('B1', { capability: 'browser.read', params: { url: 'https://example.com' }, max_attempts: 3 }),
      step('Q1', { capability: 'paid.lookup', max_attempts: 2, require_approval: true }),
      step('P1', { capability: 'service.restart', params: { unit: ATLAS }, expectation: restartDraft().steps[0]!.expectation }),
      step('R1', { ...diagnoseDraft().steps[3], require_approval: true }),
    ]);
    assert.deepEqual(estimatePlan(draft, reg), {
      invocations: 3 + 2 + 1,
      approvals: 2, // Q1 and R1 (once)
      wall_seconds: 15 + 4 + 5,
      network_ops: 3 + 2,
      money: 1,
      tokens: 0,
    });
    // A plan that requires approval needs one for each writing step.
    assert.equal(estimatePlan({ ...draft, require_approval: true }, reg).approvals, 3);
  });

  it('budget_exceeded: each dimension, at budget.<dimension>', () => {
    errorsAre(
      mutate(restartDraft, (d) => (d.budget = { invocations: 2 })),
      ['budget_exceeded @ budget.invocations'],
    );
    errorsAre(
      mutate(restartDraft, (d) => (d.budget = { invocations: 3 })),
      [],
    );
    errorsAre(
      mutate(restartDraft, (d) => (d.budget = { wall_seconds: 6 })),
      ['budget_exceeded @ budget.wall_seconds'],
    );
    errorsAre(
      mutate(restartDraft, (d, s) => {
        d.budget = { approvals: 0 };
        s[0]!.require_approval = true;
      }),
      ['budget_exceeded @ budget.approvals'],
    );
    errorsAre(plan('Read', [step('B1', { capability: 'browser.read', params: { url: 'https://example.com' } })], { budget: { network_ops: 0 } }), ['budget_exceeded @ budget.network_ops']);
    const paid: CapabilityDefinition = {
      ...BUILTIN_CAPABILITIES.find((d) => d.name === 'host.memory.status')!,
      name: 'paid.lookup',
      cost: { wall_seconds: 1, network_ops: 0, money: 2 },
    };
    errorsAre(plan('Pay', [step('Q1', { capability: 'paid.lookup' })], { budget: { money: 1 } }), ['budget_exceeded @ budget.money'], registryWith({}, [paid]));
  });

  it('budget_exceeded: invocations default to at most 20', () => {
    const steps = (n: number) => Array.from({ length: n }, (_, i) => step(`S${i}`, { capability: 'host.memory.status' }));
    errorsAre(plan('Twenty', steps(20)), []);
    const result = errorsAre(plan('Twenty-one', steps(21)), ['budget_exceeded @ budget.invocations']);
    assert.match(result.errors[0]!.message, /default budget allows 20/);
    errorsAre(plan('Twenty-one', steps(21), { budget: { invocations: 21 } }), []);
  });

  it('invalid_budget: caps are non-negative numbers of known dimensions', () => {
    errorsAre(
      mutate(restartDraft, (d) => (d.budget = { invocations: -1 })),
      ['invalid_budget @ budget.invocations'],
    );
    errorsAre(
      mutate(restartDraft, (d) => (d.budget = { wall_seconds: '300' })),
      ['invalid_budget @ budget.wall_seconds'],
    );
    errorsAre(
      mutate(restartDraft, (d) => (d.budget = { invocation: 5 })),
      ['invalid_budget @ budget.invocation'],
    );
    errorsAre(
      mutate(restartDraft, (d) => (d.budget = 10)),
      ['invalid_budget @ budget'],
    );
  });

  it("estimate_understated: the draft's own estimate is lower than the computed one", () => {
    const result = warningsAre(
      mutate(restartDraft, (d) => (d.estimate = { invocations: 1, wall_seconds: 100 })),
      ['estimate_understated @ estimate.invocations'],
    );
    assert.equal(result.valid, true);
    assert.equal(result.estimate.invocations, 3);
    warningsAre(
      mutate(restartDraft, (d) => (d.estimate = { invocations: 3 })),
      [],
    );
  });

  it('invalid_estimate: a warning, the claim is ignored', () => {
    warningsAre(
      mutate(restartDraft, (d) => (d.estimate = { invocations: -2 })),
      ['invalid_estimate @ estimate.invocations'],
    );
    warningsAre(
      mutate(restartDraft, (d) => (d.estimate = 'cheap')),
      ['invalid_estimate @ estimate'],
    );
  });

  it('budgetLimits applies the default invocation cap', () => {
    assert.deepEqual(budgetLimits({}), { invocations: 20 });
    assert.deepEqual(budgetLimits({ wall_seconds: 300, invocations: 5 }), { invocations: 5, wall_seconds: 300 });
    assert.deepEqual(budgetLimits(null), { invocations: 20 });
  });
});

describe('targets', () => {
  it('derives each step target from its parameters', () => {
    assert.deepEqual(deriveTargets(monitorDraft(), registry), [ATLAS, ATLAS, '', ATLAS]);
    assert.deepEqual(deriveTargets(diagnoseDraft(), registry), [ATLAS, 'host', '/var', '', ATLAS, '']);
    // A verify step without its own capability observes with the expectation's check.
    const inherited = mutate(restartDraft, (_, s) => {
      s[1]!.capability = '';
      s[1]!.params = {};
    });
    assert.deepEqual(deriveTargets(inherited, registry), [ATLAS, ATLAS]);
    assert.deepEqual(
      deriveTargets(
        mutate(restartDraft, (_, s) => (s[0]!.params = { unit: 'bad' })),
        registry,
      ),
      ['', ATLAS],
    );
  });

  it('fills only empty targets', () => {
    const filled = withDerivedTargets(
      mutate(restartDraft, (_, s) => (s[1]!.target = 'other.service')),
      registry,
    );
    assert.deepEqual(
      filled.steps.map((s) => s.target),
      [ATLAS, 'other.service'],
    );
  });
});

describe('robustness', () => {
  it('reports every problem at once', () => {
    const draft = mutate(restartDraft, (d, s) => {
      d.objective = '';
      s[0]!.max_attempts = 3;
      s[0]!.params = { unit: 'x' };
      s[1]!.depends_on = ['P2'];
      s[1]!.kind = 'verify';
      d.budget = { invocations: -1 };
    });
    assert.deepEqual(
      listed(validate(draft, registry).errors).map((e) => e.split(' @ ')[0]),
      ['missing_objective', 'unknown_dependency', 'invalid_params', 'non_idempotent_retry', 'verify_not_dependent', 'invalid_budget'],
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = validate(input as PlanDraft, registry);
        assert.equal(typeof result.valid, 'boolean');
        assert.ok(!result.errors.some((e) => e.code === 'validation_failed'), JSON.stringify(result.errors));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws when any part of a valid plan is replaced by arbitrary JSON', () => {
    const paths = collectPaths(monitorDraft());
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.jsonValue(), (path, value) => {
        const draft = monitorDraft();
        setAt(draft, path, value);
        const result = validate(draft, registry);
        assert.ok(!result.errors.some((e) => e.code === 'validation_failed'), JSON.stringify(result.errors));
        for (const issue of [...result.errors, ...result.warnings]) {
          assert.match(issue.code, /^[a-z]+(?:_[a-z]+)*$/);
          assert.ok(issue.message.length > 0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('validation_failed: a hostile draft is refused, not thrown', () => {
    const draft = restartDraft();
    Object.defineProperty(draft, 'objective', {
      get() {
        throw new Error('boom');
      },
    });
    assert.deepEqual(listed(validate(draft, registry).errors), ['validation_failed @ ']);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function collectPaths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const path = [...prefix, Array.isArray(value) ? Number(k) : k];
      out.push(path);
      collectPaths(v, path, out);
    }
  }
  return out;
}

function setAt(target: unknown, path: (string | number)[], value: unknown): void {
  let node = target as Loose;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]!] = value;
}
