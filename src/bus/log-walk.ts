// A reader's walk along a narrowed view of the event log (one mind's events, say): every
// matching event in log order, never past a seq that may still be in flight (log-horizon.ts),
// however many events of others lie between the matching ones.

import type { EventQuery, EventRecord, Store } from '../store/index.ts';
import { LogHorizon, openingPlace, type OpeningPlace } from './log-horizon.ts';

/** Seqs of the log looked at per read for one in flight: a narrowed walk passes others' events this many at a time. */
export const HORIZON_SCAN = 1000;

export type LogView = Omit<EventQuery, 'afterSeq' | 'throughSeq' | 'limit'>;

export class LogWalk {
  readonly #store: Pick<Store, 'events' | 'clock'>;
  readonly #view: LogView;
  readonly #horizon: LogHorizon;
  /** How far the walk has read: the last event handed out, or further when nothing matching lies beyond it that far. */
  #seq: number;
  /** Seqs the walk passes without handing them out: events written before a live reader started (openingPlace). */
  #seen: Set<number>;
  #waiting = false;

  /** Starts after `start`: a seq, or the place a live reader begins at (openingPlace). */
  constructor(store: Pick<Store, 'events' | 'clock'>, view: LogView, start: number | OpeningPlace, graceMs?: number) {
    this.#store = store;
    this.#view = view;
    this.#seq = typeof start === 'number' ? start : start.after;
    this.#seen = typeof start === 'number' ? new Set() : start.seen;
    this.#horizon = new LogHorizon(graceMs, typeof start === 'number' ? undefined : start.gaps);
  }

  /** True when the last read stopped before a seq still in flight: reading again soon finds more. */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** The matching events after the last one handed out, in log order, at most `limit`. */
  async next(limit: number): Promise<EventRecord[]> {
    const log = this.#store.events;
    const events: EventRecord[] = [];
    this.#waiting = false;
    while (events.length < limit) {
      const { through, waiting, end } = await this.#reach();
      this.#waiting = waiting;
      if (through === this.#seq) break;
      const want = limit - events.length;
      const found = await log.list({ ...this.#view, afterSeq: this.#seq, throughSeq: through, limit: want });
      for (const event of found) if (!this.#seen.delete(event.seq)) events.push(event);
      if (found.length === want) {
        this.#seq = found[found.length - 1]!.seq;
        if (events.length < limit) continue;
        break;
      }
      this.#seq = through;
      if (this.#seen.size > 0) for (const seq of this.#seen) if (seq <= through) this.#seen.delete(seq);
      // Stopped before a seq in flight, or at the end of the log: nothing more to read now.
      if (waiting || end) break;
    }
    return events;
  }

  /**
   * How far the walk may read now (`through`), whether it stops there before a seq still in
   * flight (`waiting`), and whether that is as far as the log goes (`end`). Where seqs become
   * visible in order (SQLite) that is the newest seq, one read of the log's last key; elsewhere
   * the horizon judges the next HORIZON_SCAN seqs, which a busy log's walk otherwise read on
   * every call, past every other reader's events.
   */
  async #reach(): Promise<{ through: number; waiting: boolean; end: boolean }> {
    const log = this.#store.events;
    if (log.seqsVisibleInOrder) return { through: Math.max(this.#seq, await log.latestSeq()), waiting: false, end: true };
    const seqs = await log.seqsAfter(this.#seq, HORIZON_SCAN);
    const through = this.#horizon.through(this.#seq, seqs, this.#store.clock.now().getTime());
    return { through, waiting: through !== (seqs.at(-1) ?? this.#seq), end: seqs.length < HORIZON_SCAN };
  }
}

/**
 * Where a reader that starts now begins so that it loses no event still in flight (openingPlace),
 * read from the log's newest `HORIZON_SCAN` seqs and their times. Its `after` is also the last
 * seq a pager may hand out now: every seq up to it is visible or given up.
 */
export async function openingPlaceNow(store: Pick<Store, 'events' | 'clock'>): Promise<OpeningPlace> {
  const latest = await store.events.latestSeq();
  const windowAfter = Math.max(0, latest - HORIZON_SCAN);
  const recent = await store.events.seqTimesAfter(windowAfter, HORIZON_SCAN);
  return openingPlace(
    latest,
    windowAfter,
    recent.map(({ seq, createdAt }) => ({ seq, at: createdAt.getTime() })),
    store.clock.now().getTime(),
  );
}
