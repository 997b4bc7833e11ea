// Trace and span ids derived from Praxis' own ids, so the same story exported twice (after a
// restart, or by a second daemon) is the same tree, never a second one.

import { createHash } from 'node:crypto';

/** The root intention's UUID as 32 hex digits: a trace can be looked up by the intention's id. */
export function traceIdOf(rootIntentionId: string): string {
  const hex = rootIntentionId.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : createHash('sha256').update(`trace:${rootIntentionId}`).digest('hex').slice(0, 32);
}

/** 16 hex digits from what the span stands for (`plan`, `step`, `execution`...) and its id. */
export function spanIdOf(kind: string, id: string): string {
  return createHash('sha256').update(`${kind}:${id}`).digest('hex').slice(0, 16);
}
