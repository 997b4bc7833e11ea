import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addSeconds } from '../../../src/core/clock.ts';
import { newId } from '../../../src/core/ids.ts';
import type { ApprovalDecision } from '../../../src/store/repositories/approvals.ts';
import type { TestStore } from '../../support/stores.ts';
import { restartApproval, restartExecution, seedMind, stepOrigin } from './fixtures.ts';

export function approvalTests(current: () => TestStore): void {
  describe('approvals', () => {
    it('creates a pending request and reads it back whole', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const input = restartApproval(mindId, clock, { approversRequired: 2, batchKey: 'batch-nginx', authoredBy: 'operator:bob' });
      const approval = await store.approvals.create(input);
      assert.deepEqual(approval, {
        id: approval.id,
        mindId,
        capability: 'service.restart',
        target: 'nginx.service',
        params: input.params,
        origin: input.origin,
        correlationId: input.correlationId,
        evidence: input.evidence,
        explanation: input.explanation,
        digest: input.digest,
        status: 'pending',
        approversRequired: 2,
        decisions: [],
        authoredBy: 'operator:bob',
        authorNamedBy: '',
        // Nothing amended yet: a request reads as raised until an operator amends it.
        amendments: [],
        batchKey: 'batch-nginx',
        executionId: null,
        claimedBy: '',
        expiresAt: addSeconds(clock.now(), 3600),
        decidedAt: null,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      assert.deepEqual(await store.approvals.get(approval.id), approval);
      assert.deepEqual(await store.approvals.listByOrigin(input.origin), [approval]);
      assert.deepEqual(await store.approvals.listByOrigin(''), []);
      assert.equal(await store.approvals.get(newId()), undefined);
    });

    it('approves once: a later approve, deny or withdraw loses and changes nothing', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const approval = await store.approvals.create(restartApproval(mindId, clock));
      clock.advance(40);
      const decision: ApprovalDecision = { operator: 'alice', decision: 'approve', at: clock.now().toISOString(), note: 'go ahead' };
      const approved = await store.approvals.transition(approval.id, 'pending', 'approved', { decisions: [decision] });
      assert.deepEqual(approved, {
        ...approval,
        status: 'approved',
        decisions: [decision],
        decidedAt: clock.now(),
        updatedAt: clock.now(),
      });
      clock.advance(5);
      assert.equal(await store.approvals.transition(approval.id, 'pending', 'withdrawn'), undefined);
      assert.equal(
        await store.approvals.transition(approval.id, 'pending', 'denied', {
          decisions: [{ operator: 'bob', decision: 'deny', at: clock.now().toISOString() }],
        }),
        undefined,
      );
      assert.deepEqual(await store.approvals.get(approval.id), approved, 'the losers changed nothing');
      assert.equal(await store.approvals.transition(newId(), 'pending', 'approved'), undefined);

      const execution = await store.executions.start(restartExecution(mindId, { approvalId: approval.id }));
      const executed = await store.approvals.transition(approval.id, ['approved'], 'executed', { executionId: execution.id });
      assert.equal(executed?.status, 'executed');
      assert.equal(executed?.executionId, execution.id);
      assert.deepEqual(executed?.decidedAt, approved?.decidedAt, 'executing keeps the decision time');
      assert.equal(await store.approvals.transition(approval.id, 'approved', 'executed'), undefined, 'executed once');
    });

    it('detects a lost update between two operators recording the first of two approvals', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const approval = await store.approvals.create(restartApproval(mindId, clock, { approversRequired: 2 }));
      // Both operators read the request while it has no decisions yet.
      const seenByAlice = (await store.approvals.get(approval.id))!.decisions;
      const seenByBob = (await store.approvals.get(approval.id))!.decisions;
      clock.advance(10);
      const alice: ApprovalDecision = { operator: 'alice', decision: 'approve', at: clock.now().toISOString() };
      const afterAlice = await store.approvals.recordDecision(approval.id, seenByAlice, [...seenByAlice, alice]);
      assert.deepEqual(afterAlice, { ...approval, decisions: [alice], updatedAt: clock.now() });

      clock.advance(1);
      const bob: ApprovalDecision = { operator: 'bob', decision: 'approve', at: clock.now().toISOString(), note: 'lgtm' };
      assert.equal(await store.approvals.recordDecision(approval.id, seenByBob, [...seenByBob, bob]), undefined, "Bob decided on a stale list: his write would erase Alice's decision");
      assert.deepEqual(await store.approvals.get(approval.id), afterAlice, 'nothing changed');

      // Bob reads again and retries. His copy of the list has its keys in another order, as a
      // client that rebuilt the objects would send it; the comparison is by value on both stores.
      const fresh = (await store.approvals.get(approval.id))!.decisions;
      const reordered = fresh.map((d) => ({ operator: d.operator, decision: d.decision, at: d.at }));
      const both = await store.approvals.recordDecision(approval.id, reordered, [...fresh, bob]);
      assert.deepEqual(both?.decisions, [alice, bob]);
      assert.equal(both?.status, 'pending');

      const approved = await store.approvals.transition(approval.id, 'pending', 'approved');
      assert.equal(approved?.status, 'approved');
      assert.equal(
        await store.approvals.recordDecision(approval.id, [alice, bob], [alice, bob, { ...bob, operator: 'carol' }]),
        undefined,
        'no decisions are recorded once the request has left pending',
      );
      assert.deepEqual((await store.approvals.get(approval.id))?.decisions, [alice, bob]);
    });

    it('lists by mind, status and batch, oldest first, all unless limited', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const batchKey = `batch-${newId()}`;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await store.approvals.create(restartApproval(mindId, clock, { batchKey }))).id);
        clock.advance(1);
      }
      const loose = await store.approvals.create(restartApproval(mindId, clock));
      await store.approvals.create(restartApproval(await seedMind(store), clock, { batchKey: `batch-${newId()}` }));
      await store.approvals.transition(ids[1]!, 'pending', 'denied');

      const idsOf = (list: { id: string }[]) => list.map((a) => a.id);
      assert.deepEqual(idsOf(await store.approvals.list({ mindId })), [...ids, loose.id]);
      assert.deepEqual(idsOf(await store.approvals.list({ batchKey })), ids);
      assert.deepEqual(idsOf(await store.approvals.list({ batchKey, status: 'pending' })), [ids[0], ids[2]]);
      assert.deepEqual(idsOf(await store.approvals.list({ mindId, status: ['denied', 'expired'] })), [ids[1]]);
      assert.deepEqual(idsOf(await store.approvals.list({ mindId, limit: 2 })), ids.slice(0, 2));
    });

    it('expires pending requests whose time has come, once', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const start = clock.now();
      const soon = await store.approvals.create(restartApproval(mindId, clock, { expiresAt: addSeconds(start, 60) }));
      clock.advance(1);
      const later = await store.approvals.create(restartApproval(mindId, clock, { expiresAt: addSeconds(start, 120) }));
      const decided = await store.approvals.create(restartApproval(mindId, clock, { expiresAt: addSeconds(start, 30) }));
      const distant = await store.approvals.create(restartApproval(mindId, clock, { expiresAt: addSeconds(start, 3600) }));
      await store.approvals.transition(decided.id, 'pending', 'approved');

      clock.set(addSeconds(start, 119));
      const ours = <T extends { mindId: string }>(list: T[]) => list.filter((a) => a.mindId === mindId);
      const first = ours(await store.approvals.expireDue(clock.now()));
      assert.deepEqual(first, [{ ...soon, status: 'expired', updatedAt: clock.now() }]);

      clock.set(addSeconds(start, 120));
      const second = ours(await store.approvals.expireDue(clock.now()));
      assert.deepEqual(
        second.map((a) => a.id),
        [later.id],
        'expiry is inclusive',
      );
      assert.deepEqual(ours(await store.approvals.expireDue(clock.now())), [], 'nothing expires twice');
      assert.equal((await store.approvals.get(decided.id))?.status, 'approved', 'a decided request does not expire');
      assert.equal((await store.approvals.get(distant.id))?.status, 'pending');
      assert.equal(await store.approvals.transition(soon.id, 'pending', 'approved'), undefined, 'an expired request can no longer be approved');
    });

    it('keeps requests of different origins apart', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const origin = stepOrigin();
      const a = await store.approvals.create(restartApproval(mindId, clock, { origin }));
      clock.advance(1);
      const b = await store.approvals.create(restartApproval(mindId, clock, { origin }));
      await store.approvals.create(restartApproval(mindId, clock));
      assert.deepEqual(
        (await store.approvals.listByOrigin(origin)).map((r) => r.id),
        [a.id, b.id],
      );
    });
  });
}
