// Plan validation: a pure function of a draft and the capability registry. It trusts nothing
// in the draft (a model may have written it), never throws, and reports every problem it
// finds with a stable code and the path of the offending field. The rules and codes are
// listed in docs/validation.md.

import type { CapabilityDefinition } from '../capabilities/definition.ts';
import { checkTargetPattern } from '../capabilities/policy/target-pattern.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { PlanDraft, ValidationResult } from '../core/plan.ts';
import { MAX_KEY_LENGTH, MAX_STEPS } from '../core/plan.ts';
import { InternalActions, StepKinds } from '../core/vocabulary.ts';
import { LIMITS, capabilityAt, checkPartsAt, expectationAt, paramsAt, preconditionAt } from './check-rules.ts';
import type { CheckPart } from './check-rules.ts';
import { abortConditionsAt } from './abort-rules.ts';
import { assumptionShapeAt } from './assumptions.ts';
import { Findings, bounded, distinct, isNonEmptyString, isObj, isPositiveInteger, show } from './findings.ts';
import type { Obj } from './findings.ts';
import type { Edge } from './graph.ts';
import { findCycles, reaches } from './graph.ts';
import { budgetAt, estimatePlan, zeroResources } from './resources.ts';

export { LIMITS as VALIDATION_LIMITS } from './check-rules.ts';
export { budgetLimits, estimatePlan } from './resources.ts';

const KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;
const MAX_MESSAGE_LENGTH = 2_000;

/** Validates a draft. `valid` is true exactly when there are no errors; warnings never block. */
export function validate(draft: PlanDraft, registry: CapabilityRegistry): ValidationResult {
  const findings = new Findings();
  let estimate = zeroResources();
  try {
    estimate = validateInto(draft as unknown, registry, findings);
  } catch (error) {
    // A safety net, not a path: an input the rules did not foresee must still be refused.
    findings.error('validation_failed', '', `the draft could not be validated: ${error instanceof Error ? error.message : show(error)}`);
  }
  const errors = bounded(distinct(findings.errors));
  return { valid: errors.length === 0, errors, warnings: bounded(distinct(findings.warnings), 'warnings'), estimate };
}

/** One step of the draft as validation sees it. */
interface StepView {
  index: number;
  path: string;
  raw: Obj;
  /** The key when it is a usable one and this is its first use; otherwise null. */
  key: string | null;
}

function validateInto(draft: unknown, registry: CapabilityRegistry, findings: Findings): ReturnType<typeof zeroResources> {
  if (!isObj(draft)) {
    findings.error('invalid_draft', '', 'a plan draft must be an object');
    return zeroResources();
  }
  if (!isNonEmptyString(draft.objective)) findings.error('missing_objective', 'objective', 'the plan must state its objective');

  let rawSteps: unknown[] = [];
  if (!Array.isArray(draft.steps)) {
    findings.error('no_steps', 'steps', 'the plan must have a list of steps');
  } else {
    rawSteps = draft.steps;
    if (rawSteps.length === 0) findings.error('no_steps', 'steps', 'the plan has no steps');
    if (rawSteps.length > MAX_STEPS) {
      findings.error('too_many_steps', 'steps', `the plan has ${rawSteps.length} steps; at most ${MAX_STEPS} are allowed`);
    }
  }

  const steps = keysAndTitles(rawSteps, findings);
  const byKey = new Map<string, StepView>();
  for (const step of steps) if (step.key !== null) byKey.set(step.key, step);
  const edges = dependencies(steps, byKey, findings);
  const nodes = [...byKey.keys()];

  for (const step of steps) stepRules(step, { registry, findings, byKey, nodes, edges });

  assumptionShapeAt(findings, draft);
  abortConditionsAt(findings, draft, byKey, registry);
  const estimate = estimatePlan(draft as unknown as PlanDraft, registry);
  budgetAt(findings, draft, estimate);
  return estimate;
}

function keysAndTitles(rawSteps: unknown[], findings: Findings): StepView[] {
  const views: StepView[] = [];
  const firstUse = new Map<string, number>();
  rawSteps.forEach((raw, index) => {
    const path = `steps[${index}]`;
    if (!isObj(raw)) {
      findings.error('invalid_step', path, 'a step must be an object');
      return;
    }
    let key: string | null = null;
    const k = raw.key;
    if (typeof k !== 'string' || k.length === 0 || k.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(k)) {
      findings.error('invalid_key', `${path}.key`, `a step key must be 1 to ${MAX_KEY_LENGTH} letters, digits, "_" or "-", starting with a letter; got ${show(k)}`);
    } else if (firstUse.has(k)) {
      findings.error('duplicate_key', `${path}.key`, `key "${k}" is already used by steps[${firstUse.get(k)}]`);
    } else {
      firstUse.set(k, index);
      key = k;
    }
    if (!isNonEmptyString(raw.title)) findings.error('missing_title', `${path}.title`, 'every step needs a title');
    views.push({ index, path, raw, key });
  });
  return views;
}

/** Dependency references; returns the edges `[step, dependency]` of well-formed ones. */
function dependencies(steps: StepView[], byKey: Map<string, StepView>, findings: Findings): Edge[] {
  const edges: Edge[] = [];
  for (const step of steps) {
    const deps = step.raw.depends_on;
    const at = `${step.path}.depends_on`;
    if (deps === undefined || deps === null) continue;
    if (!Array.isArray(deps)) {
      findings.error('invalid_dependency', at, 'depends_on must be a list of step keys');
      continue;
    }
    // A step can depend on every other step at most; a longer list is refused whole, not entry by entry.
    if (deps.length > MAX_STEPS) {
      findings.error('too_many_dependencies', at, `depends_on lists ${deps.length} entries; a plan has at most ${MAX_STEPS} steps`);
      continue;
    }
    const seen = new Set<string>();
    deps.forEach((dep: unknown, j) => {
      const path = `${at}[${j}]`;
      if (typeof dep !== 'string') {
        findings.error('invalid_dependency', path, `a dependency must be a step key, got ${show(dep)}`);
      } else if (dep === step.raw.key) {
        findings.error('self_dependency', path, `step "${dep}" cannot depend on itself`);
      } else if (!byKey.has(dep)) {
        findings.error('unknown_dependency', path, `no step has the key ${show(dep)}`);
      } else if (seen.has(dep)) {
        findings.error('duplicate_dependency', path, `"${dep}" is listed more than once`);
      } else {
        seen.add(dep);
        if (step.key !== null) edges.push([step.key, dep]);
      }
    });
  }

  const nodes = [...byKey.keys()];
  for (const cycle of findCycles(nodes, edges)) {
    const [first, next] = [cycle[0]!, cycle[1] ?? cycle[0]!];
    const owner = byKey.get(first)!;
    const position = (owner.raw.depends_on as unknown[]).indexOf(next);
    findings.error(
      'dependency_cycle',
      `${owner.path}.depends_on[${position}]`,
      `steps ${[...cycle, first].join(' -> ')} depend on each other in a cycle (each waits for the next), so none of them can start`,
    );
  }
  return edges;
}

interface Context {
  registry: CapabilityRegistry;
  findings: Findings;
  byKey: Map<string, StepView>;
  nodes: string[];
  edges: Edge[];
}

function stepRules(step: StepView, ctx: Context): void {
  const { findings } = ctx;
  const { raw, path } = step;

  const attempts = raw.max_attempts;
  if (attempts !== undefined && !isPositiveInteger(attempts, LIMITS.maxAttempts)) {
    findings.error('invalid_max_attempts', `${path}.max_attempts`, `max_attempts must be a whole number from 1 to ${LIMITS.maxAttempts}, got ${show(attempts)}`);
  }
  if (raw.require_approval !== undefined && typeof raw.require_approval !== 'boolean') {
    findings.error('invalid_require_approval', `${path}.require_approval`, 'require_approval must be true or false');
  }
  if (raw.target !== undefined && raw.target !== null && typeof raw.target !== 'string') {
    findings.error('invalid_target', `${path}.target`, 'a target must be text');
  }
  if (raw.spec !== undefined && raw.spec !== null && !isObj(raw.spec)) {
    findings.error('invalid_spec', `${path}.spec`, 'spec must be an object');
  }

  const kind = raw.kind;
  if (!StepKinds.has(kind)) {
    findings.error('unknown_kind', `${path}.kind`, `${show(kind)} is not a step kind (use one of ${StepKinds.values.join(', ')})`);
    return;
  }
  if (kind !== 'capability') {
    if (present(raw.expectation)) {
      findings.error('unexpected_expectation', `${path}.expectation`, `only capability steps carry an expectation, not ${kind} steps`);
    }
    if (present(raw.precondition)) {
      findings.error('unexpected_precondition', `${path}.precondition`, `only capability steps carry a precondition, not ${kind} steps`);
    }
  }

  switch (kind) {
    case 'capability':
      return capabilityStep(step, ctx);
    case 'verify':
      return verifyStep(step, ctx);
    case 'monitor':
      return monitorStep(step, ctx);
    case 'wait':
      noCapability(step, ctx);
      durationAt(findings, specOf(raw).seconds, `${path}.spec.seconds`, LIMITS.maxWaitSeconds, true);
      return;
    case 'internal':
      noCapability(step, ctx);
      return internalStep(step, ctx);
    case 'request_capability':
      return requestStep(step, ctx);
  }
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function specOf(raw: Obj): Obj {
  return isObj(raw.spec) ? raw.spec : {};
}

function hasParams(raw: Obj): boolean {
  const params = raw.params;
  return present(params) && !(isObj(params) && Object.keys(params).length === 0);
}

function statedTarget(raw: Obj): string {
  return typeof raw.target === 'string' ? raw.target : '';
}

/** A stated target must be the one the parameters imply; an empty one is derived later. */
function targetAt(ctx: Context, step: StepView, definition: CapabilityDefinition, params: unknown): void {
  const stated = statedTarget(step.raw);
  if (stated === '') return;
  const derived = ctx.registry.targetOf(definition.name, params ?? {});
  if (derived !== '' && derived !== stated) {
    ctx.findings.error('target_mismatch', `${step.path}.target`, `the target is ${show(stated)} but the parameters of ${definition.name} act on ${show(derived)}`);
  }
}

function durationAt(findings: Findings, value: unknown, path: string, max: number, required: boolean): boolean {
  if (value === undefined && !required) return true;
  if (isPositiveInteger(value, max)) return true;
  findings.error('invalid_duration', path, `must be a whole number of seconds from 1 to ${max}, got ${show(value)}`);
  return false;
}

function capabilityStep(step: StepView, ctx: Context): void {
  const { registry, findings } = ctx;
  const { raw, path } = step;
  const definition = capabilityAt(registry, findings, raw.capability, `${path}.capability`, 'action');
  if (definition) {
    if (paramsAt(registry, findings, definition, raw.params, path)) targetAt(ctx, step, definition, raw.params);
    const writes = !definition.readOnly;
    const attempts = raw.max_attempts;
    if (writes && !definition.idempotent && typeof attempts === 'number' && attempts > 1) {
      findings.error('non_idempotent_retry', `${path}.max_attempts`, `${definition.name} is not idempotent: repeating it is not safe, so max_attempts must be 1`);
    }
    if (writes && !present(raw.expectation)) {
      findings.warn('write_without_expectation', `${path}.expectation`, `${definition.name} changes the system but the step states no expectation, so its outcome will not be verified`);
    }
  }
  if (present(raw.expectation)) expectationAt(registry, findings, raw.expectation, `${path}.expectation`);
  if (present(raw.precondition)) preconditionAt(registry, findings, raw.precondition, `${path}.precondition`);
}

function verifyStep(step: StepView, ctx: Context): void {
  const { registry, findings, byKey } = ctx;
  const { raw, path } = step;
  const spec = specOf(raw);

  // Which step's expectation this resolves.
  let verified: StepView | undefined;
  const verifies = spec.verifies;
  if (typeof verifies !== 'string' || verifies === '') {
    findings.error('verify_target_unknown', `${path}.spec.verifies`, 'a verify step must name the step it verifies in spec.verifies');
  } else if (verifies === raw.key) {
    findings.error('verify_target_unknown', `${path}.spec.verifies`, 'a verify step cannot verify itself');
  } else if (!byKey.has(verifies)) {
    findings.error('verify_target_unknown', `${path}.spec.verifies`, `no step has the key ${show(verifies)}`);
  } else {
    verified = byKey.get(verifies)!;
    if (step.key !== null && !reaches(ctx.nodes, ctx.edges, step.key, verifies)) {
      findings.error('verify_not_dependent', `${path}.depends_on`, `the verify step must depend (directly or through other steps) on "${verifies}", the step it verifies`);
    }
    if (!present(verified.raw.expectation)) {
      findings.error('verify_without_expectation', `${path}.spec.verifies`, `"${verifies}" states no expectation, so there is nothing to verify`);
    }
  }
  durationAt(findings, spec.interval_seconds, `${path}.spec.interval_seconds`, LIMITS.maxIntervalSeconds, false);

  // The check: the step's own capability and parameters, or the expectation's; spec fields
  // override the expectation's field, comparison and value one by one.
  const expected = verified && isObj(verified.raw.expectation) && isObj(verified.raw.expectation.check) ? verified.raw.expectation.check : undefined;
  const ownCapability = present(raw.capability) && raw.capability !== '';
  let definition: CapabilityDefinition | undefined;
  let params: unknown;
  if (ownCapability) {
    definition = capabilityAt(registry, findings, raw.capability, `${path}.capability`, 'check');
    params = raw.params;
    if (definition && paramsAt(registry, findings, definition, params, path)) targetAt(ctx, step, definition, params);
  } else {
    if (hasParams(raw)) {
      findings.error('unexpected_params', `${path}.params`, "parameters need a capability: name one, or leave both empty to use the expectation's check");
    }
    if (expected && typeof expected.capability === 'string') {
      definition = registry.get(expected.capability);
      params = expected.params;
      if (definition && registry.checkParams(definition.name, params ?? {}).length === 0) targetAt(ctx, step, definition, params);
    }
  }

  const overrides = ['field', 'comparison', 'value'].some((name) => spec[name] !== undefined);
  // Without overrides the expectation's check is used as it stands and is validated there;
  // without an expectation there is nothing to inherit (reported as verify_without_expectation).
  if (!overrides && (!ownCapability || !expected)) return;
  // Otherwise the combination is new. An inherited part is checked again only where it meets
  // something new (the field another capability, the value another comparison); its own
  // problems are already reported at the expectation.
  const from = verified ? `taken from the expectation of "${verified.raw.key as string}"` : undefined;
  const fresh: Record<string, boolean> = {
    field: definition?.name !== expected?.capability,
    comparison: false,
    value: spec.comparison !== undefined,
  };
  const part = (name: string): CheckPart =>
    spec[name] !== undefined || !expected
      ? { value: spec[name], path: `${path}.spec.${name}` }
      : { value: expected[name], path: `${path}.spec.${name}`, quiet: !fresh[name], ...(from ? { from } : {}) };
  checkPartsAt(findings, definition, part('field'), part('comparison'), part('value'));
}

function monitorStep(step: StepView, ctx: Context): void {
  const { registry, findings } = ctx;
  const { raw, path } = step;
  const spec = specOf(raw);
  const definition = capabilityAt(registry, findings, raw.capability, `${path}.capability`, 'check');
  if (definition && paramsAt(registry, findings, definition, raw.params, path)) targetAt(ctx, step, definition, raw.params);
  checkPartsAt(findings, definition, { value: spec.field, path: `${path}.spec.field` }, { value: spec.comparison, path: `${path}.spec.comparison` }, { value: spec.value, path: `${path}.spec.value` });
  const stableOk = durationAt(findings, spec.stable_seconds, `${path}.spec.stable_seconds`, LIMITS.maxStableSeconds, true);
  const deadlineOk = durationAt(findings, spec.deadline_seconds, `${path}.spec.deadline_seconds`, LIMITS.maxDeadlineSeconds, true);
  if (stableOk && deadlineOk && (spec.deadline_seconds as number) <= (spec.stable_seconds as number)) {
    findings.error(
      'deadline_not_after_stable',
      `${path}.spec.deadline_seconds`,
      `the deadline (${show(spec.deadline_seconds)} s) must be longer than the stable period (${show(spec.stable_seconds)} s)`,
    );
  }
  durationAt(findings, spec.interval_seconds, `${path}.spec.interval_seconds`, LIMITS.maxIntervalSeconds, false);
}

/** Wait and internal steps invoke nothing. */
function noCapability(step: StepView, ctx: Context): void {
  const { raw, path } = step;
  const kind = raw.kind as string;
  if (present(raw.capability) && raw.capability !== '') {
    ctx.findings.error('unexpected_capability', `${path}.capability`, `a ${kind} step invokes no capability`);
  }
  if (hasParams(raw)) ctx.findings.error('unexpected_params', `${path}.params`, `a ${kind} step takes no parameters`);
  if (statedTarget(raw) !== '') ctx.findings.error('unexpected_target', `${path}.target`, `a ${kind} step acts on no target`);
}

function internalStep(step: StepView, ctx: Context): void {
  const { raw, path } = step;
  const spec = specOf(raw);
  if (!InternalActions.has(spec.action)) {
    ctx.findings.error('unknown_internal_action', `${path}.spec.action`, `${show(spec.action)} is not an internal action (use one of ${InternalActions.values.join(', ')})`);
    return;
  }
  if (spec.action === 'notify_operator') {
    const message = spec.message;
    if (!isNonEmptyString(message) || message.length > MAX_MESSAGE_LENGTH) {
      ctx.findings.error('missing_message', `${path}.spec.message`, `notify_operator needs the note's text (1 to ${MAX_MESSAGE_LENGTH} characters) in spec.message`);
    }
  }
}

function requestStep(step: StepView, ctx: Context): void {
  const { registry, findings } = ctx;
  const { raw, path } = step;
  if (hasParams(raw)) {
    findings.error('unexpected_params', `${path}.params`, 'a request_capability step takes no parameters; limits go in spec.request.param_limits');
  }
  const request = specOf(raw).request;
  const at = `${path}.spec.request`;
  if (!isObj(request)) {
    findings.error('missing_request', at, 'a request_capability step must describe its request in spec.request');
    return;
  }
  const definition = capabilityAt(registry, findings, request.capability, `${at}.capability`, 'request');
  if (present(raw.capability) && raw.capability !== '' && raw.capability !== request.capability) {
    findings.error('request_capability_mismatch', `${path}.capability`, `the step names ${show(raw.capability)} but requests ${show(request.capability)}`);
  }
  const stated = statedTarget(raw);
  if (stated !== '' && stated !== request.target_pattern) {
    findings.error('target_mismatch', `${path}.target`, `the target must be empty or the requested target pattern ${show(request.target_pattern)}`);
  }
  for (const field of ['target_pattern', 'reason', 'risk', 'mitigation', 'fallback']) {
    if (!isNonEmptyString(request[field])) {
      findings.error('missing_request_field', `${at}.${field}`, `a capability request must state its ${field.replace('_', ' ')}`);
    }
  }
  // The capability service refuses such a pattern when the request is raised: refused here, the
  // plan is not stored as valid only to fail at that step.
  const badPattern = isNonEmptyString(request.target_pattern) ? checkTargetPattern(request.target_pattern) : null;
  if (badPattern) findings.error('invalid_target_pattern', `${at}.target_pattern`, `${badPattern}, got ${show(request.target_pattern)}`);
  durationAt(findings, request.duration_seconds, `${at}.duration_seconds`, LIMITS.maxRequestSeconds, true);
  if (!isPositiveInteger(request.max_operations, LIMITS.maxRequestOperations)) {
    findings.error('invalid_max_operations', `${at}.max_operations`, `max_operations must be a whole number from 1 to ${LIMITS.maxRequestOperations}, got ${show(request.max_operations)}`);
  }
  const limits = request.param_limits;
  if (present(limits)) {
    if (!isObj(limits)) {
      findings.error('invalid_param_limits', `${at}.param_limits`, 'param_limits must be an object keyed by parameter name');
    } else if (definition) {
      for (const problem of registry.checkParamLimits(definition.name, limits, `${at}.param_limits`)) {
        findings.error(problem.code, problem.path, problem.message);
      }
    }
  }
  const alternatives = request.alternatives;
  if (present(alternatives) && (!Array.isArray(alternatives) || alternatives.some((a) => typeof a !== 'string'))) {
    findings.error('invalid_alternatives', `${at}.alternatives`, 'alternatives must be a list of texts');
  }
}

/**
 * The target each step's parameters imply, by step position: the unit, the URL's host,
 * `host`, or a path for capability, verify and monitor steps; '' where there is none (other
 * kinds, unknown capabilities, parameters that fail their schema).
 */
export function deriveTargets(draft: PlanDraft, registry: CapabilityRegistry): string[] {
  const input: unknown = draft;
  if (!isObj(input) || !Array.isArray(input.steps)) return [];
  const steps: unknown[] = input.steps;
  const byKey = new Map<unknown, Obj>();
  for (const s of steps) if (isObj(s) && !byKey.has(s.key)) byKey.set(s.key, s);
  return steps.map((s) => {
    if (!isObj(s)) return '';
    if (s.kind === 'capability' || s.kind === 'monitor' || (s.kind === 'verify' && present(s.capability) && s.capability !== '')) {
      return typeof s.capability === 'string' ? registry.targetOf(s.capability, s.params ?? {}) : '';
    }
    if (s.kind === 'verify') {
      const verified = byKey.get(specOf(s).verifies);
      const check = verified && isObj(verified.expectation) ? verified.expectation.check : undefined;
      if (isObj(check) && typeof check.capability === 'string') return registry.targetOf(check.capability, check.params ?? {});
    }
    return '';
  });
}

/** A copy of the draft in which every step without a target gets the one its parameters imply. */
export function withDerivedTargets(draft: PlanDraft, registry: CapabilityRegistry): PlanDraft {
  const targets = deriveTargets(draft, registry);
  if (!Array.isArray(draft.steps)) return draft;
  return {
    ...draft,
    steps: draft.steps.map((step, i) => (isObj(step) && !step.target && targets[i] ? { ...step, target: targets[i]! } : step)),
  };
}
