// Rules for the parts of a plan that name a capability: the capability itself, its
// parameters, and checks (read-only observations compared with an expected value) as used by
// expectations, preconditions, verify and monitor steps.

import type { CapabilityDefinition } from '../capabilities/definition.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { Comparisons } from '../core/vocabulary.ts';
import { didYouMean } from './did-you-mean.ts';
import type { Findings } from './findings.ts';
import { isNonEmptyString, isObj, show } from './findings.ts';

export const LIMITS = Object.freeze({
  maxAttempts: 10,
  /** Expectation windows: a prediction is resolved within a day at most. */
  maxWindowSeconds: 86_400,
  maxWaitSeconds: 7 * 86_400,
  maxStableSeconds: 86_400,
  maxDeadlineSeconds: 7 * 86_400,
  maxIntervalSeconds: 3_600,
  maxRequestSeconds: 7 * 86_400,
  maxRequestOperations: 1_000,
  maxFieldLength: 200,
});

/** A dotted path into an observation: `active_state`, `filesystems.0.used_percent`. */
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*$/;

const ORDERING = new Set(['greater_than', 'at_least', 'less_than', 'at_most']);
const MEMBERSHIP = new Set(['in', 'not_in']);

export type CapabilityUse = 'action' | 'check' | 'request';

/**
 * Resolves a capability name used at `path`. Returns the definition when it is registered
 * (even when locked or otherwise refused, so its parameters can still be checked).
 */
export function capabilityAt(registry: CapabilityRegistry, findings: Findings, name: unknown, path: string, use: CapabilityUse): CapabilityDefinition | undefined {
  if (typeof name !== 'string' || name === '') {
    findings.error('missing_capability', path, 'a capability must be named');
    return undefined;
  }
  const definition = registry.get(name);
  if (!definition) {
    const known = registry.list().map((d) => d.name);
    findings.error('unknown_capability', path, `${show(name)} is not a registered capability${didYouMean(name, known)}`);
    return undefined;
  }
  if (definition.locked) findings.error('locked_capability', path, `${name} is locked: it is registered but may not be used`);
  if (use === 'check' && !definition.readOnly) {
    findings.error('check_not_read_only', path, `${name} changes the system; a check may only use a read-only capability`);
  }
  return definition;
}

/** Schema-checks parameters; `base` is the path of the object holding `params`. */
export function paramsAt(registry: CapabilityRegistry, findings: Findings, definition: CapabilityDefinition, params: unknown, base: string): boolean {
  const issues = registry.checkParams(definition.name, params === undefined || params === null ? {} : params);
  for (const issue of issues) findings.error(issue.code, `${base}.${issue.path}`, issue.message);
  return issues.length === 0;
}

export interface CheckPart {
  value: unknown;
  path: string;
  /** Said after the message when the part was taken from elsewhere (a verify step's expectation). */
  from?: string;
  /** The part's own problems are reported where it stands; only use it to check the others. */
  quiet?: boolean;
}

/** Field, comparison and value of a check, against the capability that observes. */
export function checkPartsAt(findings: Findings, definition: CapabilityDefinition | undefined, field: CheckPart, comparison: CheckPart, value: CheckPart): void {
  const from = (part: CheckPart) => (part.from ? ` (${part.from})` : '');
  if (field.quiet) {
    // reported where the field stands
  } else if (typeof field.value !== 'string' || !FIELD_PATH.test(field.value) || field.value.length > LIMITS.maxFieldLength) {
    findings.error('invalid_observation_field', field.path, `the observed field must be a dotted name such as active_state, got ${show(field.value)}${from(field)}`);
  } else if (definition) {
    const top = field.value.split('.')[0]!;
    if (!definition.observes.includes(top)) {
      findings.error('unknown_observation_field', field.path, `${definition.name} does not observe "${top}" (it observes ${definition.observes.join(', ')})${from(field)}`);
    }
  }

  if (!Comparisons.has(comparison.value)) {
    if (comparison.quiet) return;
    findings.error(
      'unknown_comparison',
      comparison.path,
      `${comparison.value === undefined ? 'a check must name its comparison' : `${show(comparison.value)} is not a comparison`}` + ` (use one of ${Comparisons.values.join(', ')})${from(comparison)}`,
    );
    return;
  }
  const how = comparison.value;
  const present = value.value !== undefined;
  if (value.quiet) return;
  if (how === 'exists') {
    if (present) findings.warn('ignored_check_value', value.path, `exists compares no value; ${show(value.value)} is ignored${from(value)}`);
    return;
  }
  if (!present) {
    findings.error('missing_check_value', value.path, `${how} needs a value to compare with${from(value)}`);
  } else if (ORDERING.has(how) && (typeof value.value !== 'number' || !Number.isFinite(value.value))) {
    findings.error('invalid_check_value', value.path, `${how} compares numbers, got ${show(value.value)}${from(value)}`);
  } else if (MEMBERSHIP.has(how) && !Array.isArray(value.value)) {
    findings.error('invalid_check_value', value.path, `${how} needs a list of values, got ${show(value.value)}${from(value)}`);
  }
}

/** A complete check (expectation check, precondition): read-only capability, valid params and parts. */
export function checkAt(registry: CapabilityRegistry, findings: Findings, check: unknown, path: string): void {
  if (!isObj(check)) {
    findings.error('invalid_check', path, 'a check must be an object with capability, params, field, comparison and value');
    return;
  }
  const definition = capabilityAt(registry, findings, check.capability, `${path}.capability`, 'check');
  if (definition) paramsAt(registry, findings, definition, check.params, path);
  checkPartsAt(findings, definition, { value: check.field, path: `${path}.field` }, { value: check.comparison, path: `${path}.comparison` }, { value: check.value, path: `${path}.value` });
}

/** What a step expects to follow its action. */
export function expectationAt(registry: CapabilityRegistry, findings: Findings, expectation: unknown, path: string): void {
  if (!isObj(expectation)) {
    findings.error('invalid_expectation', path, 'an expectation must be an object with statement, confidence, within_seconds and check');
    return;
  }
  if (!isNonEmptyString(expectation.statement)) {
    findings.error('missing_statement', `${path}.statement`, 'an expectation must say in words what should follow');
  }
  const confidence = expectation.confidence;
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
    findings.error('invalid_confidence', `${path}.confidence`, `confidence must be a number from 0 to 1, got ${show(confidence)}`);
  }
  const within = expectation.within_seconds;
  if (typeof within !== 'number' || !Number.isInteger(within) || within < 1 || within > LIMITS.maxWindowSeconds) {
    findings.error('invalid_window', `${path}.within_seconds`, `within_seconds must be a whole number of seconds from 1 to ${LIMITS.maxWindowSeconds}, got ${show(within)}`);
  }
  checkAt(registry, findings, expectation.check, `${path}.check`);
}

/** A precondition is a check with an optional statement and `fulfils_intention` flag. */
export function preconditionAt(registry: CapabilityRegistry, findings: Findings, precondition: unknown, path: string): void {
  checkAt(registry, findings, precondition, path);
  if (!isObj(precondition)) return;
  if (precondition.statement !== undefined && typeof precondition.statement !== 'string') {
    findings.error('invalid_precondition', `${path}.statement`, 'statement must be text');
  }
  if (precondition.fulfils_intention !== undefined && typeof precondition.fulfils_intention !== 'boolean') {
    findings.error('invalid_precondition', `${path}.fulfils_intention`, 'fulfils_intention must be true or false');
  }
}
