// Which events are told to operators (topicOf) and what the message says (notificationOf), as
// pure functions of the event and the records it is about.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../src/core/plan.ts';
import type { EventType } from '../../src/core/vocabulary.ts';
import { notificationOf } from '../../src/notify/message.ts';
import { topicOf } from '../../src/notify/topics.ts';
import type { CapabilityRequestRecord, EventRecord } from '../../src/store/index.ts';

function event(type: EventType, data: JsonObject): EventRecord {
  return { seq: 7, id: '01a24e8e-ff6c-75cf-8f3c-eec3a5e27006', type, mindId: null, intentionId: null, planId: null, stepId: null, data, createdAt: new Date('2026-12-07T04:00:00Z') };
}

describe('notification topics', () => {
  it('tells a spent budget as a blocked intention, and no other suspension', () => {
    assert.equal(topicOf(event('intention_suspended', { reason: 'budget_exhausted' })), 'intention.blocked');
    assert.equal(topicOf(event('intention_suspended', { reason: 'quiesced' })), null);
    assert.equal(topicOf(event('intention_blocked', { reason: 'outcome_unverified' })), 'intention.blocked');
    assert.equal(topicOf(event('intention_blocked', { reason: 'awaiting_approval' })), null);
  });

  it('says the access granted, which may be narrower than the access asked for', () => {
    const request = { id: 'r', capability: 'logs.query', targetPattern: '*' } as CapabilityRequestRecord;
    const granted = event('grant_created', { request_id: 'r', operator: 'alice', capability: 'logs.query', target_pattern: 'atlas-worker.service' });
    const text = notificationOf({ event: granted, topic: 'capability_request.granted', mindName: 'demo', request, consoleUrl: null }).text;
    assert.equal(text, 'alice granted demo access to logs.query on atlas-worker.service.');
  });
});
