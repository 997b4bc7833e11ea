// Performing an authorised action, and the records it leaves. The one place that calls an
// implementation.
//
// A writing, non-idempotent action is written ahead: its execution row, `started`, is among the
// records of its authorisation, which the caller commits before calling `act`; `act` then
// returns the outcome that finishes the row. If the process dies in between, the `started` row
// stays: a later reader finds it by origin and knows the outcome is unknown, instead of finding
// nothing and repeating the action. A read or an idempotent action is recorded once, after the
// fact, and its records may commit together with everything else the caller writes.

import { newId } from '../core/ids.ts';
import type { JsonObject } from '../core/plan.ts';
import type { ExecutionOutcome, NewEvent, NewExecution, Store } from '../store/index.ts';
import { callEvent, mergeRecords, noRecords, writeRecords, type CallRecords } from './call-records.ts';
import type { CapabilityDefinition } from './definition.ts';
import { CapabilityError, type CapabilityImplementations, type CapabilityOutcome } from './implementation.ts';
import type { Executed, Failed, InvokeRequest } from './invocation.ts';
import type { PolicyVerdict } from './policy/decide.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export interface Authorised {
  definition: CapabilityDefinition;
  target: string;
  params: JsonObject;
  verdict: PolicyVerdict;
  approvalId?: string | null;
  grantId?: string | null;
}

/** A call that may act now. */
export interface Allowed {
  status: 'allowed';
  request: InvokeRequest;
  action: Authorised;
  /** The id its execution row has (or will have once the records are written). */
  executionId: string;
  /** True for a non-idempotent write: `records` holds its `started` row and must commit before `act`. */
  writeAhead: boolean;
  /** The authorisation's events and, when written ahead, the `started` execution row. */
  records: CallRecords;
}

/** What acting answered, and the records that say so. */
export interface Acted {
  result: Executed | Failed;
  records: CallRecords;
}

type Attempt = { ok: true; outcome: CapabilityOutcome } | { ok: false; code: ErrorCode; error: string; retrySafe: boolean };

/** The execution row of a call: with its outcome, or `started` ahead of its act. */
type ExecutionOf = NewExecution & { id: string } & ({ status: 'started' } | ExecutionOutcome);

/**
 * One object literal with every field, the outcome's included: Node 20's V8 (11.3) builds
 * `{ ...row, ...outcome }` (a copy that then gains properties) in a slow path that costs 1.5-2
 * µs and a new hidden class each time, against 0.05 µs on Node 22; the executor builds one a step.
 */
function executionOf(request: InvokeRequest, action: Authorised, id: string, outcome: { status: 'started' } | ExecutionOutcome): ExecutionOf {
  const finished = outcome.status === 'started' ? undefined : outcome;
  return {
    id,
    mindId: request.mindId,
    capability: action.definition.name,
    target: action.target,
    params: action.params,
    origin: request.origin,
    correlationId: request.correlationId ?? '',
    evidence: request.evidence ?? {},
    approvalId: action.approvalId ?? null,
    grantId: action.grantId ?? null,
    status: outcome.status,
    result: finished?.result,
    error: finished?.error,
    retrySafe: finished?.retrySafe,
  } as ExecutionOf;
}

/** The call may act: its records (with `events`, and its `started` row if it is written ahead). */
export function allow(request: InvokeRequest, action: Authorised, events: NewEvent[] = []): Allowed {
  const { definition } = action;
  const writeAhead = !definition.readOnly && !definition.idempotent;
  const executionId = newId();
  const records = { ...noRecords(), events };
  if (writeAhead) records.executions.push(executionOf(request, action, executionId, { status: 'started' }));
  return { status: 'allowed', request, action, executionId, writeAhead, records };
}

/**
 * Runs the implementation. For a written-ahead call, the caller must have committed
 * `allowed.records` first; the records returned finish that row (or, for a read, insert it).
 */
export async function act(implementations: CapabilityImplementations, allowed: Allowed): Promise<Acted> {
  const { request, action, executionId, writeAhead } = allowed;
  const { definition } = action;
  const attempt = await attemptImplementation(implementations, definition, action.params);
  const outcome: ExecutionOutcome = attempt.ok
    ? { status: 'succeeded', result: outcomeRecord(attempt.outcome) }
    : { status: 'failed', error: `${attempt.code}: ${attempt.error}`, retrySafe: attempt.retrySafe };
  const records = noRecords();
  if (writeAhead) records.finished.push({ id: executionId, outcome });
  else records.executions.push(executionOf(request, action, executionId, outcome));
  // The event's id is chosen here so that what follows from the act (a step's prediction) can
  // cite the event that records it without reading it back.
  const eventId = newId();
  records.events.push({
    id: eventId,
    ...callEvent(attempt.ok ? 'tool_executed' : 'tool_failed', request, {
      execution_id: executionId,
      capability: definition.name,
      target: action.target,
      ...(attempt.ok ? { summary: attempt.outcome.summary } : { error: attempt.error, code: attempt.code }),
    }),
  });
  const result: Executed | Failed = attempt.ok
    ? {
        status: 'executed',
        executionId,
        eventId,
        observation: attempt.outcome.observation,
        summary: attempt.outcome.summary,
        lowTrust: attempt.outcome.lowTrust ?? false,
        verdict: action.verdict,
      }
    : { status: 'failed', code: attempt.code, error: attempt.error, retrySafe: attempt.retrySafe, executionId };
  return { result, records };
}

/**
 * Acts on an allowed call with nothing else to commit beside it: a write-ahead action commits
 * its `started` row first and its outcome after (two commits); anything else, one commit after.
 */
export async function performAllowed(store: Store, implementations: CapabilityImplementations, allowed: Allowed): Promise<Executed | Failed> {
  if (allowed.writeAhead) {
    await store.transaction((tx) => writeRecords(tx, allowed.records));
    const acted = await act(implementations, allowed);
    await store.transaction((tx) => writeRecords(tx, acted.records));
    return acted.result;
  }
  const acted = await act(implementations, allowed);
  await store.transaction((tx) => writeRecords(tx, mergeRecords(allowed.records, acted.records)));
  return acted.result;
}

function outcomeRecord(outcome: CapabilityOutcome): JsonObject {
  return { observation: outcome.observation, summary: outcome.summary, low_trust: outcome.lowTrust ?? false };
}

function attemptImplementation(implementations: CapabilityImplementations, definition: CapabilityDefinition, params: JsonObject): Promise<Attempt> {
  // Only a read or an idempotent action may be tried again without thinking.
  const repeatable = definition.readOnly || definition.idempotent;
  const implementation = implementations[definition.name];
  if (!implementation) {
    return Promise.resolve({ ok: false, code: 'not_implemented', error: `${definition.name} has no implementation in this daemon`, retrySafe: false });
  }
  const failure = (error: unknown): Attempt =>
    error instanceof CapabilityError
      ? { ok: false, code: error.code, error: error.message, retrySafe: error.retrySafe && repeatable }
      : { ok: false, code: 'capability_error', error: error instanceof Error ? error.message : String(error), retrySafe: repeatable };
  // One promise settled by whichever comes first, the outcome or the timeout (a race of two
  // promises cost a step four more), and the timer cleared either way, also when the
  // implementation throws before it returns a promise.
  return new Promise<Attempt>((resolve) => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort(new Error('timeout'));
      resolve({ ok: false, code: 'timeout', error: `${definition.name} did not finish within ${definition.timeoutSeconds}s`, retrySafe: repeatable });
    }, definition.timeoutSeconds * 1000);
    const settle = (attempt: Attempt) => {
      clearTimeout(timer);
      resolve(attempt);
    };
    try {
      implementation(params, { signal: controller.signal }).then(
        (outcome) => settle({ ok: true, outcome }),
        (error: unknown) => settle(failure(error)),
      );
    } catch (error) {
      settle(failure(error));
    }
  });
}
