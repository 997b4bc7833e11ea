// Checks: a read-only observation compared with an expected value. Comparing is pure; observing
// goes through the capability service like every other call, with allowPrompt false, so a check
// never raises an approval request: where policy would ask, it reports "not observable".

import type { Check, JsonObject, JsonValue } from '../core/plan.ts';
import type { Comparison } from '../core/vocabulary.ts';
import type { Observation } from '../mind/predictions.ts';
import { mergeRecords } from '../capabilities/call-records.ts';
import type { ExecutorContext } from './context.ts';
import type { StepIO } from './pass.ts';

/** The value at a dotted path (`filesystems.0.use_percent`); undefined when any part is missing. */
export function fieldAt(observation: JsonValue, path: string): JsonValue | undefined {
  let current: JsonValue | undefined = observation;
  for (const part of path.split('.')) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(part)) return undefined;
      current = current[Number(part)];
    } else {
      current = Object.hasOwn(current, part) ? current[part] : undefined;
    }
  }
  return current;
}

function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function asNumber(value: JsonValue | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function contains(haystack: JsonValue | undefined, needle: JsonValue | undefined): boolean {
  if (typeof haystack === 'string' && typeof needle === 'string') return haystack.includes(needle);
  if (Array.isArray(haystack)) return haystack.some((item) => sameValue(item, needle));
  return false;
}

/** Whether `observed` satisfies the comparison (pure). A missing field satisfies only the negations. */
export function compare(observed: JsonValue | undefined, comparison: Comparison, expected: JsonValue | undefined): boolean {
  switch (comparison) {
    case 'exists':
      return observed !== undefined && observed !== null;
    case 'equals':
      return sameValue(observed, expected);
    case 'not_equals':
      return !sameValue(observed, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((item) => sameValue(observed, item));
    case 'not_in':
      return !(Array.isArray(expected) && expected.some((item) => sameValue(observed, item)));
    case 'contains':
      return contains(observed, expected);
    case 'not_contains':
      return !contains(observed, expected);
    case 'greater_than':
    case 'at_least':
    case 'less_than':
    case 'at_most': {
      const a = asNumber(observed);
      const b = asNumber(expected);
      if (a === null || b === null) return false;
      if (comparison === 'greater_than') return a > b;
      if (comparison === 'at_least') return a >= b;
      if (comparison === 'less_than') return a < b;
      return a <= b;
    }
  }
}

/** One observation made for a check, and what it showed. */
export interface CheckOutcome {
  observation: Observation;
  /** The execution that recorded the observation, when one was recorded. */
  executionId: string | null;
  /** The whole observation the capability returned, when it ran. */
  raw: JsonObject | null;
}

/** Codes of a refusal that asking again will not change. */
const LASTING_REFUSALS = new Set(['not_observable', 'policy_denied', 'locked', 'mind_disabled', 'unknown_mind']);

/**
 * Observes the world for a check, read-only and without prompting. The answer is one of held,
 * not held, or unobservable (lasting when policy refuses; passing when the capability failed).
 */
export async function observe(ctx: ExecutorContext, io: StepIO, call: { mindId: string; origin: string; intentionId: string; evidence: JsonObject; why: string }, check: Check): Promise<CheckOutcome> {
  const definition = ctx.registry.get(check.capability);
  if (!definition || !definition.readOnly) {
    return { observation: { kind: 'unobservable', why: `${check.capability} is not a read-only capability`, lasting: true }, executionId: null, raw: null };
  }
  // The observation's records join the step's move: written in the same commit, win or lose.
  const { result, records } = await ctx.capabilities.invokeDeferred(
    {
      mindId: call.mindId,
      capability: check.capability,
      params: check.params,
      origin: call.origin,
      correlationId: call.intentionId,
      evidence: call.evidence,
      explanation: {
        what: `observe ${check.field} with ${check.capability}`,
        why: call.why,
        expected_outcome: `${check.field} ${check.comparison}${check.value === undefined ? '' : ` ${JSON.stringify(check.value)}`}`,
        side_effects: 'none: read-only',
        alternatives: [],
      },
      allowPrompt: false,
    },
    { memo: io.memo },
  );
  io.records = mergeRecords(io.records, records);
  switch (result.status) {
    case 'executed': {
      const observed = fieldAt(result.observation, check.field);
      const held = compare(observed, check.comparison, check.value);
      return {
        observation: { kind: held ? 'held' : 'not_held', observed: observed ?? null },
        executionId: result.executionId,
        raw: result.observation,
      };
    }
    case 'denied':
      return {
        observation: { kind: 'unobservable', why: result.reason, lasting: LASTING_REFUSALS.has(result.code) },
        executionId: result.executionId ?? null,
        raw: null,
      };
    case 'failed':
      return {
        observation: { kind: 'unobservable', why: `${result.code}: ${result.error}`, lasting: !result.retrySafe },
        executionId: result.executionId ?? null,
        raw: null,
      };
    case 'pending':
      // allowPrompt is false, so the service never raises a request for a check; treat one as a bug surfacing.
      return { observation: { kind: 'unobservable', why: 'policy asked for approval of a check', lasting: true }, executionId: null, raw: null };
  }
}
