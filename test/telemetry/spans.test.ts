// Spans built from a story's events (pure): which event ends an intention's span, and a step
// that made very many calls.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventType } from '../../src/core/vocabulary.ts';
import type { JsonObject } from '../../src/core/plan.ts';
import type { EventRecord } from '../../src/store/index.ts';
import { intentionSpan, planSpans } from '../../src/telemetry/spans.ts';

const MIND = '01a24fb0-0000-7000-8000-00000000000a';
const INTENTION = '01a24fb0-0000-7000-8000-00000000000b';
const PLAN = '01a24fb0-0000-7000-8000-00000000000c';
const STEP = '01a24fb0-0000-7000-8000-00000000000d';
const lineage = { rootIntentionId: INTENTION, parentIntentionId: null };

function story(): { events: EventRecord[]; add: (type: EventType, data?: JsonObject, over?: Partial<EventRecord>) => EventRecord } {
  const events: EventRecord[] = [];
  const start = Date.parse('2026-12-01T10:00:00Z');
  return {
    events,
    add(type, data = {}, over = {}) {
      const seq = events.length + 1;
      const event: EventRecord = { seq, id: `event-${seq}`, type, mindId: MIND, intentionId: INTENTION, planId: null, stepId: null, data, createdAt: new Date(start + seq * 1000), ...over };
      events.push(event);
      return event;
    },
  };
}

describe('trace spans', () => {
  it("end an intention released from an operator's block at its fulfilment, not at the block", () => {
    const { events, add } = story();
    add('intention_formed');
    add('intention_blocked', { reason: 'outcome_unverified' });
    const blocked = intentionSpan(events, INTENTION, lineage);
    assert.equal(blocked?.attributes['praxis.intention.outcome'], 'blocked');
    add('intention_resumed');
    const fulfilled = add('intention_fulfilled');
    const span = intentionSpan(events, INTENTION, lineage);
    assert.equal(span?.attributes['praxis.intention.outcome'], 'fulfilled');
    assert.deepEqual(span?.end, fulfilled.createdAt);
    assert.equal(span?.spanId, blocked?.spanId, 'the same span, sent again with its outcome');
  });

  it('a wait for an approval does not end the span; an intention still blocked ends at its last block', () => {
    const { events, add } = story();
    add('intention_formed');
    add('intention_blocked', { reason: 'awaiting_approval' });
    assert.equal(intentionSpan(events, INTENTION, lineage), null);
    add('intention_blocked', { reason: 'outcome_unverified' });
    add('intention_resumed');
    const last = add('intention_blocked', { reason: 'expectation_failed', escalated: true });
    const span = intentionSpan(events, INTENTION, lineage);
    assert.equal(span?.attributes['praxis.intention.outcome'], 'escalated');
    assert.deepEqual(span?.end, last.createdAt);
  });

  // Each call's authorisation was searched for back through every earlier call of the step:
  // a week's monitor (twenty thousand checks) held the event loop for 10-16 s, and the time grew
  // with the square of the calls (forty thousand, about 40 s). The bound is a hang's (this takes
  // well under a second now), not a speed target.
  it('build a step of forty thousand calls, each linked to its own authorisation', () => {
    const { events, add } = story();
    const onPlan = { planId: PLAN, stepId: STEP };
    add('plan_started', { strategy: 'direct', revision: 1 }, { planId: PLAN });
    add('plan_step_started', { key: 'M1' }, onPlan);
    const origin = `plan_step:${STEP}:check`;
    for (let i = 0; i < 40_000; i += 1) {
      add('tool_authorised', { origin, capability: 'service.status', source: i % 2 === 0 ? 'policy' : 'grant' }, onPlan);
      add('tool_executed', { origin, capability: 'service.status', execution_id: `execution-${i}`, target: 'atlas-worker.service' }, onPlan);
    }
    add('plan_step_completed', { key: 'M1' }, onPlan);
    add('plan_completed', {}, { planId: PLAN });
    const started = performance.now();
    const spans = planSpans(events, PLAN, lineage);
    const took = performance.now() - started;
    assert.ok(took < 8_000, `building the spans held the event loop for ${Math.round(took)} ms`);
    const calls = spans.filter((s) => s.name === 'execute_tool service.status');
    assert.equal(calls.length, 40_000);
    // Each call starts at its own authorisation, one second before it, with that authorisation's source.
    for (const [i, call] of calls.entries()) {
      assert.equal(call.end.getTime() - call.start.getTime(), 1000);
      assert.equal(call.attributes['praxis.authorisation.source'], i % 2 === 0 ? 'policy' : 'grant');
    }
  });
});
