// What one pass of the executor reads once and shares between the steps it handles: each plan
// with its steps and intention, and each mind's policy inputs. Nothing here outlives the pass,
// so the next pass reads the store afresh; within a pass a plan read earlier may be slightly
// behind its steps, which is harmless because every move is conditional on the step's status.

import { PolicyMemo } from '../capabilities/policy-inputs.ts';
import { noRecords, type CallRecords } from '../capabilities/call-records.ts';
import type { IntentionRecord, PlanWithSteps, StepRecord, Store } from '../store/index.ts';
import type { StepScene } from './apply.ts';

export class Pass {
  readonly memo = new PolicyMemo();
  readonly #plans = new Map<string, Promise<{ plan: PlanWithSteps; intention: IntentionRecord | null } | undefined>>();

  /** The step with its plan and intention, each plan read at most once per pass. */
  async scene(store: Store, step: StepRecord): Promise<StepScene | undefined> {
    let found = this.#plans.get(step.planId);
    if (!found) {
      found = loadPlan(store, step.planId);
      this.#plans.set(step.planId, found);
    }
    const loaded = await found;
    return loaded && { step, ...loaded };
  }

  readonly #toSettle = new Set<string>();

  /** Remembers a plan whose step finished, to settle once after the pass's steps. */
  readonly settleLater = (planId: string): void => {
    this.#toSettle.add(planId);
  };

  /** The plans to settle, each once; asking empties the list. */
  takePlansToSettle(): string[] {
    const ids = [...this.#toSettle];
    this.#toSettle.clear();
    return ids;
  }

  /** A place for the records of the calls a step makes before its move, written with the move. */
  io(): StepIO {
    return { memo: this.memo, records: noRecords() };
  }
}

/** What a handler observes with: the pass's policy memo, and where its calls' records go. */
export interface StepIO {
  memo: PolicyMemo;
  records: CallRecords;
}

async function loadPlan(store: Store, planId: string) {
  const plan = await store.plans.get(planId);
  if (!plan) return undefined;
  const intention = (await store.intentions.get(plan.intentionId)) ?? null;
  return { plan, intention };
}
