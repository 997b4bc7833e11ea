// The notifier and its cursor on both stores, on a manual clock: every event told once per
// target however many daemons follow the log, each delivery sent by one of them, retries spaced
// by the backoff and given up on a refusal, and a seq not yet visible waited for.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EventFollower } from '../../src/bus/follower.ts';
import { newId } from '../../src/core/ids.ts';
import { Notifier } from '../../src/notify/notifier.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import type { WebhookTarget } from '../../src/notify/targets.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const quiet = { warn() {}, info() {} };

for (const kind of STORE_KINDS) {
  describe(`webhook deliveries (${kind})`, () => {
    const current = useStore(kind);
    let server: Server;
    let url = '';
    let answer = 200;
    const received: { delivery: string; attempt: string; topic: string }[] = [];
    before(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          received.push({ delivery: String(req.headers['x-praxis-delivery']), attempt: String(req.headers['x-praxis-attempt']), topic: String(req.headers['x-praxis-topic']) });
          res.statusCode = answer;
          res.end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    });
    after(() => server.close());

    const target = (name: string, topics: WebhookTarget['topics'] = null): WebhookTarget => ({ name, url, secret: 'sixteen-chars-or-more', format: name === 'chat' ? 'slack' : 'praxis', topics });
    const notifier = (name: string, targets: WebhookTarget[], store: Store = current().store) => new Notifier({ store, targets, consoleUrl: 'https://console.example.test', name, log: quiet });
    const approvalRequested = (mindId: string) =>
      current().store.events.append({
        type: 'approval_requested',
        mindId,
        data: { approval_id: newId(), capability: 'service.restart', target: 'web.service', origin: 'operator', approvers_required: 1 },
      });

    it('two daemons following one log write each delivery once and send it once', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `m-${kind}-1`, host: null });
      await approvalRequested(mind.id); // before the notifier existed: not told
      await new EventFollower(store, { consumer: 'webhooks', holder: 'setup' }).ensureCursor();
      const targets = [target('ops'), target('chat', ['approval.requested'])];
      // Two daemons: two connections (pools) to one database, racing.
      const second = await openStore(current().config, { clock: current().clock });
      const a = notifier('daemon-a', targets);
      const b = notifier('daemon-b', targets, second);
      await approvalRequested(mind.id);
      await approvalRequested(mind.id);
      await store.events.append({ type: 'intention_blocked', mindId: mind.id, data: { reason: 'awaiting_approval' } }); // a wait: not told
      await store.events.append({ type: 'intention_blocked', mindId: mind.id, data: { reason: 'expectation_failed', escalated: true } });
      received.length = 0;
      try {
        await Promise.all([a.runOnce(), b.runOnce()]);
        await Promise.all([a.runOnce(), b.runOnce()]);
      } finally {
        await second.close();
      }
      const log = await store.webhookDeliveries.list({});
      assert.deepEqual(log.map((d) => `${d.target} ${d.topic}`).sort(), [
        'chat approval.requested',
        'chat approval.requested',
        'ops approval.requested',
        'ops approval.requested',
        'ops intention.escalated',
      ]);
      assert.ok(log.every((d) => d.status === 'delivered' && d.attempts === 1));
      assert.equal(received.length, 5, 'each delivery sent once');
      assert.equal(new Set(received.map((r) => r.delivery)).size, 5);
      const chat = JSON.parse(log.find((d) => d.target === 'chat')!.body);
      assert.match(chat.text, /asks for approval: service\.restart on web\.service/);
      assert.ok(Array.isArray(chat.blocks), 'a Slack-compatible body');
      // A restart finds the cursor where it was: nothing is written or sent again.
      const again = notifier('daemon-c', targets);
      await store.eventCursors.release('webhooks', 'daemon-a');
      await store.eventCursors.release('webhooks', 'daemon-b');
      assert.deepEqual(await again.runOnce(), { enqueued: 0, attempted: 0 });
    });

    it('retries a 503 after 5 s, then 10 s, and gives up at once on a 404', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `m-${kind}-2`, host: null });
      const n = notifier('daemon-r', [target('ops')]);
      await store.eventCursors.release('webhooks', 'daemon-c');
      await approvalRequested(mind.id);
      answer = 503;
      received.length = 0;
      assert.equal((await n.runOnce()).attempted, 1);
      const [pending] = await store.webhookDeliveries.list({ status: 'pending' });
      assert.equal(pending?.attempts, 1);
      assert.equal(pending?.responseStatus, 503);
      assert.equal(pending?.nextAttemptAt.getTime(), clock.now().getTime() + 5_000);
      assert.equal((await n.runOnce()).attempted, 0, 'not before its time');
      clock.advance(5);
      assert.equal((await n.runOnce()).attempted, 1);
      assert.equal((await store.webhookDeliveries.get(pending!.id))?.nextAttemptAt.getTime(), clock.now().getTime() + 10_000);
      answer = 404;
      clock.advance(10);
      assert.equal((await n.runOnce()).attempted, 1);
      const failed = await store.webhookDeliveries.get(pending!.id);
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.attempts, 3);
      assert.match(failed?.lastError ?? '', /answered 404/);
      assert.ok(!(failed?.lastError ?? '').includes(url), 'the URL is not in the log');
      assert.deepEqual(
        received.map((r) => r.attempt),
        ['1', '2', '3'],
      );
      answer = 200;
    });

    it('a target that never answers holds up only its own deliveries', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `m-${kind}-hol`, host: null });
      // A target that takes the request and never answers.
      const dead = createServer(() => {});
      await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
      try {
        const silent: WebhookTarget = { ...target('silent'), url: `http://127.0.0.1:${(dead.address() as AddressInfo).port}/hook` };
        // The silent target's sends wait a minute for an answer: they end only when the test closes
        // it. The pass may claim batches for 30 s (1 s by default), so a loaded machine cannot cut
        // the answering target's drain short of its 45 deliveries within the one pass.
        const n = new Notifier({ store, targets: [silent, target('ops')], consoleUrl: null, name: 'daemon-hol', log: quiet, sendTimeoutMs: 60_000, drainBudgetMs: 30_000 });
        for (const holder of ['daemon-c', 'daemon-r']) await store.eventCursors.release('webhooks', holder);
        await n.runOnce();
        for (let i = 0; i < 45; i++) await approvalRequested(mind.id);
        received.length = 0;
        let passEnded = false;
        const pass = n.runOnce().finally(() => (passEnded = true));
        // Every delivery to the target that answers goes while the silent one's first batch is
        // still unanswered. In lock-step batches of 20 across both targets, the answering
        // target's deliveries after the first batch waited for the silent target's answers.
        const deadline = Date.now() + 15_000;
        while (received.length < 45 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(received.length, 45, `${received.length} of 45 deliveries to the answering target went while the silent target held its batch`);
        assert.equal(passEnded, false, 'the silent target is still holding its own batch');
        // It stops listening (later sends are refused at once) and drops what it holds.
        const closed = new Promise((resolve) => dead.close(resolve));
        dead.closeAllConnections();
        await Promise.all([pass, closed]);
        const silentLog = await store.webhookDeliveries.list({ target: 'silent' });
        assert.ok(
          silentLog.every((d) => d.status === 'pending' && d.attempts <= 1),
          'the silent target waits for its retries',
        );
        await store.eventCursors.release('webhooks', 'daemon-hol');
      } finally {
        if (dead.listening) {
          dead.closeAllConnections();
          await new Promise((resolve) => dead.close(resolve));
        }
      }
    });

    it('a pass ends after a second of batches, so a target that never answers cannot keep it going on its own retries', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `m-${kind}-budget`, host: null });
      // A target that never answers, with retries due again at once (as a real one's are, 5 s
      // after a try, before a 10 s batch ends).
      const dead = createServer(() => {});
      await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
      try {
        // A target of its own: the earlier test's silent deliveries are not in its way.
        const silent: WebhookTarget = { ...target('mute'), url: `http://127.0.0.1:${(dead.address() as AddressInfo).port}/hook` };
        const n = new Notifier({ store, targets: [silent], consoleUrl: null, name: 'daemon-budget', log: quiet, sendTimeoutMs: 300, retry: { firstDelayMs: 0, maxDelayMs: 0, maxAttempts: 10 } });
        for (const holder of ['daemon-c', 'daemon-r', 'daemon-hol']) await store.eventCursors.release('webhooks', holder);
        await n.runOnce();
        for (let i = 0; i < 5; i++) await approvalRequested(mind.id);
        const pass = await n.runOnce();
        assert.equal(pass.more, true, 'the pass ran out of time with deliveries due, and says so');
        const log = await store.webhookDeliveries.list({ target: 'mute' });
        assert.equal(log.length, 5);
        // Each batch waits 300 ms for nothing, so a second holds at most four or five of them; a
        // pass with no bound went on until each delivery had spent all ten attempts.
        assert.ok(
          log.every((d) => d.status === 'pending' && d.attempts >= 1 && d.attempts <= 5),
          JSON.stringify(log.map((d) => [d.status, d.attempts])),
        );
        await store.eventCursors.release('webhooks', 'daemon-budget');
      } finally {
        dead.closeAllConnections();
        await new Promise((resolve) => dead.close(resolve));
      }
    });

    it('events that need no delivery move the stored cursor at most every 5 s, and on a clean stop', async () => {
      const { store, clock } = current();
      for (const holder of ['daemon-a', 'daemon-b', 'daemon-c', 'daemon-r']) await store.eventCursors.release('webhooks', holder);
      const n = notifier('daemon-q', [target('ops')]);
      const note = () => store.events.append({ type: 'operator_note', data: { message: 'nothing to tell' } });
      await note();
      await n.runOnce();
      const first = (await store.eventCursors.get('webhooks'))!.seq;
      assert.equal(first, await store.events.latestSeq(), 'the first pass is recorded');
      await note();
      await note();
      assert.deepEqual(await n.runOnce(), { enqueued: 0, attempted: 0 });
      assert.equal((await store.eventCursors.get('webhooks'))!.seq, first, 'read, not yet recorded');
      clock.advance(5);
      await note();
      await n.runOnce();
      assert.equal((await store.eventCursors.get('webhooks'))!.seq, await store.events.latestSeq());
      await note();
      await n.runOnce();
      await n.stop();
      const stopped = await store.eventCursors.get('webhooks');
      assert.equal(stopped?.seq, await store.events.latestSeq(), 'a clean stop records how far it read');
      assert.equal(stopped?.holder, '');
    });

    it('a follower waits for a seq not visible yet and reads it in order once it is', async () => {
      const { store, clock } = current();
      const follower = new EventFollower(store, { consumer: 'gaps', holder: 'me', gapGraceMs: 10_000 });
      await follower.ensureCursor();
      const start = await store.events.latestSeq();
      const write = (seq: number) => store.db.insertInto('events').values({ seq, id: newId(), type: 'operator_note', data: '{}', created_at: clock.now().toISOString() }).execute();
      await write(start + 1);
      await write(start + 3); // start + 2 is "in flight"
      const first = await follower.next();
      assert.deepEqual(
        first?.events.map((e) => e.seq),
        [start + 1],
        'stops before the gap',
      );
      assert.ok(await follower.advance(first!));
      assert.equal(await follower.next(), null, 'still waiting');
      await write(start + 2); // it commits
      const rest = await follower.next();
      assert.deepEqual(
        rest?.events.map((e) => e.seq),
        [start + 2, start + 3],
      );
      assert.ok(await follower.advance(rest!));
      assert.equal(await follower.next(), null, 'nothing new');
    });

    it('steps over a gap after the grace, and a cursor held by another daemon is not moved', async () => {
      const { store, clock } = current();
      const follower = new EventFollower(store, { consumer: 'gaps-2', holder: 'me', gapGraceMs: 10_000 });
      await follower.ensureCursor();
      const start = await store.events.latestSeq();
      await store.db
        .insertInto('events')
        .values({ seq: start + 2, id: newId(), type: 'operator_note', data: '{}', created_at: clock.now().toISOString() })
        .execute();
      assert.equal(await follower.next(), null);
      clock.advance(11);
      const batch = await follower.next();
      assert.deepEqual(
        batch?.events.map((e) => e.seq),
        [start + 2],
        'a rolled-back seq is given up on',
      );
      const other = new EventFollower(store, { consumer: 'gaps-2', holder: 'other' });
      assert.equal(await other.next(), null, 'the cursor is held');
      assert.equal(await other.advance(batch!), false);
      assert.ok(await follower.advance(batch!));
      assert.equal((await store.eventCursors.get('gaps-2'))?.seq, start + 2);
    });
  });
}
