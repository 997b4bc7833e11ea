// The refusals an application operation can answer with. Each is an InputError (so the CLI and
// MCP, which only know InputError, still print the problems), and its class says the kind of
// refusal; each class takes only codes the catalogue (src/core/error-codes.ts) gives its status,
// so the status the API answers and the class can never disagree. A problem's path names the
// input field the operation was given (`id`, `mind`, `duration_seconds`, `means.params.unit`);
// each surface places it in its own input.

import { ERROR_CODES, type ErrorCode, type ErrorCodeWithStatus } from '../core/error-codes.ts';
import { InputError, type Problem } from '../core/errors.ts';

function one(code: ErrorCode, path: string, message: string): Problem[] {
  return [{ code, path, message }];
}

/** The named thing does not exist (or is not visible to the caller). */
export class NotFound extends InputError {
  constructor(path: string, message: string, code: ErrorCodeWithStatus<404> = 'not_found') {
    super(one(code, path, message));
    this.name = 'NotFound';
  }
}

/** The thing exists but has already moved on: decided, closed, not blocked. */
export class Conflict extends InputError {
  constructor(path: string, message: string, code: ErrorCodeWithStatus<409> = 'conflict') {
    super(one(code, path, message));
    this.name = 'Conflict';
  }
}

/** The caller may not do this to this thing (an agent withdrawing a request it did not raise). */
export class Forbidden extends InputError {
  constructor(path: string, message: string, code: ErrorCodeWithStatus<403> = 'forbidden') {
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

export function invalid(code: ErrorCode, path: string, message: string): InputError {
  return new InputError(one(code, path, message));
}

/**
 * The refusal a code is, by its status in the catalogue: a service's answer (an approval that
 * is no longer pending, a request the caller did not raise) becomes NotFound, Forbidden,
 * Conflict or a plain refusal of the input, so the class always agrees with the status.
 */
export function refusalOf(code: ErrorCode, path: string, message: string): InputError {
  switch (ERROR_CODES[code].status) {
    case 404:
      return new NotFound(path, message, code as ErrorCodeWithStatus<404>);
    case 403:
      return new Forbidden(path, message, code as ErrorCodeWithStatus<403>);
    case 409:
      return new Conflict(path, message, code as ErrorCodeWithStatus<409>);
    default:
      return invalid(code, path, message);
  }
}
