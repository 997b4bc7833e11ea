// Writers that decide from what a mind holds take turns on the mind's row lock (minds.lockForUpdate)
// on PostgreSQL, where two daemons write at once: without it, two executors recording the same
// finding each formed a belief, and two operators setting the same rule each recorded that it
// replaced nothing. (SQLite serialises writers already: BEGIN IMMEDIATE.)

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setPolicyRule } from '../../src/capabilities/policy/changes.ts';
import { recordFindings } from '../../src/mind/findings.ts';
import type { Repositories, Store } from '../../src/store/index.ts';
import { openStore } from '../../src/store/store.ts';
import { useStore } from '../support/stores.ts';

/** Resolves after `ms`: long enough for a writer that is not held back to have committed. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('writers deciding from a mind take turns (postgres)', () => {
  const current = useStore('postgres');

  async function second(): Promise<Store> {
    const { config, clock } = current();
    const store = await openStore(config, { clock });
    await store.minds.list();
    return store;
  }

  it('two executors recording the same finding form one belief', async () => {
    const { store } = current();
    const other = await second();
    try {
      const mind = await store.minds.create({ name: 'finder' });
      const finding = { step: 'logs', kind: 'log_line' as const, level: 'fatal' as const, text: 'fatal: pool exhausted', belief: 'atlas-worker.service exhausts its pool' };
      const subject = (n: number) => ({ mindId: mind.id, intentionId: crypto.randomUUID(), planId: crypto.randomUUID(), stepId: crypto.randomUUID(), stepKey: `read-${n}` });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = store.transaction(async (tx) => {
        await recordFindings(tx, subject(1), { summary: 'one', findings: [finding] }, new Date());
        await held; // committed only once the second has had every chance to read
      });
      await pause(100);
      const later = other.transaction((tx) => recordFindings(tx, subject(2), { summary: 'two', findings: [finding] }, new Date()));
      await pause(300);
      release();
      await Promise.all([first, later]);
      const beliefs = (await store.beliefs.listByMind(mind.id)).filter((b) => b.statement === finding.belief);
      assert.equal(beliefs.length, 1, JSON.stringify(beliefs.map((b) => b.id)));
      assert.equal(beliefs[0]!.evidence.length, 2, 'both observations are evidence for the one belief');
    } finally {
      await other.close();
    }
  });

  it("two batches that each wrote a mind's rows and then take its lock both commit (no deadlock)", async () => {
    const { store } = current();
    const other = await second();
    try {
      const mind = await store.minds.create({ name: 'batched' });
      // Each writes a row that references the mind (its foreign key takes KEY SHARE on the mind's
      // row), waits for the other to do the same, then takes the mind's lock: FOR UPDATE conflicts
      // with the other's KEY SHARE, and the two waited on each other.
      let arrived = 0;
      let bothWrote!: () => void;
      const barrier = new Promise<void>((resolve) => (bothWrote = resolve));
      const batch = (s: Store, statement: string) =>
        s.transaction(async (tx) => {
          await tx.beliefs.create({ mindId: mind.id, statement, confidence: 0.5 });
          if (++arrived === 2) bothWrote();
          await barrier;
          await tx.minds.lockForUpdate(mind.id);
        });
      const results = await Promise.allSettled([batch(store, 'one'), batch(other, 'two')]);
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? 'ok' : String((r.reason as Error).message))),
        ['ok', 'ok'],
      );
    } finally {
      await other.close();
    }
  });

  it('two operators setting the same rule: the second event names the first rule as replaced', async () => {
    const { store } = current();
    const other = await second();
    try {
      const mind = await store.minds.create({ name: 'ruled' });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // Alice's change waits, after reading the rules, until Bob's has had every chance to run.
      const slowed = new Proxy(store, {
        get(target, key) {
          if (key !== 'transaction') return Reflect.get(target, key, target);
          return <T>(work: (tx: Repositories) => Promise<T>) =>
            target.transaction((tx) => {
              const rules = new Proxy(tx.policyRules, {
                get(repo, name) {
                  const value = Reflect.get(repo, name, repo);
                  if (name !== 'listByMind') return typeof value === 'function' ? value.bind(repo) : value;
                  return async (mindId: string) => {
                    const read = await repo.listByMind(mindId);
                    await held;
                    return read;
                  };
                },
              });
              return work(new Proxy(tx, { get: (t, k) => (k === 'policyRules' ? rules : Reflect.get(t, k, t)) }));
            });
        },
      });
      const change = { mindId: mind.id, capability: 'browser.read', targetPattern: 'web-*' };
      const alice = setPolicyRule(slowed, { ...change, decision: 'allow', approvers: 1 }, 'alice');
      await pause(100);
      const bob = setPolicyRule(other, { ...change, decision: 'deny', approvers: 1 }, 'bob');
      await pause(300);
      release();
      await Promise.all([alice, bob]);
      const events = (await store.events.list({ mindId: mind.id, limit: 10 })).filter((e) => e.type === 'policy_rule_set');
      const previous = Object.fromEntries(events.map((e) => [e.data.operator, e.data.previous]));
      assert.deepEqual(previous, { alice: null, bob: { decision: 'allow', approvers: 1 } });
      assert.equal((await store.policyRules.listByMind(mind.id)).find((r) => r.targetPattern === 'web-*')?.decision, 'deny');
    } finally {
      await other.close();
    }
  });
});
