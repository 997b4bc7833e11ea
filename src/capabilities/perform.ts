// Performing an authorised action and recording it. The one place that calls an implementation.
//
// A writing, non-idempotent action is recorded as `started` (and committed) before the side
// effect and finished after it. If the process dies in between, the `started` row stays: a
// later reader finds it by origin and knows the outcome is unknown, instead of finding nothing
// and repeating the action. Reads and idempotent actions are recorded once, after the fact.

import type { JsonObject } from '../core/plan.ts';
import type { Store } from '../store/index.ts';
import type { CapabilityDefinition } from './definition.ts';
import { CapabilityError, type CapabilityImplementations, type CapabilityOutcome } from './implementation.ts';
import type { Executed, Failed, InvokeRequest } from './invocation.ts';
import type { PolicyVerdict } from './policy/decide.ts';

export interface Authorised {
  definition: CapabilityDefinition;
  target: string;
  params: JsonObject;
  verdict: PolicyVerdict;
  approvalId?: string | null;
  grantId?: string | null;
}

type Attempt = { ok: true; outcome: CapabilityOutcome } | { ok: false; code: string; error: string; retrySafe: boolean };

export async function perform(
  store: Store,
  implementations: CapabilityImplementations,
  request: InvokeRequest,
  action: Authorised,
): Promise<Executed | Failed> {
  const { definition } = action;
  const record = {
    mindId: request.mindId,
    capability: definition.name,
    target: action.target,
    params: action.params,
    origin: request.origin,
    correlationId: request.correlationId ?? '',
    evidence: request.evidence ?? {},
    approvalId: action.approvalId ?? null,
    grantId: action.grantId ?? null,
  };
  const writeAhead = !definition.readOnly && !definition.idempotent;
  const started = writeAhead ? await store.executions.start(record) : undefined;

  const attempt = await attemptImplementation(implementations, definition, action.params);
  const result = attempt.ok ? { status: 'succeeded' as const, result: outcomeRecord(attempt.outcome) } : { status: 'failed' as const, error: `${attempt.code}: ${attempt.error}`, retrySafe: attempt.retrySafe };
  const execution = started
    ? await store.executions.finish(started.id, result)
    : await store.executions.record({ ...record, ...result });
  if (!execution) throw new Error(`execution ${started?.id} was finished by someone else`);

  await store.events.append({
    type: attempt.ok ? 'tool_executed' : 'tool_failed',
    mindId: request.mindId,
    intentionId: request.correlationId || null,
    data: {
      execution_id: execution.id,
      capability: definition.name,
      target: action.target,
      origin: request.origin,
      ...(attempt.ok ? { summary: attempt.outcome.summary } : { error: attempt.error, code: attempt.code }),
    },
  });
  if (attempt.ok) {
    return {
      status: 'executed',
      executionId: execution.id,
      observation: attempt.outcome.observation,
      summary: attempt.outcome.summary,
      lowTrust: attempt.outcome.lowTrust ?? false,
      verdict: action.verdict,
    };
  }
  return { status: 'failed', code: attempt.code, error: attempt.error, retrySafe: attempt.retrySafe, executionId: execution.id };
}

function outcomeRecord(outcome: CapabilityOutcome): JsonObject {
  return { observation: outcome.observation, summary: outcome.summary, low_trust: outcome.lowTrust ?? false };
}

async function attemptImplementation(
  implementations: CapabilityImplementations,
  definition: CapabilityDefinition,
  params: JsonObject,
): Promise<Attempt> {
  // Only a read or an idempotent action may be tried again without thinking.
  const repeatable = definition.readOnly || definition.idempotent;
  const implementation = implementations[definition.name];
  if (!implementation) {
    return { ok: false, code: 'not_implemented', error: `${definition.name} has no implementation in this daemon`, retrySafe: false };
  }
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Attempt>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('timeout'));
      resolve({ ok: false, code: 'timeout', error: `${definition.name} did not finish within ${definition.timeoutSeconds}s`, retrySafe: repeatable });
    }, definition.timeoutSeconds * 1000);
  });
  const run = implementation(params, { signal: controller.signal }).then(
    (outcome): Attempt => ({ ok: true, outcome }),
    (error: unknown): Attempt =>
      error instanceof CapabilityError
        ? { ok: false, code: error.code, error: error.message, retrySafe: error.retrySafe && repeatable }
        : { ok: false, code: 'capability_error', error: error instanceof Error ? error.message : String(error), retrySafe: repeatable },
  );
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
