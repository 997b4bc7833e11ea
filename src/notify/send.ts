// One attempt at a delivery: a signed POST, no redirects followed, a bounded wait.

import type { DeliveryRecord } from '../store/index.ts';
import { signBody, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.ts';
import type { WebhookTarget } from './targets.ts';

export const SEND_TIMEOUT_MS = 10_000;

export interface AttemptAnswer {
  /** The HTTP status, or null when there was no answer (refused, timed out, reset). */
  status: number | null;
  /** Why it did not succeed, for the delivery log; never the URL or the secret. */
  error: string;
}

export async function sendDelivery(target: WebhookTarget, delivery: DeliveryRecord, now: Date, timeoutMs = SEND_TIMEOUT_MS): Promise<AttemptAnswer> {
  const timestamp = Math.floor(now.getTime() / 1000);
  try {
    const response = await fetch(target.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'praxis-webhooks',
        [SIGNATURE_HEADER]: signBody(target.secret, timestamp, delivery.body),
        [TIMESTAMP_HEADER]: String(timestamp),
        'x-praxis-delivery': delivery.id,
        'x-praxis-topic': delivery.topic,
        'x-praxis-attempt': String(delivery.attempts + 1),
      },
      body: delivery.body,
    });
    // The answer's body is not needed: dropped unread (reading it held the whole of it in memory,
    // 600 MB from a target that streamed that much, up to twenty deliveries at once).
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { status: response.status, error: '' };
    const why = response.status >= 300 && response.status < 400 ? 'a redirect, which is not followed' : response.statusText || 'an error';
    return { status: response.status, error: `answered ${response.status}: ${why}` };
  } catch (error) {
    return { status: null, error: describeFailure(error, timeoutMs) };
  }
}

/** The cause of a failed fetch, without the URL it was for. */
function describeFailure(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  const code = e?.cause?.code;
  return code ? `could not connect: ${code}` : 'could not connect';
}
