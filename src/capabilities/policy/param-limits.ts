// Parameter limits narrow a capability request or grant beyond its target pattern, e.g.
// `{"lines": {"max": 200}, "priority": {"one_of": ["err", "warning"]}}`. Parameters not named
// are unrestricted (the capability's schema still bounds them).

import type { JsonObject, JsonValue, ValidationIssue } from '../../core/plan.ts';
import { canonicalJson } from './action-digest.ts';
import { matchesTarget } from './target-pattern.ts';

export interface ParamLimit {
  equals?: JsonValue;
  one_of?: JsonValue[];
  max?: number;
  min?: number;
  /** A glob (as for targets) that a string parameter must match. */
  pattern?: string;
}
export type ParamLimits = Record<string, ParamLimit>;

const LIMIT_KEYS = new Set(['equals', 'one_of', 'max', 'min', 'pattern']);

/** Checks limits as given by a mind or an operator; `known` are the capability's parameter names. */
export function checkParamLimits(limits: unknown, known: readonly string[], path: string): ValidationIssue[] {
  if (limits === undefined || limits === null) return [];
  const problem = (at: string, message: string): ValidationIssue => ({ code: 'invalid_param_limits', path: at, message });
  if (typeof limits !== 'object' || Array.isArray(limits)) return [problem(path, 'parameter limits must be an object')];
  const issues: ValidationIssue[] = [];
  for (const [name, limit] of Object.entries(limits)) {
    const at = `${path}.${name}`;
    if (!known.includes(name)) {
      issues.push(problem(at, `the capability has no parameter "${name}"`));
      continue;
    }
    if (typeof limit !== 'object' || limit === null || Array.isArray(limit) || Object.keys(limit).length === 0) {
      issues.push(problem(at, 'a limit is an object with equals, one_of, max, min or pattern'));
      continue;
    }
    for (const [key, value] of Object.entries(limit)) {
      if (!LIMIT_KEYS.has(key)) issues.push(problem(`${at}.${key}`, `unknown limit "${key}"`));
      else if ((key === 'max' || key === 'min') && (typeof value !== 'number' || !Number.isFinite(value))) issues.push(problem(`${at}.${key}`, `${key} must be a number`));
      else if (key === 'one_of' && !Array.isArray(value)) issues.push(problem(`${at}.${key}`, 'one_of must be a list'));
      else if (key === 'pattern' && (typeof value !== 'string' || value.length === 0)) issues.push(problem(`${at}.${key}`, 'pattern must be a non-empty string'));
    }
  }
  return issues;
}

/** Null when the parameters are inside the limits, else the first parameter that is not. */
export function outsideLimits(limits: ParamLimits, params: JsonObject): string | null {
  for (const [name, limit] of Object.entries(limits)) {
    const value = params[name];
    if (limit.equals !== undefined && (value === undefined || canonicalJson(value) !== canonicalJson(limit.equals))) return `${name} must equal ${canonicalJson(limit.equals)}`;
    if (limit.one_of !== undefined) {
      const allowed = limit.one_of.map(canonicalJson);
      if (value === undefined || !allowed.includes(canonicalJson(value))) return `${name} must be one of ${allowed.join(', ')}`;
    }
    // A numeric cap also binds when the parameter is left out: the capability's default
    // could exceed it, so an absent value is outside a max/min limit.
    if (limit.max !== undefined && (typeof value !== 'number' || value > limit.max)) return `${name} must be at most ${limit.max}`;
    if (limit.min !== undefined && (typeof value !== 'number' || value < limit.min)) return `${name} must be at least ${limit.min}`;
    if (limit.pattern !== undefined && (typeof value !== 'string' || !matchesTarget(limit.pattern, value))) return `${name} must match ${limit.pattern}`;
  }
  return null;
}
