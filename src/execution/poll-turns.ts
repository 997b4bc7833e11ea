// Steps waiting for an operator's answer are polled with the room a pass leaves, which can be
// less than there are of them. Each pass polls the ones after those the pass before it polled,
// by id, and starts again from the oldest once it reaches the newest, so every open request is
// looked at in turn: a denial or an expiry is noticed however many approvals are open. Only the
// order of the polls is kept here, in the executor's memory; losing it with the process costs
// nothing but a fresh start from the oldest.

import type { StepRecord } from '../store/index.ts';

/** Reads up to `limit` steps to poll, oldest first, with ids after `after` (all, when null). */
export type ReadPolled = (after: string | null, limit: number) => Promise<StepRecord[]>;

export class PollTurns {
  #after: string | null = null;

  /** Up to `limit` steps to poll: those after the last turn's, then, if that leaves room, the oldest again. */
  async next(read: ReadPolled, limit: number): Promise<StepRecord[]> {
    const after = this.#after;
    const steps = await read(after, limit);
    if (steps.length < limit && after !== null) {
      const seen = new Set(steps.map((step) => step.id));
      for (const step of await read(null, limit - steps.length)) if (!seen.has(step.id)) steps.push(step);
    }
    // A full read may have more after it; a short one has seen them all, and the next turn starts over.
    this.#after = steps.length === limit ? steps[steps.length - 1]!.id : null;
    return steps;
  }
}
