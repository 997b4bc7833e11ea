// The refusals an application operation can answer with. Each is an InputError (so the CLI and
// MCP, which only know InputError, still print the problems), and its class tells the HTTP
// surface which status to use. A problem's path names the input field the operation was given
// (`id`, `mind`, `duration_seconds`, `means.params.unit`); each surface places it in its own input.

import { InputError, type Problem } from '../core/errors.ts';

function one(code: string, path: string, message: string): Problem[] {
  return [{ code, path, message }];
}

/** The named thing does not exist (or is not visible to the caller). */
export class NotFound extends InputError {
  constructor(path: string, message: string, code = 'not_found') {
    super(one(code, path, message));
    this.name = 'NotFound';
  }
}

/** The thing exists but has already moved on: decided, closed, not blocked. */
export class Conflict extends InputError {
  constructor(path: string, message: string, code = 'conflict') {
    super(one(code, path, message));
    this.name = 'Conflict';
  }
}

/** The caller may not do this to this thing (an agent withdrawing a request it did not raise). */
export class Forbidden extends InputError {
  constructor(path: string, message: string, code = 'forbidden') {
    super(one(code, path, message));
    this.name = 'Forbidden';
  }
}

/** A plan submission that was not a plan at all: nothing was stored. */
export class NotStored extends InputError {
  constructor(
    problems: Problem[],
    /** Why, in words: the input is not a plan, or what it names does not exist. */
    readonly reason = 'the plan was not stored',
  ) {
    super(problems);
    this.name = 'NotStored';
  }
}

export function invalid(code: string, path: string, message: string): InputError {
  return new InputError(one(code, path, message));
}
