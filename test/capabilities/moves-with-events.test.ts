// Every decision on an approval or a capability request, and every grant revocation, commits
// together with the event that tells of it. Before, the move committed first and the event
// after: when the event's insert failed, the operator got an error, the move stood with no event
// (never told, never waking the step that waits on it), and a retry found it made and wrote none.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CapabilityService } from '../../src/capabilities/service.ts';
import type { InvokeRequest } from '../../src/capabilities/invocation.ts';
import type { Repositories, Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, testRegistry, type CallLog } from '../support/test-capabilities.ts';

/** The store, with the next events insert made inside a transaction failing once `armed` is set. */
function failingEvents(store: Store): { store: Store; arm: () => void } {
  let armed = false;
  const wrapTx = (tx: Repositories): Repositories => {
    const events = new Proxy(tx.events, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (armed && (key === 'append' || key === 'appendMany')) {
          return async () => {
            armed = false;
            throw new Error('the events insert failed');
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return new Proxy(tx, { get: (target, key) => (key === 'events' ? events : Reflect.get(target, key, target)) });
  };
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === 'transaction') return <T>(work: (tx: Repositories) => Promise<T>) => target.transaction((tx) => work(wrapTx(tx)));
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, arm: () => (armed = true) };
}

for (const kind of STORE_KINDS) {
  describe(`decisions commit with their events (${kind})`, () => {
    const current = useStore(kind);

    async function setUp() {
      const { store: real, clock } = current();
      const { store, arm } = failingEvents(real);
      const log: CallLog = { calls: [] };
      const service = new CapabilityService(store, testRegistry, testImplementations(log));
      const mind = await real.minds.create({ name: `told-${Math.random().toString(36).slice(2, 10)}` });
      const call = (over: Partial<InvokeRequest> = {}): InvokeRequest => ({
        mindId: mind.id,
        capability: 'test.write',
        params: { name: 'alpha' },
        origin: `plan_step:${crypto.randomUUID()}`,
        authoredBy: 'tester',
        ...over,
      });
      const raise = async () => {
        const raised = await service.requestCapability({
          mindId: mind.id,
          origin: 'plan_step:r1',
          capability: 'test.read',
          targetPattern: 'web-*',
          durationSeconds: 600,
          maxOperations: 2,
          reason: 'read the web tier',
          risk: 'may show internal names',
          mitigation: 'read-only',
          fallback: 'ask the operator',
        });
        assert.equal(raised.status, 'raised');
        return raised.status === 'raised' ? raised.requestId : '';
      };
      const pending = async (over: Partial<InvokeRequest> = {}) => {
        const asked = await service.invoke(call(over));
        assert.equal(asked.status, 'pending');
        return asked.status === 'pending' ? asked.approvalId : '';
      };
      const types = async () => (await real.events.list({ mindId: mind.id, limit: 1000 })).map((e) => e.type);
      return { real, clock, service, mind, arm, raise, pending, types };
    }

    it('a revocation, a denied or withdrawn request, and a raised one', async () => {
      const { real, service, mind, arm, raise, types } = await setUp();
      const requestId = await raise();
      const granted = await service.grant(requestId, 'alice');
      const grantId = granted.status === 'granted' ? granted.grantId : '';

      arm();
      await assert.rejects(service.revokeGrant(grantId, 'alice'), /the events insert failed/);
      assert.equal((await real.grants.get(grantId))?.status, 'active');
      assert.equal((await types()).includes('grant_revoked'), false);
      assert.equal((await service.revokeGrant(grantId, 'alice')).status, 'revoked', 'a retry revokes it and tells of it');
      assert.equal((await types()).filter((t) => t === 'grant_revoked').length, 1);

      const toDeny = await raise();
      arm();
      await assert.rejects(service.denyRequest(toDeny, 'alice', 'no'), /the events insert failed/);
      assert.equal((await real.capabilityRequests.get(toDeny))?.status, 'open');
      assert.equal((await service.denyRequest(toDeny, 'alice', 'no')).status, 'denied');

      const toWithdraw = await raise();
      arm();
      await assert.rejects(service.withdrawRequest(toWithdraw, mind.id), /the events insert failed/);
      assert.equal((await real.capabilityRequests.get(toWithdraw))?.status, 'open');
      assert.equal((await service.withdrawRequest(toWithdraw, mind.id)).status, 'withdrawn');

      const before = await real.capabilityRequests.countOpen(mind.id);
      arm();
      await assert.rejects(raise(), /the events insert failed/);
      assert.equal(await real.capabilityRequests.countOpen(mind.id), before, 'no request stands that no event names');
      const told = await types();
      assert.equal(told.filter((t) => t === 'capability_requested').length, 3);
      assert.equal(told.filter((t) => t === 'capability_request_denied').length, 1);
      assert.equal(told.filter((t) => t === 'capability_request_withdrawn').length, 1);
    });

    it("an approval's denial, withdrawal, first of two approvals and expiry", async () => {
      const { real, clock, service, mind, arm, pending, types } = await setUp();
      const toDeny = await pending();
      arm();
      await assert.rejects(service.deny(toDeny, 'alice', 'no'), /the events insert failed/);
      assert.equal((await real.approvals.get(toDeny))?.status, 'pending');
      assert.equal((await service.deny(toDeny, 'alice', 'no')).status, 'denied');

      const toWithdraw = await pending();
      arm();
      await assert.rejects(service.withdraw(toWithdraw, mind.id), /the events insert failed/);
      assert.equal((await real.approvals.get(toWithdraw))?.status, 'pending');
      assert.equal((await service.withdraw(toWithdraw, mind.id)).status, 'withdrawn');

      await real.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: '*', decision: 'ask', approvers: 2 });
      const twoEyes = await pending();
      arm();
      await assert.rejects(service.approve(twoEyes, 'alice'), /the events insert failed/);
      assert.deepEqual((await real.approvals.get(twoEyes))?.decisions, [], 'the first approval is not recorded untold');
      assert.equal((await service.approve(twoEyes, 'alice')).status, 'awaiting_second_approver');

      clock.advance(3601);
      arm();
      await assert.rejects(service.expireApprovals(), /the events insert failed/);
      assert.equal((await real.approvals.get(twoEyes))?.status, 'pending');
      assert.equal(await service.expireApprovals(), 1);
      const told = await types();
      for (const type of ['approval_denied', 'approval_withdrawn', 'approval_approved', 'approval_expired']) {
        assert.equal(told.filter((t) => t === type).length, 1, type);
      }
    });
  });
}
