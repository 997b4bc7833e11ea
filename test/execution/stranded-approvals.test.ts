// An approved one-off action whose executor stopped mid-act (stranded-approvals.ts). Before, the
// request stayed `approved` and claimed for good: never performed again, and never put before an
// operator. Now, once the claim is older than the capability's timeout and the lease margin, a
// write with a `started` record ends `failed` with an unknown outcome told to operators (and is
// never repeated), and a read is performed again under the same approval.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEASE_MARGIN_SECONDS } from '../../src/execution/context.ts';
import { topicOf } from '../../src/notify/topics.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeWorld } from './support.ts';

/** A world whose `capability`'s first call waits until `release`; later calls answer at once. */
async function stalledWorld(ts: Parameters<typeof makeWorld>[0], capability: 'test.read' | 'test.write') {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let called: () => void = () => {};
  const acting = new Promise<void>((resolve) => (called = resolve));
  const calls: string[] = [];
  const w = await makeWorld(ts, {
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
  const stopped = w.service.performApproved(approvalId);
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
  });
}
