// Errors at boundaries are values with a stable code, a message and the offending path.

export interface Problem {
  code: string;
  message: string;
  path: string;
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
