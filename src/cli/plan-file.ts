// Reads a plan file (JSON or YAML) for the CLI, turning I/O and syntax problems into typed errors.

import { readFile } from 'node:fs/promises';
import type { ValidationIssue } from '../core/plan.ts';
import { formatOfFileName, parsePlanText, MAX_PLAN_TEXT_BYTES } from '../planning/plan-text.ts';

export type PlanFile = { ok: true; value: unknown } | { ok: false; errors: ValidationIssue[]; unreadable: boolean };

export async function readPlanFile(path: string): Promise<PlanFile> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_PLAN_TEXT_BYTES) {
      return { ok: false, unreadable: false, errors: [{ code: 'malformed_input', path: '', message: `${path} is larger than ${MAX_PLAN_TEXT_BYTES} bytes` }] };
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
  return parsed.ok ? parsed : { ...parsed, unreadable: false };
}
