// Signing a delivery, and the check a receiver makes. The signed text is the timestamp, a dot and
// the raw body, so a captured request cannot be replayed later with a fresh timestamp, and a
// receiver refuses a timestamp too far from its own clock.

import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-praxis-signature';
export const TIMESTAMP_HEADER = 'x-praxis-timestamp';
/** Five minutes either way: clocks drift, replays are refused beyond it. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `sha256=<hex>` over `<timestamp>.<body>`; the timestamp in whole seconds since the epoch. */
export function signBody(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale' | 'bad_signature' };

/** What a receiver does with a request (here for the tests and as the reference for docs). */
export function verifyDelivery(
  secret: string,
  headers: { signature?: string | undefined; timestamp?: string | undefined },
  rawBody: string,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): VerifyResult {
  if (!headers.signature || !headers.timestamp) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(headers.timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const timestamp = Number(headers.timestamp);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(signBody(secret, timestamp, rawBody));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: 'bad_signature' };
}
