// Plans and steps that cannot be moved. A pass handles each plan on its own when a batch fails
// (settle.ts, apply.ts), so one plan whose writes keep failing (a value the store refuses, a
// constraint, a trigger an operator added) never holds the others back. What remains is to stop
// retrying it: after MAX_FAILURES failures in a row the plan (or step) is blocked with the error
// as its reason, with one log line and an event, for an operator to look at, instead of being
// tried again on every pass forever.
//
// The count lives in the executor, not in the store: it is not plan state but this executor's
// experience of the store refusing a write. A restart or another executor starts counting again,
// which costs at most MAX_FAILURES more attempts each.

/** Consecutive failures to move a plan or step before it is blocked. */
export const MAX_FAILURES = 3;

/** Entries kept at most: a store refusing writes of more things than this at once has bigger problems. */
const CAPACITY = 10_000;

/** Consecutive failures per plan or step id. */
export class FailureTally {
  readonly #counts = new Map<string, number>();

  /** Counts one more failure of `id`; returns how many in a row. */
  failed(id: string): number {
    const n = (this.#counts.get(id) ?? 0) + 1;
    this.#counts.delete(id);
    if (this.#counts.size >= CAPACITY) this.#counts.delete(this.#counts.keys().next().value!);
    this.#counts.set(id, n);
    return n;
  }

  /** `id` moved: its count starts again. */
  moved(id: string): void {
    this.#counts.delete(id);
  }
}

/** The error as an operator reads it: its message, in one line of bounded length, without control characters. */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // eslint-disable-next-line no-control-regex
  const line = message.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > 500 ? `${line.slice(0, 497)}...` : line;
}
