// Reads a plan file (JSON or YAML) for the CLI, turning I/O and syntax problems into typed errors.

import { readFile } from 'node:fs/promises';
import { inputProblems } from '../core/input-limits.ts';
import type { ValidationIssue } from '../core/plan.ts';
import { formatOfFileName, parsePlanText, MAX_PLAN_TEXT_BYTES } from '../operations/plan-text.ts';

/**
 * `unreadable`: the file cannot be taken as input at all (I/O, too large, not JSON or YAML, or the
 * input rule): a usage error, exit 2, as the catalogue has `malformed_input`. A plan that parses
 * but fails validation is the other kind of failure: refused, exit 1.
 */
export type PlanFile = { ok: true; value: unknown } | { ok: false; errors: ValidationIssue[]; unreadable: boolean };

export async function readPlanFile(path: string): Promise<PlanFile> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_PLAN_TEXT_BYTES) {
      return { ok: false, unreadable: true, errors: [{ code: 'malformed_input', path: '', message: `${path} is larger than ${MAX_PLAN_TEXT_BYTES} bytes` }] };
    }
    text = bytes.toString('utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    return { ok: false, unreadable: true, errors: [{ code: 'unreadable_file', path: '', message: `cannot read ${path}: ${reason}` }] };
  }
  // Without a telling extension, JSON is tried first: every JSON document is also YAML, but
  // JSON's errors are clearer for JSON input.
  const format = formatOfFileName(path) ?? (text.trimStart().startsWith('{') ? 'json' : 'yaml');
  const parsed = parsePlanText(text, format);
  if (!parsed.ok) return { ...parsed, unreadable: true };
  // The input rule (no control characters, bounded strings, lists and nesting) before anything reads the plan.
  const problems = inputProblems(parsed.value);
  return problems.length > 0 ? { ok: false, unreadable: true, errors: problems } : parsed;
}
