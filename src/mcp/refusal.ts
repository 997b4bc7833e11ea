// How the MCP server says no. A refusal is thrown from deep inside a tool (by the caller check or
// by an application operation) and turned into one `isError` result at the tool's edge, so every
// tool answers bad input the same way: code, message and the offending path. This is the one
// place where operations' refusals (src/operations/errors.ts) are read the MCP way.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InputError, joinPath, type Problem } from '../core/errors.ts';
import { inputProblems } from '../core/input-limits.ts';
import { NotFound, NotStored } from '../operations/errors.ts';
import type { ErrorCode } from '../core/error-codes.ts';

/** A refusal of the MCP server's own (the caller's role or mind); operations throw their own. */
export function refusal(code: ErrorCode, path: string, message: string): InputError {
  return new InputError([{ code, path, message }]);
}

/**
 * Operations name their inputs in their own words (`id` for a plan or an intention, `mindId`);
 * a tool says which of its fields an operation's field was, and the rest are renamed here.
 */
export type FieldNames = Readonly<Record<string, string>>;

const OPERATION_FIELDS: FieldNames = { mindId: 'mind' };

/**
 * The tool fields naming a plan or an intention, and the record each names. The operations
 * already answer a record of a mind the caller may not see as one that does not exist (a
 * NotFound); here either is told in the MCP's own words, the same for both.
 */
const HIDDEN: Readonly<Record<string, { noun: string; code: ErrorCode }>> = { plan_id: { noun: 'plan', code: 'unknown_plan' }, intention_id: { noun: 'intention', code: 'unknown_intention' } };

function renamed(path: string, fields: FieldNames): string {
  return path.replace(/^[^.[]+/, (head) => fields[head] ?? OPERATION_FIELDS[head] ?? head);
}

/** The problems an MCP caller hears for a refusal, or null when the error is not a refusal (a bug). */
export function problemsOf(error: unknown, fields: FieldNames = {}): Problem[] | null {
  if (!(error instanceof InputError)) return null;
  // A plan draft's problems name places inside the draft, which a tool takes as its `plan` field.
  if (error instanceof NotStored) return error.problems.map((p) => ({ ...p, path: joinPath('plan', p.path) }));
  const missing = error instanceof NotFound;
  return error.problems.map((p) => {
    const path = renamed(p.path, fields);
    const hidden = missing ? HIDDEN[path] : undefined;
    if (hidden) return { code: hidden.code, path, message: `no ${hidden.noun} with this id is visible to this token` };
    return { ...p, path };
  });
}

/** Plain JSON (dates as ISO strings), as a client will read it. */
export function asJson(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/** A successful answer: the JSON as text for any client, and as structured content for those that read it. */
export function answer(value: object): CallToolResult {
  const json = asJson(value);
  return { content: [{ type: 'text', text: JSON.stringify(json, null, 2) }], structuredContent: json };
}

export function describeProblems(problems: readonly Problem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
}

export function errorResult(problems: Problem[]): CallToolResult {
  const [first] = problems;
  const error = {
    code: problems.length === 1 ? first!.code : 'invalid_input',
    message: describeProblems(problems),
    path: first?.path ?? '',
    problems,
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }, null, 2) }], structuredContent: { error } };
}

/**
 * Runs a tool body and turns refusals into error results; `fields` names the tool fields behind
 * the operations' inputs. Anything else is a bug and is left to the SDK, which reports it as an
 * error result carrying only the message.
 */
export async function guarded(body: () => Promise<CallToolResult>, fields: FieldNames = {}): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    const problems = problemsOf(error, fields);
    if (problems) return errorResult(problems);
    throw error;
  }
}

/**
 * The input rule (src/core/input-limits.ts) over a tool's arguments: the refusal naming each
 * offending field, or null when they may enter. Checked before the tool runs, for every tool.
 */
export function inputRefusal(args: unknown, root = ''): CallToolResult | null {
  const problems = inputProblems(args, root);
  return problems.length > 0 ? errorResult(problems) : null;
}
