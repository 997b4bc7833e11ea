// An approved one-off action whose executor stopped mid-act (stranded-approvals.ts). Before, the
// request stayed `approved` and claimed for good: never performed again, and never put before an
// operator. Now, once the claim is older than the capability's timeout and the lease margin, a
// write with a `started` record ends `failed` with an unknown outcome told to operators (and is
// never repeated), and a read is performed again under the same approval. A claim whose
// executor is known to be gone (claimants.ts) is taken over at once, whatever its age.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { PRESENCE_GRACE_MS } from '../../src/execution/claimants.ts';
import { LEASE_MARGIN_SECONDS } from '../../src/execution/context.ts';
import { topicOf } from '../../src/notify/topics.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeWorld, type World } from './support.ts';

/** An executor name of this host whose process has exited. */
function goneClaimant(): string {
  return `${hostname()}:${spawnSync(process.execPath, ['-e', '']).pid}:0badcafe`;
}

/**
 * A pass of a new executor, then, on PostgreSQL, where a claimant's free presence lock is
 * believed only at looks a grace apart (claimants.ts), another after the grace; the last report.
 */
async function passesAcrossTheGrace(w: World, kind: string) {
  const executor = w.executor();
  const first = await executor.tick();
  if (kind !== 'postgres') return first;
  await new Promise((resolve) => setTimeout(resolve, PRESENCE_GRACE_MS + 100));
  return executor.tick();
}

/** A world whose `capability`'s first call waits until `release`; later calls answer at once. */
async function stalledWorld(ts: Parameters<typeof makeWorld>[0], capability: 'test.read' | 'test.write', claimant = '') {
  // Calls longer than the test capabilities' own 2 s, which is the presence grace on PostgreSQL:
  // a claim taken over from a gone claimant is taken while its act could still run.
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let called: () => void = () => {};
  const acting = new Promise<void>((resolve) => (called = resolve));
  const calls: string[] = [];
  const w = await makeWorld(ts, {
    timeouts: { [capability]: 30 },
    implementations: {
      [capability]: async (params: Record<string, unknown>) => {
        calls.push(String(params.name));
        if (calls.length === 1) {
          called();
          await gate;
        }
        return { observation: { name: String(params.name), value: 'done' }, summary: 'done' };
      },
    },
  });
  const asked = await w.service.invoke({ mindId: w.mind.id, capability, params: { name: 'atlas' }, origin: 'operator:bob', authoredBy: 'bob', requireApproval: true });
  assert.equal(asked.status, 'pending');
  const approvalId = asked.status === 'pending' ? asked.approvalId : '';
  assert.equal((await w.service.approve(approvalId, 'alice')).status, 'approved');
  // The first executor claims it and acts, and is never heard from again (until `release`).
  const stopped = w.service.performApproved(approvalId, claimant);
  await acting;
  const lease = w.registry.get(capability)!.timeoutSeconds + LEASE_MARGIN_SECONDS;
  return { w, approvalId, calls, release, stopped, lease };
}

for (const kind of STORE_KINDS) {
  describe(`approved one-off actions whose executor stopped (${kind})`, () => {
    const current = useStore(kind);

    it('a write: left alone within its lease, then ended with an unknown outcome, told, and never repeated', async () => {
      const { w, approvalId, calls, release, stopped, lease } = await stalledWorld(current(), 'test.write');
      const claimed = (await w.store.approvals.get(approvalId))!;
      assert.ok(claimed.executionId, 'the stopped executor claimed it');
      assert.equal((await w.store.executions.get(claimed.executionId))?.status, 'started');

      w.advance(lease - 1);
      await w.executor().tick();
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'approved', 'an act may still be running within its lease');

      w.advance(2);
      const report = await w.executor().tick();
      assert.equal(report.recoveredApprovals, 1);
      const ended = (await w.store.approvals.get(approvalId))!;
      assert.equal(ended.status, 'failed');
      assert.equal(ended.executionId, claimed.executionId, 'it names the execution whose outcome is unknown');
      assert.equal((await w.store.executions.get(claimed.executionId))?.status, 'started', 'the record still says what is known');
      const told = (await w.store.events.list({ mindId: w.mind.id, limit: 100 })).filter((e) => e.type === 'tool_failed');
      assert.equal(told.length, 1);
      assert.equal(told[0]!.data.code, 'outcome_unknown');
      assert.equal(told[0]!.data.approval_id, approvalId);
      assert.equal(topicOf(told[0]!), 'action.outcome_unknown');
      await w.executor().tick();
      assert.deepEqual(calls, ['atlas'], 'nothing repeated the write');

      // The stopped act was only slow: its outcome finishes its record, and moves no request.
      release();
      assert.equal((await stopped)?.status, 'executed');
      assert.equal((await w.store.executions.get(claimed.executionId))?.status, 'succeeded');
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'failed');
      assert.deepEqual(w.errors, []);
    });

    it('a read: its claim is released and the read performed again under the same approval', async () => {
      const { w, approvalId, calls, release, stopped, lease } = await stalledWorld(current(), 'test.read');
      const claimed = (await w.store.approvals.get(approvalId))!;
      assert.ok(claimed.executionId);
      assert.equal(await w.store.executions.get(claimed.executionId), undefined, 'a read writes no record ahead');

      w.advance(lease + 1);
      const report = await w.executor().tick();
      assert.equal(report.recoveredApprovals, 1);
      const performed = (await w.store.approvals.get(approvalId))!;
      assert.equal(performed.status, 'executed');
      assert.notEqual(performed.executionId, claimed.executionId);
      assert.deepEqual(calls, ['atlas', 'atlas']);

      release();
      // The slow first read did read (its record says so) but holds the request no more: it moves nothing.
      assert.equal((await stopped)?.status, 'executed');
      assert.deepEqual(await w.store.approvals.get(approvalId), performed);
      assert.equal(
        (await w.store.events.list({ mindId: w.mind.id, limit: 100 })).some((e) => e.data.code === 'outcome_unknown'),
        false,
      );
      assert.deepEqual(w.errors, []);
    });

    it('a write whose claimant is known to be gone ends with an unknown outcome at once, long before its lease', async () => {
      const claimant = goneClaimant();
      const { w, approvalId, calls, release, stopped } = await stalledWorld(current(), 'test.write', claimant);
      const claimed = (await w.store.approvals.get(approvalId))!;
      assert.equal(claimed.claimedBy, claimant, 'the claim names its executor');
      const report = await passesAcrossTheGrace(w, kind);
      assert.equal(report.takenOver, 1, `${JSON.stringify(report)} ${w.errors.join(' ')}`);
      const ended = (await w.store.approvals.get(approvalId))!;
      assert.equal(ended.status, 'failed', 'taken over with the clock where the claim was made');
      assert.equal(ended.executionId, claimed.executionId);
      const told = (await w.store.events.list({ mindId: w.mind.id, limit: 100 })).filter((e) => e.type === 'tool_failed');
      assert.deepEqual(
        told.map((e) => e.data.code),
        ['outcome_unknown'],
      );
      await w.executor().tick();
      assert.deepEqual(calls, ['atlas'], 'nothing repeated the write');
      release();
      await stopped;
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'failed', 'the late outcome moves nothing');
      assert.deepEqual(w.errors, []);
    });

    it('a read whose claimant is known to be gone is released and performed again in the same pass', async () => {
      const { w, approvalId, calls, release, stopped } = await stalledWorld(current(), 'test.read', goneClaimant());
      const claimed = (await w.store.approvals.get(approvalId))!;
      const report = await passesAcrossTheGrace(w, kind);
      assert.equal(report.takenOver, 1);
      assert.equal(report.performedApprovals, 1, 'performed by the pass that released it');
      const performed = (await w.store.approvals.get(approvalId))!;
      assert.equal(performed.status, 'executed');
      assert.notEqual(performed.executionId, claimed.executionId);
      assert.notEqual(performed.claimedBy, claimed.claimedBy, 'claimed anew by the executor that performed it');
      assert.notEqual(performed.claimedBy, '');
      assert.deepEqual(calls, ['atlas', 'atlas']);
      release();
      await stopped;
      assert.deepEqual(await w.store.approvals.get(approvalId), performed);
      assert.deepEqual(w.errors, []);
    });

    it('a claim made by a daemon of an earlier version names nobody, even where a gone executor was named before: it keeps the age rule', async () => {
      const { w, approvalId, calls, release, stopped, lease } = await stalledWorld(current(), 'test.read', goneClaimant());
      // What an earlier version does during a rolling upgrade, knowing nothing of claimed_by: the
      // age rule releases the claim (execution_id only), and it performs the read under a claim of
      // its own, still acting while the next passes look.
      await w.store.db.updateTable('approval_requests').set({ execution_id: null }).where('id', '=', approvalId).execute();
      const ownClaim = newId();
      await w.store.db.updateTable('approval_requests').set({ execution_id: ownClaim }).where('id', '=', approvalId).execute();
      const held = (await w.store.approvals.get(approvalId))!;
      assert.equal(held.claimedBy, '', 'the gone executor no longer speaks for the claim');
      const report = await passesAcrossTheGrace(w, kind);
      assert.equal(report.takenOver, 0);
      assert.deepEqual(report.liveClaimants, []);
      assert.equal((await w.store.approvals.get(approvalId))?.executionId, ownClaim, 'the live claim is left alone');
      assert.deepEqual(calls, ['atlas']);
      w.advance(lease + 1);
      assert.equal((await w.executor().tick()).recoveredApprovals, 1, 'the age rule still applies');
      release();
      await stopped;
      assert.deepEqual(w.errors, []);
    });

    it('a claim whose executor process still runs is left alone, and taken over once it has exited', async () => {
      const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => live.once('exit', resolve));
      try {
        const { w, approvalId, release, stopped } = await stalledWorld(current(), 'test.write', `${hostname()}:${live.pid}:0badcafe`);
        const left = await passesAcrossTheGrace(w, kind);
        assert.equal(left.takenOver, 0);
        assert.deepEqual(left.liveClaimants, [`${hostname()}:${live.pid}:0badcafe`], 'watched, so that its end is seen');
        assert.equal((await w.store.approvals.get(approvalId))?.status, 'approved');
        live.kill('SIGKILL');
        await exited;
        assert.equal((await passesAcrossTheGrace(w, kind)).takenOver, 1);
        assert.equal((await w.store.approvals.get(approvalId))?.status, 'failed');
        release();
        await stopped;
        assert.deepEqual(w.errors, []);
      } finally {
        live.kill('SIGKILL');
      }
    });
  });
}
