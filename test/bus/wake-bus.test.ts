import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { WakeBus } from '../../src/bus/wake-bus.ts';
import { openStore, type PostgresStoreConfig } from '../../src/store/index.ts';
import { programArgs } from '../support/programs.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const kind of STORE_KINDS) {
  describe(`wake bus in process (${kind})`, () => {
    const current = useStore(kind);

    it('wakes on events that can unblock work, not on others', async () => {
      const { store } = current();
      const bus = new WakeBus(store);
      const reasons: string[] = [];
      bus.onWake((r) => reasons.push(r));
      try {
        const mind = await store.minds.create({ name: `w-${kind}` });
        await store.events.append({ type: 'policy_decision', mindId: mind.id });
        assert.equal(await bus.next(50), 'timeout');
        await store.events.append({ type: 'approval_approved', mindId: mind.id });
        assert.equal(await bus.next(1000), 'woken', 'a wake-up that came before the wait is kept');
        assert.deepEqual(reasons, ['approval_approved']);
      } finally {
        await bus.close();
      }
    });

    it('wakes only after a transaction commits, and not at all after a rollback', async () => {
      const { store } = current();
      const bus = new WakeBus(store);
      const reasons: string[] = [];
      bus.onWake((r) => reasons.push(r));
      try {
        await store
          .transaction(async (tx) => {
            await tx.events.append({ type: 'grant_created' });
            assert.deepEqual(reasons, [], 'not before commit');
            throw new Error('roll back');
          })
          .catch(() => undefined);
        assert.deepEqual(reasons, []);
        await store.transaction(async (tx) => {
          await tx.events.append({ type: 'grant_created' });
          assert.deepEqual(reasons, []);
        });
        assert.deepEqual(reasons, ['grant_created']);
      } finally {
        await bus.close();
      }
    });

    it('ends a wait on abort and on close', async () => {
      const { store } = current();
      const bus = new WakeBus(store);
      const controller = new AbortController();
      const waiting = bus.next(10_000, controller.signal);
      controller.abort();
      assert.equal(await waiting, 'aborted');
      const closing = bus.next(10_000);
      await bus.close();
      assert.equal(await closing, 'aborted');
    });
  });
}

describe('wake bus across processes (postgres)', () => {
  const current = useStore('postgres');

  it('is woken by an event another process commits, and listens again after losing its connection', async () => {
    const { store, config } = current();
    const reasons: string[] = [];
    const bus = new WakeBus(store, { postgres: config as PostgresStoreConfig, onError: () => {} });
    bus.onWake((r) => reasons.push(r));
    try {
      await until(() => bus.listening, 'the listener');
      // Another process appends an event through its own store.
      const child = spawn(process.execPath, [...programArgs(new URL('./processes/append-event.ts', import.meta.url)), JSON.stringify(config), 'intention_formed'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise((resolve) => child.on('close', resolve));
      assert.equal(code, 0, stderr);
      await until(() => reasons.includes('intention_formed'), 'the notification');

      // Cut the listener's connection from the server side; it must come back and say so.
      const admin = await openStore(config);
      const listeningBefore = reasons.filter((r) => r === 'listening').length;
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
                where datname = current_database() and pid <> pg_backend_pid() and query like 'LISTEN%'`.execute(admin.db);
      await until(() => reasons.filter((r) => r === 'listening').length > listeningBefore, 'the reconnection', 10_000);
      await admin.events.append({ type: 'approval_denied' });
      await until(() => reasons.includes('approval_denied'), 'a notification after reconnecting');
      // A transaction's events go in as one statement with their NOTIFY, once it commits.
      await admin
        .transaction(async (tx) => {
          await tx.events.appendMany([{ type: 'approval_approved', data: { approval_id: 'rolled-back' } }]);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await admin.transaction(async (tx) => {
        await tx.events.appendMany([{ type: 'policy_decision' }, { type: 'approval_approved', data: { approval_id: 'batched' } }]);
        await tx.events.appendMany([{ type: 'approval_approved', data: { approval_id: 'batched' } }]);
      });
      await until(() => reasons.includes('approval_approved:batched'), 'a notification of a batch committed in a transaction');
      assert.equal(reasons.filter((r) => r === 'approval_approved:batched').length, 1, 'one wake-up per reason');
      assert.ok(!reasons.includes('approval_approved:rolled-back'), 'nothing for a transaction rolled back');
      await admin.close();
    } finally {
      await bus.close();
    }
  });
});
