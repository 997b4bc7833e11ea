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

/**
 * The thing exists but belongs to a mind the caller's identity does not reach (an agent and
 * another mind's records). It is a NotFound, so every surface answers it as a thing that does not
 * exist: telling the two apart would let an agent probe other minds' ids and names. Its message
 * is generic; a surface that knows what kind of thing the input named (the HTTP API) says it
 * in the same words as for a missing one.
 */
export class OutOfReach extends NotFound {
  constructor(path: string) {
    super(path, 'nothing with this id is visible to this token');
    this.name = 'OutOfReach';
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
  constructor(problems: Problem[]) {
    super(problems);
    this.name = 'NotStored';
  }
}

export function invalid(code: string, path: string, message: string): InputError {
  return new InputError(one(code, path, message));
}
