// Wake-ups for the executor loop. The loop sleeps until something that can unblock work
// happens (an intention formed or resumed, an approval decided, a grant given, an execution
// recorded) or its tick interval passes. Wake-ups come from this process (the store signals
// appended events once they are committed) and, on PostgreSQL, from other processes through
// LISTEN/NOTIFY. A wake-up carries no data: the loop always re-reads the store.

import { listenForWakeUps, type PostgresStoreConfig, type Store, type WakeListener } from '../store/index.ts';

export type WakeOutcome = 'woken' | 'timeout' | 'aborted';

export interface WakeBusOptions {
  /** On PostgreSQL, where to LISTEN; omit for an in-process bus only. */
  postgres?: PostgresStoreConfig;
  onError?(error: Error): void;
}

export class WakeBus {
  #pending = false;
  #waiters = new Set<(outcome: WakeOutcome) => void>();
  #listeners = new Set<(reason: string) => void>();
  #unsubscribe: () => void;
  #remote: WakeListener | undefined;

  constructor(store: Store, options: WakeBusOptions = {}) {
    this.#unsubscribe = store.wakeups.on((type) => this.wake(type));
    if (options.postgres) {
      this.#remote = listenForWakeUps(options.postgres, {
        onWake: (reason) => this.wake(reason),
        ...(options.onError ? { onError: options.onError } : {}),
      });
    }
  }

  /** True when the cross-process listener is connected (always false without PostgreSQL). */
  get listening(): boolean {
    return this.#remote?.listening ?? false;
  }

  /** Records a wake-up. One that arrives while nobody waits is kept for the next wait. */
  wake(reason: string): void {
    this.#pending = true;
    for (const listener of this.#listeners) listener(reason);
    for (const resolve of this.#waiters) resolve('woken');
  }

  /** Observes every wake-up with its reason (an event type, or `listening`); returns an unsubscribe. */
  onWake(listener: (reason: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves on the next wake-up, at once if one arrived since the last wait (so a wake-up
   * during a tick is never lost), or after `timeoutMs`.
   */
  next(timeoutMs: number, signal?: AbortSignal): Promise<WakeOutcome> {
    if (signal?.aborted) return Promise.resolve('aborted');
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve('woken');
    }
    return new Promise((resolve) => {
      const finish = (outcome: WakeOutcome) => {
        clearTimeout(timer);
        this.#waiters.delete(finish);
        signal?.removeEventListener('abort', onAbort);
        if (outcome === 'woken') this.#pending = false;
        resolve(outcome);
      };
      const onAbort = () => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      this.#waiters.add(finish);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    this.#unsubscribe();
    for (const resolve of this.#waiters) resolve('aborted');
    this.#waiters.clear();
    await this.#remote?.close();
  }
}
