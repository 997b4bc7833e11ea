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

  constructor(graceMs = DEFAULT_GAP_GRACE_MS) {
    this.#graceMs = graceMs;
  }

  /**
   * Of `seqs` (seqs of the log after `after`, ascending, as one read found them), the last a
   * reader may move to at `now` (ms): the one before the first missing seq that has not stayed
   * missing for the grace. `after` when it may not move at all.
   */
  through(after: number, seqs: readonly number[], now: number): number {
    let to = after;
    for (const seq of seqs) {
      if (seq !== to + 1) {
        const missing = to + 1;
        const seen = this.#gaps.get(missing) ?? now;
        this.#gaps.set(missing, seen);
        if (now - seen < this.#graceMs) break;
      }
      to = seq;
    }
    for (const seq of this.#gaps.keys()) if (seq <= to) this.#gaps.delete(seq);
    return to;
  }
}
