// The spans of a story, built from its events. Pure: the events of one intention (in log order)
// in, plain span records out; src/telemetry/exporter.ts hands them to OpenTelemetry.
//
//   intention                         intention_formed → fulfilled, abandoned, blocked or escalated
//   └─ plan <strategy>                per revision: plan_started → completed, failed, abandoned, replanned
//      └─ step <key>                  first event of the step (or of a call it made) → its last move
//         ├─ execute_tool <capability>   authorised → executed or failed (GenAI execute_tool)
//         ├─ approval <capability>       approval_requested → decided, expired or withdrawn
//         └─ capability_request <capability>  capability_requested → granted, denied or withdrawn
//
// Execution spans link to the intention and to the approval or request that authorised them;
// a prediction's making and its outcome are events on the step that made it.

import type { EventRecord } from '../store/index.ts';
import { spanIdOf, traceIdOf } from './ids.ts';

export type AttributeValue = string | number | boolean;

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  start: Date;
  end: Date;
  attributes: Record<string, AttributeValue>;
  events: { name: string; at: Date; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, AttributeValue> }[];
  status: { code: 'ok' | 'error' | 'unset'; message?: string };
}

const PLAN_ENDS = new Set(['plan_completed', 'plan_failed', 'plan_abandoned']);
const STEP_MOVES = new Set(['plan_step_completed', 'plan_step_failed', 'plan_step_skipped', 'plan_step_blocked']);
const WAITS = new Set(['awaiting_approval', 'awaiting_grant']);

/** The event that ends plan `planId`'s revision, if it has ended. */
export function planEnd(events: readonly EventRecord[], planId: string): EventRecord | undefined {
  return events.find((e) => (e.planId === planId && PLAN_ENDS.has(e.type)) || (e.type === 'plan_replanned' && e.data.from === planId));
}

/**
 * The event that settles an intention (the end of its span), if one has: its fulfilment or
 * abandonment, else the last block for an operator. A block can be released and the intention
 * still be fulfilled or abandoned; the span sent again then carries the outcome (it kept the
 * block's, the first closing event, and the real outcome never reached the collector).
 */
export function intentionEnd(events: readonly EventRecord[], intentionId: string): EventRecord | undefined {
  const own = events.filter((e) => e.intentionId === intentionId);
  return own.find((e) => e.type === 'intention_fulfilled' || e.type === 'intention_abandoned') ?? own.reverse().find((e) => e.type === 'intention_blocked' && !WAITS.has(String(e.data.reason)));
}

/** Which plan a closing event closes, and which intention it settles. */
export function closedBy(event: EventRecord): { planId?: string; intentionId?: string } {
  if (PLAN_ENDS.has(event.type) && event.planId) return { planId: event.planId };
  if (event.type === 'plan_replanned' && typeof event.data.from === 'string') return { planId: event.data.from };
  if (event.intentionId && (event.type === 'intention_fulfilled' || event.type === 'intention_abandoned' || (event.type === 'intention_blocked' && !WAITS.has(String(event.data.reason))))) {
    return { intentionId: event.intentionId };
  }
  return {};
}

export interface Lineage {
  /** The intention at the top of the chain (its own id when it has no parent): names the trace. */
  rootIntentionId: string;
  /** The parent intention, for a subordinate's span. */
  parentIntentionId: string | null;
}

/** The intention's own span, once it has settled. */
export function intentionSpan(events: readonly EventRecord[], intentionId: string, lineage: Lineage): SpanRecord | null {
  // An intention stored without its formation event (a library caller's) starts at its first event.
  const formed = events.find((e) => e.type === 'intention_formed' && e.intentionId === intentionId) ?? events.find((e) => e.intentionId === intentionId);
  const end = intentionEnd(events, intentionId);
  if (!formed || !end) return null;
  const outcome = end.type === 'intention_fulfilled' ? 'fulfilled' : end.type === 'intention_abandoned' ? 'abandoned' : end.data.escalated === true ? 'escalated' : 'blocked';
  const reason = typeof end.data.reason === 'string' ? end.data.reason : '';
  return {
    traceId: traceIdOf(lineage.rootIntentionId),
    spanId: spanIdOf('intention', intentionId),
    parentSpanId: lineage.parentIntentionId ? spanIdOf('intention', lineage.parentIntentionId) : null,
    name: 'intention',
    start: formed.createdAt,
    end: end.createdAt,
    attributes: clean({
      'praxis.intention.id': intentionId,
      'praxis.mind.id': formed.mindId ?? '',
      'praxis.intention.objective': String(formed.data.objective ?? ''),
      'praxis.intention.origin': String(formed.data.origin ?? ''),
      'praxis.intention.outcome': outcome,
      'praxis.intention.reason': reason,
    }),
    events: [],
    links: [],
    status: outcome === 'abandoned' ? { code: 'error', message: reason || 'abandoned' } : outcome === 'fulfilled' ? { code: 'ok' } : { code: 'unset' },
  };
}

/**
 * The spans of plan `planId`'s revision and everything under it, once it has ended. `events`
 * are the plan's intention's events in log order (calls carry the intention and their origin,
 * `plan_step:<step id>`, not the plan).
 */
export function planSpans(events: readonly EventRecord[], planId: string, lineage: Lineage): SpanRecord[] {
  const end = planEnd(events, planId);
  const own = events.filter((e) => e.planId === planId);
  if (!end || own.length === 0) return [];
  const intentionId = own[0]!.intentionId;
  const traceId = traceIdOf(lineage.rootIntentionId);
  const planSpanId = spanIdOf('plan', planId);
  const intentionLink = intentionId ? [{ traceId, spanId: spanIdOf('intention', intentionId), attributes: { 'praxis.link': 'intention' } }] : [];
  const started = own.find((e) => e.type === 'plan_started') ?? own[0]!;
  const replannedFrom = events.find((e) => e.type === 'plan_replanned' && e.data.to === planId);
  const outcome = end.type === 'plan_replanned' ? 'superseded' : end.type.replace('plan_', '');
  const spans: SpanRecord[] = [];
  const plan: SpanRecord = {
    traceId,
    spanId: planSpanId,
    parentSpanId: intentionId ? spanIdOf('intention', intentionId) : null,
    name: `plan ${String(started.data.strategy ?? own.find((e) => e.type === 'plan_created')?.data.strategy ?? '')}`.trim(),
    start: started.createdAt,
    end: end.createdAt,
    attributes: clean({
      'praxis.plan.id': planId,
      'praxis.plan.revision': typeof started.data.revision === 'number' ? started.data.revision : 0,
      'praxis.plan.strategy': String(started.data.strategy ?? ''),
      'praxis.plan.outcome': outcome,
      'praxis.plan.escalation': end.data.escalation === true,
      'praxis.intention.id': intentionId ?? '',
      'praxis.mind.id': started.mindId ?? '',
    }),
    events: [],
    links: replannedFrom && typeof replannedFrom.data.from === 'string' ? [{ traceId, spanId: spanIdOf('plan', replannedFrom.data.from), attributes: { 'praxis.link': 'previous_revision' } }] : [],
    status:
      end.type === 'plan_failed' || end.type === 'plan_abandoned'
        ? { code: 'error', message: String(end.data.reason ?? end.type) }
        : end.type === 'plan_completed'
          ? { code: 'ok' }
          : { code: 'unset' },
  };
  spans.push(plan);

  const stepIds = [...new Set(own.filter((e) => e.stepId).map((e) => e.stepId!))];
  for (const stepId of stepIds) {
    const stepEvents = own.filter((e) => e.stepId === stepId);
    const calls = events.filter((e) => stepOfOrigin(e.data.origin) === stepId);
    const moves = stepEvents.filter((e) => STEP_MOVES.has(e.type));
    const last = moves.at(-1);
    const first = [...stepEvents, ...calls].reduce((a, b) => (b.seq < a.seq ? b : a));
    const keyed = stepEvents.find((e) => typeof e.data.key === 'string');
    const stepSpanId = spanIdOf('step', stepId);
    const failed = last && (last.type === 'plan_step_failed' || last.type === 'plan_step_blocked');
    spans.push({
      traceId,
      spanId: stepSpanId,
      parentSpanId: planSpanId,
      name: `step ${String(keyed?.data.key ?? stepId)}`,
      start: first.createdAt,
      end: last?.createdAt ?? end.createdAt,
      attributes: clean({
        'praxis.step.id': stepId,
        'praxis.step.key': String(keyed?.data.key ?? ''),
        'praxis.step.kind': String(keyed?.data.kind ?? ''),
        'praxis.step.outcome': last ? last.type.replace('plan_step_', '') : 'unfinished',
        'praxis.step.reason': String(last?.data.reason ?? ''),
        'praxis.step.attempts': typeof last?.data.attempt === 'number' ? last.data.attempt : 0,
      }),
      events: stepEvents
        .filter((e) => e.type === 'prediction_made' || e.type === 'prediction_resolved')
        .map((e) => ({
          name: e.type === 'prediction_made' ? 'praxis.prediction.made' : 'praxis.prediction.resolved',
          at: e.createdAt,
          attributes: clean({
            'praxis.prediction.id': String(e.data.prediction_id ?? ''),
            'praxis.prediction.statement': String(e.data.statement ?? ''),
            'praxis.prediction.confidence': typeof e.data.confidence === 'number' ? e.data.confidence : 0,
            'praxis.prediction.outcome': e.type === 'prediction_resolved' ? String(e.data.status ?? '') : 'open',
            'praxis.prediction.note': String(e.data.note ?? ''),
          }),
        })),
      links: [],
      status: failed ? { code: 'error', message: String(last!.data.error ?? last!.data.reason ?? last!.type) } : last?.type === 'plan_step_completed' ? { code: 'ok' } : { code: 'unset' },
    });
    spans.push(...callSpans(calls, events, { traceId, stepSpanId, intentionLink, planEnd: end.createdAt }));
  }
  return spans;
}

/** `plan_step:<id>` or `plan_step:<id>:precondition` → the step id. */
function stepOfOrigin(origin: unknown): string | null {
  if (typeof origin !== 'string' || !origin.startsWith('plan_step:')) return null;
  return origin.slice('plan_step:'.length).split(':')[0] ?? null;
}

/** `calls` were made by one step; decisions and grants (which name no origin) are looked up in `all`. */
function callSpans(calls: readonly EventRecord[], all: readonly EventRecord[], at: { traceId: string; stepSpanId: string; intentionLink: SpanRecord['links']; planEnd: Date }): SpanRecord[] {
  const spans: SpanRecord[] = [];
  const { traceId, stepSpanId } = at;
  // Looked up per call, so kept in maps: a monitor step may make twenty thousand calls, and a
  // search back through the calls for each one held the daemon's event loop for 16 s.
  const lastAuthorisation = new Map<string, EventRecord>();
  const grantsMade = new Map<unknown, EventRecord>();
  for (const e of all) if (e.type === 'grant_created' && !grantsMade.has(e.data.grant_id)) grantsMade.set(e.data.grant_id, e);
  for (const call of calls) {
    const origin = String(call.data.origin);
    const purpose = origin.split(':')[2] ?? 'action';
    // The authorisation of a call: the last one for the same origin and capability before it.
    const key = `${origin}\u0000${String(call.data.capability ?? '')}`;
    if (call.type === 'tool_authorised') lastAuthorisation.set(key, call);
    if (call.type === 'tool_executed' || call.type === 'tool_failed') {
      const capability = String(call.data.capability ?? '');
      const authorised = lastAuthorisation.get(key);
      const links = [...at.intentionLink];
      if (typeof authorised?.data.approval_id === 'string') links.push({ traceId, spanId: spanIdOf('approval', authorised.data.approval_id), attributes: { 'praxis.link': 'approval' } });
      const request = typeof authorised?.data.grant_id === 'string' ? grantsMade.get(authorised.data.grant_id) : undefined;
      if (typeof request?.data.request_id === 'string') links.push({ traceId, spanId: spanIdOf('capability_request', request.data.request_id), attributes: { 'praxis.link': 'capability_request' } });
      const executionId = String(call.data.execution_id ?? call.id);
      spans.push({
        traceId,
        spanId: spanIdOf('execution', executionId),
        parentSpanId: stepSpanId,
        name: `execute_tool ${capability}`,
        start: (authorised ?? call).createdAt,
        end: call.createdAt,
        attributes: clean({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': capability,
          'gen_ai.tool.call.id': executionId,
          'gen_ai.tool.type': 'extension',
          'praxis.capability.target': String(call.data.target ?? ''),
          'praxis.execution.origin': origin,
          'praxis.execution.purpose': purpose,
          'praxis.execution.summary': String(call.data.summary ?? ''),
          'praxis.authorisation.source': String(authorised?.data.source ?? ''),
          ...(call.type === 'tool_failed' ? { 'error.type': String(call.data.failure ?? call.data.code ?? 'tool_failed') } : {}),
        }),
        events: [],
        links,
        status: call.type === 'tool_failed' ? { code: 'error', message: String(call.data.error ?? 'failed') } : { code: 'ok' },
      });
    } else if (call.type === 'approval_requested' && typeof call.data.approval_id === 'string') {
      const id = call.data.approval_id;
      const decided = all.find(
        (e) =>
          e.data.approval_id === id && ((e.type === 'approval_approved' && e.data.final !== false) || e.type === 'approval_denied' || e.type === 'approval_expired' || e.type === 'approval_withdrawn'),
      );
      const operators = all.filter((e) => e.data.approval_id === id && (e.type === 'approval_approved' || e.type === 'approval_denied')).map((e) => String(e.data.operator ?? ''));
      spans.push(
        waitSpan(traceId, stepSpanId, 'approval', id, String(call.data.capability ?? ''), call, decided, at.planEnd, {
          'praxis.approval.id': id,
          'praxis.approval.outcome': decided ? decided.type.replace('approval_', '') : 'pending',
          'praxis.approval.operators': operators.join(','),
          'praxis.approval.approvers_required': typeof call.data.approvers_required === 'number' ? call.data.approvers_required : 1,
        }),
      );
    } else if (call.type === 'capability_requested' && typeof call.data.request_id === 'string') {
      const id = call.data.request_id;
      const decided = all.find((e) => e.data.request_id === id && (e.type === 'grant_created' || e.type === 'capability_request_denied' || e.type === 'capability_request_withdrawn'));
      const outcome = !decided ? 'open' : decided.type === 'grant_created' ? 'granted' : decided.type.replace('capability_request_', '');
      spans.push(
        waitSpan(traceId, stepSpanId, 'capability_request', id, String(call.data.capability ?? ''), call, decided, at.planEnd, {
          'praxis.capability_request.id': id,
          'praxis.capability_request.outcome': outcome,
          'praxis.capability_request.operator': String(decided?.data.operator ?? ''),
        }),
      );
    }
  }
  return spans;
}

function waitSpan(
  traceId: string,
  parent: string,
  kind: 'approval' | 'capability_request',
  id: string,
  capability: string,
  opened: EventRecord,
  decided: EventRecord | undefined,
  fallbackEnd: Date,
  attributes: Record<string, AttributeValue>,
): SpanRecord {
  const refused = decided && /denied|expired|withdrawn/.test(decided.type);
  return {
    traceId,
    spanId: spanIdOf(kind, id),
    parentSpanId: parent,
    name: `${kind} ${capability}`,
    start: opened.createdAt,
    end: decided?.createdAt ?? fallbackEnd,
    attributes: clean({ ...attributes, 'praxis.capability.target': String(opened.data.target ?? opened.data.target_pattern ?? '') }),
    events: [],
    links: [],
    status: refused ? { code: 'error', message: decided.type } : { code: 'unset' },
  };
}

/** Drops empty strings: an attribute that says nothing is left out. */
function clean(attributes: Record<string, AttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== ''));
}
