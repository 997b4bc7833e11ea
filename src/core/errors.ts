// Errors at boundaries are values with a stable code, a message and the offending path. A code
// is one of the catalogue's (src/core/error-codes.ts), which says its HTTP status and exit code.

import type { ErrorCode } from './error-codes.ts';

export interface Problem {
  code: ErrorCode;
  message: string;
  path: string;
}

/** The one shape of a refusal on the wire, whichever surface answers (HTTP API, MCP over HTTP). */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; problems: Problem[] };
}

export function errorBody(code: ErrorCode, message: string, problems: Problem[] = []): ErrorBody {
  return { error: { code, message, problems } };
}

/** Thrown by entry points (CLI, API) when input is refused; carries the typed problems. */
export class InputError extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(problems.map((p) => `${p.path || '(input)'}: ${p.message}`).join('; '));
    this.name = 'InputError';
    this.problems = problems;
  }
}

/** A path inside the field `head`: `joinPath('body', 'steps[0]')` is `body.steps[0]`, `joinPath('body', '[0]')` is `body[0]`, `joinPath('body', '')` is `body`. */
export function joinPath(head: string, path: string): string {
  return path ? (path.startsWith('[') ? `${head}${path}` : `${head}.${path}`) : head;
}
