// A consumer's walk along the event log, resumable across restarts and shared by several daemons
// (webhook notifications, traces). The consumer's place is a durable cursor in the store
// (`event_cursors`): every event up to its seq has been handled. One daemon at a time follows
// the log for a consumer, holding the cursor under a lease it renews at every read; the cursor
// moves only by a conditional update naming the holder and the seq it was read at.
//
// A batch stops before a seq still in flight, and steps over a gap only once it has stayed open
// for `gapGraceMs` (log-horizon.ts).

import type { Clock } from '../core/clock.ts';
import type { EventRecord, Store } from '../store/index.ts';
import { LogHorizon } from './log-horizon.ts';

export interface FollowerOptions {
  consumer: string;
  /** This daemon's name, recorded as the cursor's holder. */
  holder: string;
  /** How long the cursor stays held without a read; another daemon takes over after it. */
  leaseMs?: number;
  /** How long a missing seq is waited for before it is taken for a rolled-back insert. */
  gapGraceMs?: number;
  batchSize?: number;
}

/** Events to handle, in log order, and the cursor move that records them handled. */
export interface FollowedBatch {
  /** The cursor's seq in the store, which the move is conditional on. */
  from: number;
  to: number;
  events: EventRecord[];
}

export const DEFAULT_LEASE_MS = 30_000;
/** How often a follower that finds nothing to do records how far it read. */
export const PASS_PERSIST_MS = 5_000;

export class EventFollower {
  readonly consumer: string;
  readonly holder: string;
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #leaseMs: number;
  readonly #horizon: LogHorizon;
  readonly #batchSize: number;
  /**
   * The cursor as this daemon holds it: its seq in the store, how far this daemon has read past
   * it (events that needed nothing written), and the lease. While more than half the lease is
   * left nobody else can have taken it, so it is neither renewed nor read again: an idle follower
   * costs a read, not a commit, per look.
   */
  #held: { stored: number; read: number; until: number } | null = null;
  #storedAt = 0;

  constructor(store: Store, options: FollowerOptions) {
    this.#store = store;
    this.#clock = store.clock;
    this.consumer = options.consumer;
    this.holder = options.holder;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#horizon = new LogHorizon(options.gapGraceMs);
    this.#batchSize = options.batchSize ?? 200;
  }

  /** Creates the cursor at the log's newest event when the consumer is new: it starts from now. */
  async ensureCursor(): Promise<void> {
    await this.#store.eventCursors.ensure(this.consumer, await this.#store.events.latestSeq());
  }

  /**
   * The next events to handle, or null when another daemon holds the cursor or nothing new can
   * be handled yet. Handle them, then record it with `advance` (or the same conditional update in
   * the transaction that writes what handling them produced).
   */
  async next(): Promise<FollowedBatch | null> {
    const now = this.#clock.now().getTime();
    if (this.#held === null || this.#held.until - now < this.#leaseMs / 2) {
      const until = now + this.#leaseMs;
      const cursor = await this.#store.eventCursors.hold(this.consumer, this.holder, new Date(until));
      // Still where this daemon left it: what it read past it stays read.
      const read = cursor && this.#held?.stored === cursor.seq ? this.#held.read : cursor?.seq;
      this.#held = cursor ? { stored: cursor.seq, read: read!, until } : null;
    }
    if (this.#held === null) return null;
    const { stored, read: after } = this.#held;
    const read = await this.#store.events.list({ afterSeq: after, limit: this.#batchSize });
    const to = this.#horizon.through(
      after,
      read.map((event) => event.seq),
      now,
    );
    return to === after ? null : { from: stored, to, events: read.filter((event) => event.seq <= to) };
  }

  /**
   * Records a batch that needed nothing written. The cursor moves in memory, and in the store at
   * most every PASS_PERSIST_MS: most events need nothing, and a commit for each batch of them
   * would compete with the executor's. A restart reads those events again and again finds
   * nothing to do in them.
   */
  async pass(batch: FollowedBatch): Promise<void> {
    if (this.#held) this.#held.read = batch.to;
    if (this.#clock.now().getTime() - this.#storedAt >= PASS_PERSIST_MS) await this.advance(batch);
  }

  /** Records a batch handled; false when the cursor was taken over or moved meanwhile. */
  async advance(batch: FollowedBatch): Promise<boolean> {
    const moved = await this.#store.eventCursors.advance(this.consumer, this.holder, batch.from, batch.to);
    this.#remember(moved ? batch : null);
    return moved;
  }

  /**
   * The same move inside the caller's transaction, which also writes what handling the batch
   * produced; call `committed` once that transaction has committed (or failed).
   */
  advanceIn(tx: Pick<Store, 'eventCursors'>, batch: FollowedBatch): Promise<boolean> {
    return tx.eventCursors.advance(this.consumer, this.holder, batch.from, batch.to);
  }

  /** What became of a move made with `advanceIn`: the batch when it committed, null otherwise. */
  committed(batch: FollowedBatch | null): void {
    this.#remember(batch);
  }

  #remember(batch: FollowedBatch | null): void {
    // Anything but a known move makes the next read ask the store where the cursor is.
    this.#held = batch && this.#held ? { ...this.#held, stored: batch.to, read: Math.max(this.#held.read, batch.to) } : null;
    if (batch) this.#storedAt = this.#clock.now().getTime();
  }

  /** Records how far it read, then lets another daemon take over at once (a clean stop). */
  async release(): Promise<void> {
    const held = this.#held;
    if (held && held.read > held.stored) await this.advance({ from: held.stored, to: held.read, events: [] });
    this.#held = null;
    await this.#store.eventCursors.release(this.consumer, this.holder);
  }
}

export interface PassLoopOptions {
  pauseMs: number;
  afterErrorMs?: number;
  onError(error: Error): void;
  /** True for a pass's result that left work undone on purpose: the next pass starts at once. */
  again?: (result: unknown) => boolean;
}

/**
 * A consumer's passes, one after another until stopped: `pauseMs` apart or sooner when woken, and
 * at least `afterErrorMs` after a pass that threw (which is reported, never fatal).
 */
export class PassLoop {
  readonly #pass: () => Promise<unknown>;
  readonly #options: PassLoopOptions;
  #stopping = false;
  #wake: (() => void) | null = null;
  /**
   * A wake-up that came during a pass: the pass may have read the log before the event that
   * woke it committed, so the next pass starts at once (as WakeBus keeps one for its next wait).
   * It was dropped, and such an event waited the whole pause.
   */
  #woken = false;
  #running: Promise<void> | null = null;

  constructor(pass: () => Promise<unknown>, options: PassLoopOptions) {
    this.#pass = pass;
    this.#options = options;
  }

  /** True once `stop` was called: a pass ends early rather than start more work. */
  get stopping(): boolean {
    return this.#stopping;
  }

  start(): void {
    this.#running ??= (async () => {
      while (!this.#stopping) {
        let pause = this.#options.pauseMs;
        let failed = false;
        // What woke it so far is read by this pass.
        this.#woken = false;
        try {
          // Evaluated apart: `again?.(await pass())` would skip the pass itself with no `again`.
          const result = await this.#pass();
          if (this.#options.again?.(result)) continue;
        } catch (error) {
          failed = true;
          pause = Math.max(pause, this.#options.afterErrorMs ?? 0);
          this.#options.onError(error instanceof Error ? error : new Error(String(error)));
        }
        if (this.#stopping) break;
        // Not after a pass that threw: a store that keeps failing is not retried at every wake-up.
        if (this.#woken && !failed) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pause);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = null;
      }
    })();
  }

  /** Cuts the pause short, or, during a pass, skips the pause after it. */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Lets the pass in progress finish; no other starts. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.wake();
    await this.#running;
  }
}
