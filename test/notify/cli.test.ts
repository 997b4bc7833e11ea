// `praxis webhooks`: the delivery log from the command line, newest first, as a table or JSON;
// a bad filter is refused with its flag named.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { useStore } from '../support/stores.ts';
import { praxis } from '../daemon/process.ts';

describe('praxis webhooks', () => {
  const current = useStore('sqlite');

  it('lists deliveries with their status and last error, filters by status, refuses an unknown one', { timeout: 60_000 }, async () => {
    const { store, config, clock } = current();
    const path = config.kind === 'sqlite' ? config.path : '';
    const body = (topic: string) => JSON.stringify({ topic, text: `${topic} happened` });
    await store.webhookDeliveries.enqueue([
      { target: 'ops', eventId: newId(), eventSeq: 1, topic: 'approval.requested', mindId: null, body: body('approval.requested') },
      { target: 'chat', eventId: newId(), eventSeq: 2, topic: 'intention.escalated', mindId: null, body: body('intention.escalated') },
    ]);
    const [first] = await store.webhookDeliveries.claimDue('daemon-a', new Date(clock.now().getTime() + 60_000), 1);
    await store.webhookDeliveries.recordAttempt(first!.id, 'daemon-a', {
      status: 'pending',
      nextAttemptAt: new Date(clock.now().getTime() + 5_000),
      responseStatus: 503,
      error: 'answered 503: Service Unavailable',
    });

    const table = await praxis(['webhooks', '--db', path], {});
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /TARGET\s+TOPIC\s+STATUS/);
    assert.match(table.stdout, /ops\s+approval\.requested\s+pending\s+1\s+503\s+next at .*answered 503/);
    assert.match(table.stdout, /chat\s+intention\.escalated\s+pending\s+0/);

    const json = await praxis(['webhooks', '--db', path, '--status', 'pending', '--target', 'ops', '--json'], {});
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { target: string; attempts: number; body: { topic: string } }[];
    assert.deepEqual(
      listed.map((d) => [d.target, d.attempts, d.body.topic]),
      [['ops', 1, 'approval.requested']],
    );

    const bad = await praxis(['webhooks', '--db', path, '--status', 'lost'], {});
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--status/);
  });
});
