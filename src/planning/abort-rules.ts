// Validation of a draft's abort conditions (see src/core/abort-conditions.ts for the vocabulary).
// A condition the executor evaluates must name steps of the plan that can make it hold: a
// failing step, read-only observations, a verify step. Plain words are kept as display_only
// with a warning, so an approver still reads them and nobody believes they are checked.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { ABORT_WHENS } from '../core/abort-conditions.ts';
import type { Findings, Obj } from './findings.ts';
import { isNonEmptyString, isObj, show } from './findings.ts';

export const MAX_ABORT_CONDITIONS = 10;
export const MAX_ABORT_STATEMENT = 500;

interface StepLike {
  raw: Obj;
}

export function abortConditionsAt(findings: Findings, draft: Obj, byKey: ReadonlyMap<string, StepLike>, registry: CapabilityRegistry): void {
  const list = draft.abort_conditions;
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    findings.error('invalid_abort_conditions', 'abort_conditions', 'abort_conditions must be a list');
    return;
  }
  if (list.length > MAX_ABORT_CONDITIONS) {
    findings.error('too_many_abort_conditions', 'abort_conditions', `a plan has at most ${MAX_ABORT_CONDITIONS} abort conditions, got ${list.length}`);
  }
  list.forEach((entry, i) => conditionAt(findings, entry, `abort_conditions[${i}]`, byKey, registry));
}

function conditionAt(findings: Findings, entry: unknown, path: string, byKey: ReadonlyMap<string, StepLike>, registry: CapabilityRegistry): void {
  if (typeof entry === 'string') {
    if (entry.trim() === '') findings.error('empty_abort_condition', path, 'an abort condition states something');
    else if (entry.length > MAX_ABORT_STATEMENT) findings.error('abort_condition_too_long', path, `an abort condition has at most ${MAX_ABORT_STATEMENT} characters`);
    else {
      findings.warn(
        'abort_condition_display_only',
        path,
        `"${show(entry)}" is shown to approvers but never evaluated; write {when: ${ABORT_WHENS.filter((w) => w !== 'display_only').join(' | ')}, ...} for the executor to stop the plan on it`,
      );
    }
    return;
  }
  if (!isObj(entry)) {
    findings.error('invalid_abort_condition', path, `an abort condition is words or an object with "when", got ${show(entry)}`);
    return;
  }
  const { when } = entry;
  if (!(ABORT_WHENS as readonly unknown[]).includes(when)) {
    findings.error('unknown_abort_condition', `${path}.when`, `"${show(when)}" is not an abort condition; one of ${ABORT_WHENS.join(', ')}`);
    return;
  }
  if (entry.statement !== undefined) {
    if (typeof entry.statement !== 'string') findings.error('invalid_type', `${path}.statement`, 'statement must be a string');
    else if (entry.statement.length > MAX_ABORT_STATEMENT) findings.error('abort_condition_too_long', `${path}.statement`, `a statement has at most ${MAX_ABORT_STATEMENT} characters`);
  }
  const stepAt = (key: unknown, at: string): StepLike | null => {
    if (!isNonEmptyString(key)) {
      findings.error('missing_abort_step', at, `${String(when)} names the step it watches`);
      return null;
    }
    const step = byKey.get(key);
    if (!step) findings.error('abort_condition_unknown_step', at, `${String(when)} names ${show(key)}, which is not a step of this plan`);
    return step ?? null;
  };
  switch (when) {
    case 'display_only':
      if (!isNonEmptyString(entry.statement)) findings.error('empty_abort_condition', `${path}.statement`, 'a display_only condition states something');
      else findings.warn('abort_condition_display_only', path, `"${show(entry.statement)}" is shown to approvers but never evaluated`);
      return;
    case 'step_failed':
      stepAt(entry.step, `${path}.step`);
      return;
    case 'expectation_refuted': {
      const step = stepAt(entry.step, `${path}.step`);
      if (step && step.raw.kind !== 'verify') {
        findings.error('abort_condition_not_verify', `${path}.step`, `expectation_refuted watches a verify step; ${show(entry.step)} is a ${show(step.raw.kind)} step`);
      }
      return;
    }
    case 'every_observation_failed': {
      if (!Array.isArray(entry.steps) || entry.steps.length === 0) {
        findings.error('missing_abort_step', `${path}.steps`, 'every_observation_failed names the observations it watches (a list of step keys)');
        return;
      }
      entry.steps.forEach((key, j) => {
        const at = `${path}.steps[${j}]`;
        const step = stepAt(key, at);
        if (!step) return;
        const definition = typeof step.raw.capability === 'string' ? registry.get(step.raw.capability) : undefined;
        const observes = (step.raw.kind === 'capability' || step.raw.kind === 'monitor') && definition?.readOnly === true;
        if (!observes) findings.error('abort_condition_not_observation', at, `${show(key)} is not an observation (a capability or monitor step with a read-only capability)`);
      });
      return;
    }
  }
}
