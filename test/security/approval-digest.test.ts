// Tamper evidence (issue 15): approval digests keyed with the daemon secret. Someone who can write
// the database but not read the secret file alters a stored request (its parameters, its author,
// how many approvers it needs) and recomputes the old unkeyed digest, as they could before: the
// request is refused at approval and again right before it runs, and an approval_tampered event
// says so. A request signed with another secret is refused without being closed; an unkeyed one
// from before the upgrade is refused and closed. Also naming the author of an authorless request.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { actionDigest, approvalKeyFrom, type ApprovalKey } from '../../src/capabilities/policy/action-digest.ts';
import type { JsonObject } from '../../src/core/plan.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, testRegistry } from '../support/test-capabilities.ts';
import { draftOf, makeWorld, step } from '../execution/support.ts';

const keyA = approvalKeyFrom(randomBytes(32));
const keyB = approvalKeyFrom(randomBytes(32));

function serviceWith(store: Store, key: ApprovalKey | null, calls = { calls: [] as { capability: string; params: JsonObject }[] }) {
  return { service: new CapabilityService(store, testRegistry, testImplementations(calls), { approvalKey: key }), calls };
}

async function raise(store: Store, service: CapabilityService, name: string, authoredBy = 'alice'): Promise<{ mindId: string; approvalId: string }> {
  const mind = await store.minds.create({ name: `m-${randomBytes(4).toString('hex')}` });
  await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: '*', decision: 'ask', approvers: 1 });
  const result = await service.invoke({ mindId: mind.id, capability: 'test.write', params: { name }, origin: 'operator:test', ...(authoredBy ? { authoredBy } : {}) });
  assert.equal(result.status, 'pending');
  return { mindId: mind.id, approvalId: result.status === 'pending' ? result.approvalId : '' };
}

/** What a database writer can do without the secret: change a column, and recompute the unkeyed digest of the action. */
async function alter(store: Store, approvalId: string, set: Record<string, unknown>): Promise<void> {
  let update = store.db.updateTable('approval_requests').where('id', '=', approvalId);
  for (const [column, value] of Object.entries(set)) update = update.set(column as never, value as never);
  await update.execute();
}

async function tamperEvents(store: Store, mindId: string) {
  return (await store.events.list({ mindId, limit: 500 })).filter((e) => e.type === 'approval_tampered');
}

for (const kind of STORE_KINDS) {
  describe(`keyed approval digests (${kind})`, () => {
    const current = useStore(kind);

    it('a request is signed with the key; approved and performed as signed, it runs', async () => {
      const { store } = current();
      const { service, calls } = serviceWith(store, keyA);
      const { approvalId } = await raise(store, service, 'svc-a');
      const stored = (await store.approvals.get(approvalId))!;
      assert.match(stored.digest, new RegExp(`^hmac-sha256:${keyA.id}:[0-9a-f]{64}$`));
      assert.equal((await service.approve(approvalId, 'bob')).status, 'approved');
      const performed = await service.performApproved(approvalId);
      assert.equal(performed?.status, 'executed');
      assert.deepEqual(calls.calls, [{ capability: 'test.write', params: { name: 'svc-a' } }]);
    });

    it('parameters altered, keeping the digest or recomputing the unkeyed one: refused at approval, closed, approval_tampered raised', async () => {
      const { store } = current();
      const { service, calls } = serviceWith(store, keyA);
      const forged = { capability: 'test.write', target: 'prod-db', params: { name: 'prod-db' } };
      const forgedParams = store.kind === 'postgres' ? sql`${JSON.stringify(forged.params)}::jsonb` : JSON.stringify(forged.params);
      for (const [digest, code] of [
        [null, 'tampered'],
        [actionDigest(forged), 'unkeyed_digest'],
      ] as const) {
        const { mindId, approvalId } = await raise(store, service, 'svc-b');
        await alter(store, approvalId, { params: forgedParams, target: forged.target, ...(digest ? { digest } : {}) });
        const answer = await service.approve(approvalId, 'bob');
        assert.equal(answer.status, 'refused');
        assert.equal(answer.status === 'refused' && answer.code, code);
        assert.equal((await store.approvals.get(approvalId))?.status, 'failed');
        const events = await tamperEvents(store, mindId);
        assert.equal(events.length, 1);
        assert.deepEqual([events[0]!.data.code, events[0]!.data.operator, events[0]!.data.approval_id], [code, 'bob', approvalId]);
      }
      assert.deepEqual(calls.calls, []);
    });

    it('the author or the approvers required altered (four eyes undone in the database): refused as tampered', async () => {
      const { store } = current();
      const { service } = serviceWith(store, keyA);
      const byAuthor = await raise(store, service, 'svc-c', 'alice');
      await alter(store, byAuthor.approvalId, { authored_by: 'someone-else' });
      const self = await service.approve(byAuthor.approvalId, 'alice');
      assert.equal(self.status === 'refused' && self.code, 'tampered');

      const two = await raise(store, service, 'svc-d', 'alice');
      await alter(store, two.approvalId, { approvers_required: 2 });
      const refusedTwo = await service.approve(two.approvalId, 'bob');
      assert.equal(refusedTwo.status === 'refused' && refusedTwo.code, 'tampered');
    });

    it('altered after approval, before it runs: the executor is refused, the request fails, the event is written', async () => {
      const { store } = current();
      const { service, calls } = serviceWith(store, keyA);
      const { mindId, approvalId } = await raise(store, service, 'svc-e');
      assert.equal((await service.approve(approvalId, 'bob')).status, 'approved');
      await alter(store, approvalId, { target: 'svc-x', params: store.kind === 'postgres' ? sql`'{"name":"svc-x"}'::jsonb` : '{"name":"svc-x"}' });
      const performed = await service.performApproved(approvalId);
      assert.equal(performed?.status, 'denied');
      assert.equal(performed?.status === 'denied' && performed.code, 'tampered');
      assert.equal((await store.approvals.get(approvalId))?.status, 'failed');
      assert.equal((await tamperEvents(store, mindId)).length, 1);
      assert.deepEqual(calls.calls, []);
    });

    it('signed with another secret: refused naming both key ids, left pending for a daemon holding the right one', async () => {
      const { store } = current();
      const { service: signer } = serviceWith(store, keyA);
      const { service: stranger } = serviceWith(store, keyB);
      const { mindId, approvalId } = await raise(store, signer, 'svc-f');
      assert.deepEqual(await stranger.unverifiableApprovals().then((u) => u.keyIds.includes(keyA.id) && u.otherKey > 0), true);
      const answer = await stranger.approve(approvalId, 'bob');
      assert.equal(answer.status, 'refused');
      if (answer.status !== 'refused') return;
      assert.equal(answer.code, 'digest_key_mismatch');
      assert.ok(answer.message.includes(keyA.id) && answer.message.includes(keyB.id), answer.message);
      assert.equal((await store.approvals.get(approvalId))?.status, 'pending');
      assert.equal((await tamperEvents(store, mindId))[0]?.data.code, 'digest_key_mismatch');
      assert.equal((await signer.approve(approvalId, 'bob')).status, 'approved');
    });

    it('an unkeyed request from before digests were keyed is refused by a keyed service and closed', async () => {
      const { store } = current();
      const { service: old } = serviceWith(store, null);
      const { service } = serviceWith(store, keyA);
      const { approvalId } = await raise(store, old, 'svc-g');
      assert.match((await store.approvals.get(approvalId))!.digest, /^sha256:[0-9a-f]{64}$/);
      assert.equal((await service.unverifiableApprovals()).unkeyed >= 1, true);
      const answer = await service.approve(approvalId, 'bob');
      assert.equal(answer.status === 'refused' && answer.code, 'unkeyed_digest');
      assert.equal((await store.approvals.get(approvalId))?.status, 'failed');
    });

    it('naming the author of an authorless request: recorded, re-signed, and neither the author nor the namer may approve', async () => {
      const { store } = current();
      const { service } = serviceWith(store, keyA);
      const { mindId, approvalId } = await raise(store, service, 'svc-h', '');
      const before = await service.approve(approvalId, 'carol');
      assert.equal(before.status === 'refused' && before.code, 'no_author');

      const named = await service.nameAuthor(approvalId, ' Alice ', 'nina', 'alice ran it from her laptop');
      assert.deepEqual(named, { status: 'author_named', approvalId, author: 'Alice' });
      const stored = (await store.approvals.get(approvalId))!;
      assert.equal(stored.authoredBy, 'Alice');
      assert.equal(stored.authorNamedBy, 'nina');
      const event = (await store.events.list({ mindId, limit: 500 })).find((e) => e.type === 'approval_author_named');
      assert.deepEqual([event?.data.operator, event?.data.author, event?.data.note], ['nina', 'Alice', 'alice ran it from her laptop']);

      const again = await service.nameAuthor(approvalId, 'mallory', 'mallory');
      assert.equal(again.status === 'refused' && again.code, 'author_recorded');
      for (const who of ['NINA', 'alice']) {
        const refused = await service.approve(approvalId, who);
        assert.equal(refused.status === 'refused' && refused.code, 'self_approval', who);
      }
      assert.equal((await service.approve(approvalId, 'carol')).status, 'approved');
    });

    it('naming yourself the author leaves the approving to someone else; a forged author_named_by is tampering', async () => {
      const { store } = current();
      const { service } = serviceWith(store, keyA);
      const mine = await raise(store, service, 'svc-i', '');
      assert.equal((await service.nameAuthor(mine.approvalId, 'nina', 'nina')).status, 'author_named');
      const self = await service.approve(mine.approvalId, 'nina');
      assert.equal(self.status === 'refused' && self.code, 'self_approval');
      assert.equal((await service.approve(mine.approvalId, 'carol')).status, 'approved');

      const other = await raise(store, service, 'svc-j', '');
      assert.equal((await service.nameAuthor(other.approvalId, 'alice', 'nina')).status, 'author_named');
      // Clearing who named it, so nina could approve: the digest covers it.
      await alter(store, other.approvalId, { author_named_by: '' });
      const forged = await service.approve(other.approvalId, 'nina');
      assert.equal(forged.status === 'refused' && forged.code, 'tampered');
    });

    it("a plan step's approved action altered before it runs: the executor's check refuses it, the step fails, nothing runs", async () => {
      const ts = current();
      const w = await makeWorld(ts);
      const keyed = new CapabilityService(ts.store, w.registry, testImplementations(w.log), { approvalKey: keyA });
      const executor = w.executor({ capabilities: keyed });
      const { plan } = await w.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'beta' } })]));
      await executor.drain();
      const waiting = (await ts.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_approval');
      assert.match((await ts.store.approvals.get(waiting.approvalId!))!.digest, /^hmac-sha256:/);
      assert.equal((await keyed.approve(waiting.approvalId!, 'alice')).status, 'approved');
      await alter(ts.store, waiting.approvalId!, { target: 'gamma', params: ts.kind === 'postgres' ? sql`'{"name":"gamma"}'::jsonb` : '{"name":"gamma"}' });
      await executor.drain();
      const failed = (await ts.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /tampered/);
      assert.equal((await ts.store.approvals.get(waiting.approvalId!))?.status, 'failed');
      assert.equal((await tamperEvents(ts.store, w.mind.id)).length, 1);
      // (The executor also performs what earlier tests here left approved: only this plan's action matters.)
      assert.deepEqual(
        w.log.calls.filter((c) => c.params.name === 'beta' || c.params.name === 'gamma'),
        [],
        'nothing ran',
      );
      assert.deepEqual(w.errors, []);
    });

    it('naming refuses bad names and requests that are not pending; nothing changes', async () => {
      const { store } = current();
      const { service } = serviceWith(store, keyA);
      const { approvalId } = await raise(store, service, 'svc-k', '');
      const blank = await service.nameAuthor(approvalId, '  ', 'nina');
      assert.equal(blank.status === 'refused' && blank.code, 'invalid_author');
      const control = await service.nameAuthor(approvalId, 'al\u0007ice', 'nina');
      assert.equal(control.status === 'refused' && control.code, 'invalid_author');
      assert.equal((await store.approvals.get(approvalId))?.authoredBy, '');
      await service.deny(approvalId, 'carol');
      const closed = await service.nameAuthor(approvalId, 'alice', 'nina');
      assert.equal(closed.status === 'refused' && closed.code, 'not_pending');
    });
  });
}
