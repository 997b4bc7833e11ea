// In-process signals that a waking event was committed. Listeners are the wake bus; a signal
// carries only the event type.

export class WakeSignals {
  readonly #listeners = new Set<(type: string) => void>();

  on(listener: (type: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(type: string): void {
    for (const listener of this.#listeners) listener(type);
  }
}
