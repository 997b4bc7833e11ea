// Minds are advanced (their plans executed) only while active. A disabled mind, such as a
// sandbox used for replay or experiments, keeps its intentions and plans but is never moved.

import type { MindRecord } from '../store/index.ts';

/** True when the executor may move this mind's plans forward. */
export function mayAdvance(mind: Pick<MindRecord, 'status'>): boolean {
  return mind.status === 'active';
}

/**
 * True when a daemon on `host` may execute this mind: an unbound mind runs anywhere, a bound one
 * only on its host.
 */
export function mayRunOn(mind: Pick<MindRecord, 'host'>, host: string): boolean {
  return mind.host === null || mind.host === host;
}
