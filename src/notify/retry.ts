// When to try a delivery again. Pure.

/** First retry after 5 s, doubling, never more than 15 minutes apart; 10 attempts in all (about 40 minutes). */
export const RETRY = { firstDelayMs: 5_000, maxDelayMs: 15 * 60_000, maxAttempts: 10 } as const;
export type RetryPolicy = { firstDelayMs: number; maxDelayMs: number; maxAttempts: number };

/** The delay before attempt `attempts + 1`, after `attempts` failed ones (1 or more). */
export function retryDelayMs(attempts: number, policy: RetryPolicy = RETRY): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, attempts - 1));
}

/**
 * Whether an answer may change on a later try: no answer at all, a server error, throttling or a
 * timeout may; any other refusal (a wrong URL, a rejected signature) will not, and a redirect is
 * never followed, so an answer that moved the target is a refusal too.
 */
export function isRetryable(status: number | null): boolean {
  return status === null || status >= 500 || status === 429 || status === 408;
}
