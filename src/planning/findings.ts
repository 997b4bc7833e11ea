// What validation collects while it walks a draft, plus the small readers it uses on values
// it cannot trust to have the declared types.

import type { ValidationIssue } from '../core/plan.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export type Obj = { [key: string]: unknown };

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

export function isPositiveInteger(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max;
}

export function isNonNegativeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** A short, safe rendering of an untrusted value for a message. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export class Findings {
  readonly errors: ValidationIssue[] = [];
  readonly warnings: ValidationIssue[] = [];

  error(code: ErrorCode, path: string, message: string): void {
    this.errors.push({ code, path, message });
  }

  warn(code: ErrorCode, path: string, message: string): void {
    this.warnings.push({ code, path, message });
  }
}

/** Drops exact repeats (same code, path and message), keeping first occurrences in order. */
export function distinct(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const id = `${issue.code}\u0000${issue.path}\u0000${issue.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Issues a validation reports at most; a draft with more gets one last issue counting the rest. */
export const MAX_REPORTED_ISSUES = 50;

/**
 * The first `MAX_REPORTED_ISSUES` issues, and an issue `more_errors` (or `more_warnings`) saying
 * how many more there were, so a draft with thousands of faults costs one bounded answer.
 */
export function bounded(issues: readonly ValidationIssue[], what: 'errors' | 'warnings' = 'errors'): ValidationIssue[] {
  if (issues.length <= MAX_REPORTED_ISSUES) return [...issues];
  const rest = issues.length - MAX_REPORTED_ISSUES;
  return [...issues.slice(0, MAX_REPORTED_ISSUES), { code: `more_${what}`, path: '', message: `${rest} more ${what === 'errors' ? 'error' : 'warning'}${rest === 1 ? '' : 's'} not listed` }];
}
