// The steps an executor's passes are handling right now, when it runs several passes side by
// side (Executor: passes). It only spares work: a pass leaves the steps another pass of the same
// executor holds, and the other due steps of their plans, to that pass, so two passes neither
// repeat one step's reads nor race to settle one plan. Nothing here guards a step against a
// second run; the conditional claims and moves do that, across passes and executors alike.

import type { StepRecord } from '../store/index.ts';

/** What the passes know a step by: its id and its plan's. */
type Held = Pick<StepRecord, 'id' | 'planId'>;

export class InFlight {
  readonly #steps = new Set<string>();
  /** How many held steps each plan has. */
  readonly #plans = new Map<string, number>();

  /** How many steps the passes hold: how many more a due query should fetch to find `limit` free ones. */
  get size(): number {
    return this.#steps.size;
  }

  /**
   * Takes, in their order, up to `limit` of `due` that no other pass holds and whose plan no
   * other pass holds a step of; the steps of one plan found together go to the same pass.
   */
  take<S extends Held>(due: readonly S[], limit: number): S[] {
    const held = new Set(this.#plans.keys());
    const taken: S[] = [];
    for (const step of due) {
      if (taken.length >= limit) break;
      if (this.#steps.has(step.id) || held.has(step.planId)) continue;
      taken.push(step);
    }
    for (const step of taken) {
      this.#steps.add(step.id);
      this.#plans.set(step.planId, (this.#plans.get(step.planId) ?? 0) + 1);
    }
    return taken;
  }

  /** Holds steps too that became due, in plans this pass holds already (a pass's later rounds, tick.ts). */
  hold(steps: readonly Held[]): void {
    for (const step of steps) {
      if (this.#steps.has(step.id)) continue;
      this.#steps.add(step.id);
      this.#plans.set(step.planId, (this.#plans.get(step.planId) ?? 0) + 1);
    }
  }

  /** Lets go of steps `take` or `hold` took, once their pass has moved them and settled their plans. */
  release(steps: readonly Held[]): void {
    for (const step of steps) {
      if (!this.#steps.delete(step.id)) continue;
      const left = (this.#plans.get(step.planId) ?? 1) - 1;
      if (left > 0) this.#plans.set(step.planId, left);
      else this.#plans.delete(step.planId);
    }
  }
}
