// Two executors take up one approved request: B claims it and acts while A, which read it as
// approved and unclaimed, is refused by a policy rule that landed meanwhile. A's refusal changes
// nothing (its step move loses, and the request is no longer unclaimed); B's outcome is the
// request's. Before the request's move was guarded by its claim, A marked it failed with no
// execution while B's act ran, and B's outcome found nothing to move.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CapabilityService } from '../../src/capabilities/service.ts';
import type { ApprovalRecord, Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, step, type World } from './support.ts';

/**
 * A world whose test.write waits, once called, until `release`; `acting` resolves when it was called.
 */
async function slowWriteWorld(ts: Parameters<typeof makeWorld>[0]) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let called: () => void = () => {};
  const acting = new Promise<void>((resolve) => (called = resolve));
  const w = await makeWorld(ts, {
    implementations: {
      'test.write': async (params) => {
        called();
        await gate;
        return { observation: { name: String(params.name), value: 'written' }, summary: 'written' };
      },
    },
  });
  return { w, release, acting };
}

/**
 * The store as A sees it: its first read of `approvalId` returns the request as it was, after
 * `meanwhile` ran (B's claim and act begun, a deny rule set): the window between A's read and its
 * refusal, made certain.
 */
function readingBefore(store: Store, approvalId: string, meanwhile: () => Promise<void>): Store {
  let done = false;
  const approvals = new Proxy(store.approvals, {
    get(target, key) {
      if (key === 'get') {
        return async (id: string): Promise<ApprovalRecord | undefined> => {
          const read = await target.get(id);
          if (!done && id === approvalId) {
            done = true;
            await meanwhile();
          }
          return read;
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return new Proxy(store, {
    get(target, key) {
      if (key === 'approvals') return approvals;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function denyWrites(w: World): Promise<void> {
  await w.store.policyRules.set({ mindId: w.mind.id, capability: 'test.write', targetPattern: '*', decision: 'deny', approvers: 1 });
}

for (const kind of STORE_KINDS) {
  describe(`a refusal that loses the race for an approved request (${kind})`, () => {
    const current = useStore(kind);

    it("leaves a plan step's request to the executor that claimed it", async () => {
      const { w, release, acting } = await slowWriteWorld(current());
      const { plan } = await w.plan(draftOf([step('X', { kind: 'capability', capability: 'test.write', params: { name: 'x' } })]));
      await w.executor().tick();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_approval');
      assert.equal((await w.service.approve(waiting.approvalId!, 'alice')).status, 'approved');

      let performed: Promise<boolean> | undefined;
      const a = w.executor({
        store: readingBefore(w.store, waiting.approvalId!, async () => {
          performed = w.executor().performApproval(waiting.approvalId!);
          await acting;
          await denyWrites(w);
        }),
      });
      await a.tick();
      assert.equal((await w.store.approvals.get(waiting.approvalId!))?.status, 'approved', "A's refusal did not close the request B is acting on");
      release();
      assert.equal(await performed, true);
      const after = (await w.store.plans.get(plan.id))!.steps[0]!;
      const approval = await w.store.approvals.get(waiting.approvalId!);
      assert.equal(after.status, 'completed');
      assert.equal(approval?.status, 'executed');
      assert.equal(approval?.executionId, after.executionId, 'the request names the execution that ran');
      assert.deepEqual(w.errors, []);
    });

    it("leaves a one-off call's request to the executor that claimed it", async () => {
      const { w, release, acting } = await slowWriteWorld(current());
      const asked = await w.service.invoke({ mindId: w.mind.id, capability: 'test.write', params: { name: 'y' }, origin: 'operator:bob', authoredBy: 'bob', requireApproval: true });
      assert.equal(asked.status, 'pending');
      const approvalId = asked.status === 'pending' ? asked.approvalId : '';
      const answer = await w.service.approve(approvalId, 'alice');
      assert.equal(answer.status, 'approved', JSON.stringify(answer));

      let performed: ReturnType<CapabilityService['performApproved']> | undefined;
      const a = new CapabilityService(
        readingBefore(w.store, approvalId, async () => {
          performed = w.service.performApproved(approvalId);
          await acting;
          await denyWrites(w);
        }),
        w.registry,
        w.service.context.implementations,
      );
      assert.equal(await a.performApproved(approvalId), undefined, "A's refusal moved nothing");
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'approved');
      release();
      const result = await performed;
      assert.equal(result?.status, 'executed');
      const approval = await w.store.approvals.get(approvalId);
      assert.equal(approval?.status, 'executed');
      assert.equal(approval?.executionId, result?.status === 'executed' ? result.executionId : undefined);
    });
  });
}
