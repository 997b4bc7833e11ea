// An executor on PostgreSQL holds its presence while its loop runs (src/store/presence.ts):
// it claims nothing before the lock is held, since a claim made without it could be taken over
// by an executor on another host that finds the lock free, and it lets the lock go only once it
// has stopped, with nothing of its own in hand.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { CapabilityImplementation } from '../../src/capabilities/implementation.ts';
import { newExecutorName, PRESENCE_GRACE_MS } from '../../src/execution/claimants.ts';
import { PRESENCE_CONNECTION, type PresenceHold } from '../../src/store/index.ts';
import { useStore } from '../support/stores.ts';
import { until } from '../support/until.ts';
import { draftOf, makeWorld, step } from './support.ts';

describe("an executor's presence (postgres)", () => {
  const current = useStore('postgres');

  it('claims nothing until its presence is held, then runs what is due; lets it go once stopped', async () => {
    const w = await makeWorld(current());
    await w.allow('test.read');
    const { plan } = await w.plan(draftOf([step('R', { kind: 'capability', capability: 'test.read', params: { name: 'probe' } })]));
    const stepId = plan.steps[0]!.id;
    const name = newExecutorName('web-9');
    // The executor's own earlier session, not yet ended by the server, still holds its key.
    const earlier = w.store.presence.hold(name);
    await earlier.whenHeld();
    const warnings: string[] = [];
    const executor = w.executor({ name, intervalMs: 50, log: { debug() {}, error: (m) => w.errors.push(m), warn: (m) => warnings.push(m) } });
    executor.start();
    try {
      await until(async () => warnings.some((m) => m.includes('claiming nothing until it does')), 'the executor to say why it waits');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await w.store.steps.get(stepId))?.status, 'pending', 'nothing is started or claimed without presence');
      assert.equal((await w.store.plans.get(plan.id))?.status, 'validated');
      assert.equal(executor.ticks, 0, 'no pass ran');
      await earlier.release();
      await until(async () => (await w.store.steps.get(stepId))?.status === 'completed', 'the step to run once the presence is held');
      assert.deepEqual(await w.store.presence.absent([name]), [], 'held while the loop runs');
      assert.ok(
        warnings.some((m) => m.includes('presence again')),
        `the executor says it claims again: ${warnings.join('; ')}`,
      );
    } finally {
      await earlier.release();
      await executor.stop();
    }
    assert.deepEqual(await w.store.presence.absent([name]), [name], 'let go on stop');
    assert.deepEqual(w.errors, []);
  });

  it('stops claiming, and takes nothing over, from the moment it loses its presence in the middle of a pass', async () => {
    let begun = 0;
    const slowRead: CapabilityImplementation = async (params) => {
      begun += 1;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return { observation: { name: String(params.name), value: 'read' }, summary: 'read slowly' };
    };
    const w = await makeWorld(current(), { implementations: { 'test.read': slowRead } });
    await w.allow('test.read');
    // A claim of an executor on another host that keeps presence and holds no lock: gone, to
    // anyone who may judge.
    const { plan } = await w.plan(draftOf([step('G', { kind: 'capability', capability: 'test.read', params: { name: 'gone' } })]));
    await w.store.plans.transition(plan.id, 'validated', 'executing');
    await w.store.steps.move('promote', plan.steps[0]!.id, 'pending');
    const gone = (await w.store.steps.claim(plan.steps[0]!.id, { leaseSeconds: 600, claimant: newExecutorName('web-z') }))!;
    for (let i = 0; i < 6; i += 1) await w.plan(draftOf([step('R', { kind: 'capability', capability: 'test.read', params: { name: `slow-${i}` } })]));
    const name = newExecutorName('web-e');
    const executor = w.executor({ name, intervalMs: 3_600_000, log: { debug() {}, warn() {}, error: (m) => w.errors.push(m) } });
    let thief: PresenceHold | undefined;
    executor.start();
    try {
      await until(async () => begun > 0, 'the pass to begin its slow reads');
      // Its presence connection cut, and its key then taken by another session: it cannot hold
      // its lock again, so others may judge it gone.
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${PRESENCE_CONNECTION} and datname = current_database()`.execute(w.store.db);
      thief = w.store.presence.hold(name);
      await thief.whenHeld();
      const before = begun;
      // Past the grace and several of the watch's looks beside the pass.
      await new Promise((resolve) => setTimeout(resolve, PRESENCE_GRACE_MS + 2500));
      assert.equal(begun, before, 'no read claimed after the loss (the one in hand finishes)');
      const left = (await w.store.steps.get(gone.id))!;
      assert.deepEqual([left.status, left.claimedBy], ['executing', gone.claimedBy], 'nothing taken over without presence');
      await thief.release();
      // Held again: the takeover (the read is to be tried again) and the other reads go ahead.
      await until(async () => (await w.store.steps.get(gone.id))?.status !== 'executing', 'the claim to be taken over', 15_000);
      await until(async () => begun === 6, 'the other reads to run', 30_000);
    } finally {
      await thief?.release();
      await executor.stop();
    }
    assert.deepEqual(w.errors, []);
  });
});
