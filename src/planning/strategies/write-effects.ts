// Built-in verification: for every writing capability with an observable effect, what a
// successful call should lead to and how to observe it. This table is the one place a writing
// capability declares its verification; the direct strategy turns an entry into an
// expectation on the action and a verify step after it. A writing capability without an entry
// still plans, but its outcome goes unverified (validation warns about it), and a test fails
// until every writing built-in has one.

import type { Expectation, JsonObject } from '../../core/plan.ts';

export interface WriteEffect {
  /** The expectation a call with these (schema-valid) parameters carries. */
  expectation(params: JsonObject, target: string): Expectation;
  /** What could go wrong, in words an approver reads. */
  risk(target: string): string;
}

export const WRITE_EFFECTS: Readonly<Record<string, WriteEffect>> = Object.freeze<Record<string, WriteEffect>>({
  'service.restart': {
    expectation: (params: JsonObject): Expectation => {
      const unit = String(params.unit);
      return {
        statement: `${unit} is active`,
        confidence: 0.8,
        within_seconds: 60,
        check: { capability: 'service.status', params: { unit }, field: 'active_state', comparison: 'equals', value: 'active' },
      };
    },
    risk: (target: string) => `restarting ${target} interrupts it briefly and drops work in flight; the restart is not idempotent, so it is attempted once and never repeated blindly`,
  },
});

export function writeEffectOf(capability: string): WriteEffect | undefined {
  return Object.hasOwn(WRITE_EFFECTS, capability) ? WRITE_EFFECTS[capability] : undefined;
}
