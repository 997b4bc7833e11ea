// How far a reader may walk the event log. Seqs are handed out when a row is inserted but become
// visible when its transaction commits: on PostgreSQL a reader can see seq 11 while 10 is still
// in flight (two passes of one daemon, or two daemons, commit their events in either order), and
// a reader that moved past 10 would never see it. So a reader stops before a missing seq, and
// steps over a gap only once it has stayed open for the grace: only a rolled-back insert (whose
// seq is never used) leaves one open that long. SQLite has one writer, whose seqs become visible
// in order: it has no gaps in flight.

/** How long a missing seq is waited for before it is taken for a rolled-back insert. */
export const DEFAULT_GAP_GRACE_MS = 10_000;

export class LogHorizon {
  readonly #graceMs: number;
  /** Missing seqs seen, with when they were first seen (this process's memory only). */
  readonly #gaps = new Map<number, number>();

  /** `gaps`: missing seqs known already, with the time (ms) their grace counts from (openingPlace). */
  constructor(graceMs = DEFAULT_GAP_GRACE_MS, gaps?: ReadonlyMap<number, number>) {
    this.#graceMs = graceMs;
    if (gaps) for (const [seq, since] of gaps) this.#gaps.set(seq, since);
  }

  /**
   * Of `seqs` (seqs of the log after `after`, ascending, as one read found them), the last a
   * reader may move to at `now` (ms): the one before the first missing seq that has not stayed
   * missing for the grace. `after` when it may not move at all.
   *
   * Every gap the read shows starts its grace when first seen, not only the first: a reader that
   * meets several rolled-back seqs at once (a stream resuming from Last-Event-ID, a follower
   * taking a cursor over) waits one grace for them all; timed one after another, three gaps
   * held it 30 s. The grace is never timed from an event's own time: that comes from its
   * writer's clock, and from when it was queued rather than inserted, so it is no bound on when
   * the missing seq was taken; first seen is (the seq after it was visible by then).
   */
  through(after: number, seqs: readonly number[], now: number): number {
    let previous = after;
    for (const seq of seqs) {
      if (seq !== previous + 1 && !this.#gaps.has(previous + 1)) this.#gaps.set(previous + 1, now);
      previous = seq;
    }
    let to = after;
    for (const seq of seqs) {
      if (seq !== to + 1 && now - (this.#gaps.get(to + 1) ?? now) < this.#graceMs) break;
      to = seq;
    }
    for (const seq of this.#gaps.keys()) if (seq <= to) this.#gaps.delete(seq);
    return to;
  }
}

/** A seq of the log, with when its event was written (ms, by its writer's clock). */
export interface SeqTime {
  seq: number;
  at: number;
}

/** Where a live reader starts: after `after`, sending nothing in `seen`, waiting for `gaps` as LogHorizon would. */
export interface OpeningPlace {
  after: number;
  /** Visible seqs after `after`, up to the newest when the reader started: written before it, not sent. */
  seen: Set<number>;
  /** The missing seqs after `after` that may still commit, each with the time its grace counts from. */
  gaps: Map<number, number>;
}

/**
 * Where a live reader that starts now begins so that it loses no event still in flight (pure).
 * `latest` is the newest visible seq, `recent` the visible seqs just before it with their times,
 * ascending, read after `windowAfter`. A seq missing among them may belong to a transaction that
 * took it before the next visible one was written and commits later: if that next one was written
 * less than the grace ago, the reader begins before the missing seq, skips the visible events
 * from there to `latest` (they were written before it started) and waits for the missing ones,
 * their grace counted from that time. An older gap is a rolled-back insert, as LogHorizon would
 * decide once its grace ran out. With no such gap the reader begins after `latest`.
 */
export function openingPlace(latest: number, windowAfter: number, recent: readonly SeqTime[], now: number, graceMs = DEFAULT_GAP_GRACE_MS): OpeningPlace {
  const gaps = new Map<number, number>();
  let previous = windowAfter;
  for (const { seq, at } of recent) {
    if (seq > latest) break;
    if (now - at < graceMs) for (let missing = previous + 1; missing < seq; missing += 1) gaps.set(missing, at);
    previous = seq;
  }
  if (gaps.size === 0) return { after: latest, seen: new Set(), gaps };
  const after = gaps.keys().next().value! - 1;
  const seen = new Set(recent.filter(({ seq }) => seq > after && seq <= latest).map(({ seq }) => seq));
  return { after, seen, gaps };
}
