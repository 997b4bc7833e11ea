// How the MCP server says no. A refusal is thrown from deep inside a tool (the mind is not the
// caller's, the plan does not exist) and turned into one `isError` result at the tool's edge,
// so every tool answers bad input the same way: code, message and the offending path.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InputError, type Problem } from '../core/errors.ts';

export class McpRefusal extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(problems.map((p) => `${p.path || '(input)'}: ${p.message}`).join('; '));
    this.name = 'McpRefusal';
    this.problems = problems;
  }
}

export function refusal(code: string, path: string, message: string): McpRefusal {
  return new McpRefusal([{ code, path, message }]);
}

/** Plain JSON (dates as ISO strings), as a client will read it. */
export function asJson(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/** A successful answer: the JSON as text for any client, and as structured content for those that read it. */
export function answer(value: Record<string, unknown>): CallToolResult {
  const json = asJson(value);
  return { content: [{ type: 'text', text: JSON.stringify(json, null, 2) }], structuredContent: json };
}

export function errorResult(problems: Problem[]): CallToolResult {
  const [first] = problems;
  const error = {
    code: problems.length === 1 ? first!.code : 'invalid_input',
    message: problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; '),
    path: first?.path ?? '',
    problems,
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }, null, 2) }], structuredContent: { error } };
}

/**
 * Runs a tool body and turns refusals into error results. Anything else is a bug and is left to
 * the SDK, which reports it as an error result carrying only the message.
 */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof McpRefusal || error instanceof InputError) return errorResult(error.problems);
    throw error;
  }
}
