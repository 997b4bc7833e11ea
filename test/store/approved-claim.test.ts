// steps.claimApproved: an approved step's claim, its request's claim and the records written
// ahead of the act, all of them or none (one statement on PostgreSQL, a transaction on SQLite).
// On PostgreSQL it runs, as the approval scene's read does, on a connection of its own that
// stays open (APPROVAL_CONNECTION).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { addSeconds } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { APPROVAL_CONNECTION } from '../../src/store/store.ts';
import type { ApprovedClaim } from '../../src/store/repositories/steps.ts';
import { seedPlan } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { restartApproval } from './authority/fixtures.ts';

/** A plan whose first step awaits an approved request: what an operator's approval leaves. */
async function awaitingApproved(store: Store) {
  const { mind, plan } = await seedPlan(store);
  const step = plan.steps[0]!;
  const approval = await store.approvals.create(restartApproval(mind.id, store.clock, { origin: `plan_step:${step.id}` }));
  await store.steps.move('promote', step.id, 'pending');
  const waiting = await store.steps.move('await_approval', step.id, 'ready', { approvalId: approval.id });
  assert.ok(waiting);
  assert.ok(await store.approvals.transition(approval.id, 'pending', 'approved', { decidedAt: store.clock.now() }));
  return { mind, plan, step: waiting, approval };
}

function claimOf(seeded: Awaited<ReturnType<typeof awaitingApproved>>, store: Store, claimedBy = 'executor-a'): ApprovedClaim {
  const executionId = newId();
  const lease = addSeconds(store.clock.now(), 60);
  const { mind, step, approval } = seeded;
  return {
    stepId: step.id,
    approvalId: approval.id,
    executionId,
    patch: { leaseUntil: lease, nextRunAt: lease, claimedBy },
    executions: [
      {
        id: executionId,
        mindId: mind.id,
        capability: 'service.restart',
        target: 'nginx.service',
        params: { unit: 'nginx.service' },
        origin: approval.origin,
        correlationId: '',
        evidence: {},
        approvalId: approval.id,
        status: 'started',
      },
    ],
    events: [
      { type: 'tool_authorised', mindId: mind.id, data: { approval_id: approval.id, claimed_by: claimedBy } },
      { type: 'plan_step_started', mindId: mind.id, planId: step.planId, stepId: step.id, data: { claimed_by: claimedBy } },
    ],
  };
}

for (const kind of STORE_KINDS) {
  describe(`claiming an approved step (${kind})`, () => {
    const current = useStore(kind);

    it('claims the step and its request and writes the write-ahead execution and the events together', async () => {
      const { store } = current();
      const seeded = await awaitingApproved(store);
      const before = await store.events.latestSeq();
      const claim = claimOf(seeded, store);

      const claimed = await store.steps.claimApproved(claim);
      assert.equal(claimed?.status, 'executing');
      assert.equal(claimed?.claimedBy, 'executor-a');
      assert.equal(claimed?.leaseUntil?.getTime(), claim.patch.leaseUntil!.getTime());
      assert.equal((await store.approvals.get(seeded.approval.id))?.executionId, claim.executionId);
      assert.equal((await store.executions.get(claim.executionId))?.status, 'started');
      const events = await store.events.list({ mindId: seeded.mind.id, afterSeq: before });
      assert.deepEqual(
        events.map((e) => e.type),
        ['tool_authorised', 'plan_step_started'],
      );

      // A second claim of the same request finds it taken: nothing more is written.
      assert.equal(await store.steps.claimApproved(claimOf(seeded, store, 'executor-b')), undefined);
      assert.equal((await store.events.list({ mindId: seeded.mind.id, afterSeq: before })).length, 2);
    });

    it('claims nothing and writes nothing when the step moved on, leaving the request unclaimed', async () => {
      const { store } = current();
      const seeded = await awaitingApproved(store);
      // A replan cancelled the step after the executor read it.
      assert.ok(await store.steps.move('cancel', seeded.step.id, 'awaiting_approval', { statusReason: 'replanned' }));
      const before = await store.events.latestSeq();
      const claim = claimOf(seeded, store);

      assert.equal(await store.steps.claimApproved(claim), undefined);
      assert.equal((await store.approvals.get(seeded.approval.id))?.executionId, null, 'the request is not claimed for a step that cannot move');
      assert.equal(await store.executions.get(claim.executionId), undefined);
      assert.equal(await store.events.latestSeq(), before);
    });

    it('claims nothing when the request is no longer approved', async () => {
      const { store } = current();
      const seeded = await awaitingApproved(store);
      assert.ok(await store.approvals.transition(seeded.approval.id, 'approved', 'failed', {}));
      const claim = claimOf(seeded, store);

      assert.equal(await store.steps.claimApproved(claim), undefined);
      assert.equal((await store.steps.get(seeded.step.id))?.status, 'awaiting_approval');
      assert.equal(await store.executions.get(claim.executionId), undefined);
    });

    it('gives the step to exactly one of several executors claiming it at once', async () => {
      const { store, config, clock } = current();
      const seeded = await awaitingApproved(store);
      const before = await store.events.latestSeq();
      const claims = ['a', 'b', 'c', 'd'].map((name) => claimOf(seeded, store, `executor-${name}`));
      // A store each, as executors in other daemons: on PostgreSQL a store claims on its one
      // approval connection, so claims through one store would only queue behind each other.
      const others = kind === 'postgres' ? await Promise.all(claims.slice(1).map(() => openStore(config, { clock }))) : [];
      const stores = [store, ...others];

      const outcomes = await Promise.all(claims.map((claim, i) => stores[i % stores.length]!.steps.claimApproved(claim))).finally(() => Promise.all(others.map((other) => other.close())));
      const won = outcomes.flatMap((step, i) => (step ? [claims[i]!] : []));
      assert.equal(won.length, 1, 'one winner');
      const winner = won[0]!;
      assert.equal((await store.steps.get(seeded.step.id))?.claimedBy, winner.patch.claimedBy);
      assert.equal((await store.approvals.get(seeded.approval.id))?.executionId, winner.executionId);
      for (const claim of claims) assert.equal((await store.executions.get(claim.executionId)) !== undefined, claim === winner, 'only the winner wrote its execution ahead');
      const events = await store.events.list({ mindId: seeded.mind.id, afterSeq: before });
      assert.deepEqual(
        events.map((e) => e.data.claimed_by),
        [winner.patch.claimedBy, winner.patch.claimedBy],
      );
    });

    it('inside a transaction claims within it: undone with it', async () => {
      const { store } = current();
      const seeded = await awaitingApproved(store);
      const claim = claimOf(seeded, store);
      await assert.rejects(
        store.transaction(async (tx) => {
          assert.equal((await tx.steps.claimApproved(claim))?.status, 'executing');
          throw new Error('the rest of the unit of work failed');
        }),
        /the rest of the unit of work failed/,
      );
      assert.equal((await store.steps.get(seeded.step.id))?.status, 'awaiting_approval');
      assert.equal((await store.approvals.get(seeded.approval.id))?.executionId, null);
      assert.equal(await store.executions.get(claim.executionId), undefined);
    });
  });
}

describe('the approval connection (postgres)', () => {
  const current = useStore('postgres');

  /** This database's approval connections other than `except`, as the server lists them: process id and last statement. */
  async function approvalConnections(store: Store, except: readonly number[] = []): Promise<{ pid: number; query: string }[]> {
    const { rows } = await sql<{ pid: number; query: string }>`select pid, query from pg_stat_activity
      where datname = current_database() and application_name = ${APPROVAL_CONNECTION} order by pid`.execute(store.db);
    return rows.filter((row) => !except.includes(row.pid));
  }

  it('is opened as an executor readies for approvals, runs the scene read and the claim, and outlives the idle timeout', async () => {
    const { store, config, clock } = current();
    const seeded = await awaitingApproved(store);
    const earlier = (await approvalConnections(store)).map((row) => row.pid);
    // A pooled connection idle for 100 ms is closed; the approval connection is not.
    const daemon = await openStore(config, { clock, idleConnectionMs: 100 });
    try {
      assert.deepEqual(await approvalConnections(store, earlier), [], 'opened on first use, not with the store');
      await daemon.executorQueries.readyForApprovals();
      const [readied, ...more] = await approvalConnections(store, earlier);
      assert.equal(more.length, 0);
      assert.match(readied!.query, /^select \(select to_json\("approval_requests"\)/);

      await daemon.executorQueries.approvalScene(seeded.approval.id, seeded.mind.id, seeded.step.id);
      assert.equal((await daemon.steps.claimApproved(claimOf(seeded, daemon)))?.status, 'executing');
      await new Promise((resolve) => setTimeout(resolve, 400));
      const after = await approvalConnections(store, earlier);
      assert.deepEqual(
        after.map((row) => row.pid),
        [readied!.pid],
        'the same connection ran the scene and the claim, and is still open past the idle timeout',
      );
      assert.match(after[0]!.query, /^with locked as/);
    } finally {
      await daemon.close();
    }
    for (let i = 0; i < 100 && (await approvalConnections(store, earlier)).length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(await approvalConnections(store, earlier), [], 'closed with the store');
  });
});
