// Exit codes, documented in README.md and docs/error-codes.md (which lists each code's), so scripts can tell refusal from breakage.
export const EXIT = {
  ok: 0,
  /** The input was read but refused: an invalid plan, a denial, a failed action. */
  refused: 1,
  /** The command itself was wrong: unknown option, missing or unreadable file, bad configuration. */
  usage: 2,
  /** Something broke that the input did not cause: the store is unreachable, or a bug. */
  failure: 3,
} as const;
