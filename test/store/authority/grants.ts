import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addSeconds } from '../../../src/core/clock.ts';
import { newId } from '../../../src/core/ids.ts';
import type { TestStore } from '../../support/stores.ts';
import { logAccessGrant, logAccessRequest, seedMind, stepOrigin } from './fixtures.ts';

export function capabilityRequestTests(current: () => TestStore): void {
  describe('capability requests', () => {
    it('stores a request with its reasons and reads it back whole', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const intention = await store.intentions.create({ mindId, objective: 'nginx serves pages', origin: 'cli' });
      const input = logAccessRequest(mindId, { intentionId: intention.id, batchKey: 'triage' });
      const request = await store.capabilityRequests.createWithinCap(input, 3);
      assert.ok(request);
      assert.deepEqual(request, {
        ...input,
        id: request.id,
        status: 'open',
        decidedBy: '',
        decidedAt: null,
        grantId: null,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      assert.deepEqual(await store.capabilityRequests.get(request.id), request);
      assert.deepEqual(await store.capabilityRequests.listByOrigin(input.origin), [request]);
      assert.deepEqual(await store.capabilityRequests.listByOrigin(''), []);
      assert.equal(await store.capabilityRequests.get(newId()), undefined);
    });

    it('refuses a request beyond the cap of open ones, and counts only open ones', async () => {
      const { store } = current();
      const mindId = await seedMind(store);
      const other = await seedMind(store);
      const first = await store.capabilityRequests.createWithinCap(logAccessRequest(mindId), 2);
      const second = await store.capabilityRequests.createWithinCap(logAccessRequest(mindId), 2);
      assert.ok(first && second);
      assert.equal(await store.capabilityRequests.createWithinCap(logAccessRequest(mindId), 2), undefined);
      assert.equal(await store.capabilityRequests.countOpen(mindId), 2);
      assert.ok(await store.capabilityRequests.createWithinCap(logAccessRequest(other), 2), 'the cap is per mind');

      await store.capabilityRequests.transition(first.id, 'open', 'withdrawn');
      assert.equal(await store.capabilityRequests.countOpen(mindId), 1);
      assert.ok(await store.capabilityRequests.createWithinCap(logAccessRequest(mindId), 2), 'a withdrawn one frees a place');
      assert.equal(await store.capabilityRequests.countOpen(mindId), 2);
      assert.equal(await store.capabilityRequests.countOpen(newId()), 0);
    });

    it("joins the caller's transaction, so a rollback takes the request with it", async () => {
      const { store } = current();
      const mindId = await seedMind(store);
      await assert.rejects(
        store.transaction(async (tx) => {
          const inside = await tx.capabilityRequests.createWithinCap(logAccessRequest(mindId), 1);
          assert.ok(inside);
          assert.equal(await tx.capabilityRequests.createWithinCap(logAccessRequest(mindId), 1), undefined);
          throw new Error('the operator went away');
        }),
        /the operator went away/,
      );
      assert.equal(await store.capabilityRequests.countOpen(mindId), 0);
    });

    it('grants a request once: a later grant, denial or withdrawal loses and changes nothing', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const request = (await store.capabilityRequests.createWithinCap(logAccessRequest(mindId), 5))!;
      clock.advance(30);
      const grant = await store.grants.create(logAccessGrant(mindId, clock, { requestId: request.id }));
      const granted = await store.capabilityRequests.transition(request.id, 'open', 'granted', {
        decidedBy: 'alice',
        grantId: grant.id,
      });
      assert.deepEqual(granted, {
        ...request,
        status: 'granted',
        decidedBy: 'alice',
        decidedAt: clock.now(),
        grantId: grant.id,
        updatedAt: clock.now(),
      });
      clock.advance(1);
      assert.equal(await store.capabilityRequests.transition(request.id, 'open', 'denied', { decidedBy: 'bob' }), undefined);
      assert.equal(await store.capabilityRequests.transition(request.id, ['open'], 'withdrawn'), undefined);
      assert.deepEqual(await store.capabilityRequests.get(request.id), granted, 'the losers changed nothing');
      assert.equal(await store.capabilityRequests.transition(newId(), 'open', 'granted'), undefined);
    });

    it('lists by mind, status and batch, oldest first', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const batchKey = `batch-${newId()}`;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await store.capabilityRequests.createWithinCap(logAccessRequest(mindId, { batchKey }), 10))!.id);
        clock.advance(1);
      }
      const origin = stepOrigin();
      const loose = (await store.capabilityRequests.createWithinCap(logAccessRequest(mindId, { origin }), 10))!;
      await store.capabilityRequests.transition(ids[0]!, 'open', 'denied', { decidedBy: 'alice' });
      const idsOf = (list: { id: string }[]) => list.map((r) => r.id);
      assert.deepEqual(idsOf(await store.capabilityRequests.list({ mindId })), [...ids, loose.id]);
      assert.deepEqual(idsOf(await store.capabilityRequests.list({ batchKey, status: 'open' })), ids.slice(1));
      assert.deepEqual(idsOf(await store.capabilityRequests.list({ mindId, status: ['denied', 'expired'] })), [ids[0]]);
      assert.deepEqual(idsOf(await store.capabilityRequests.list({ mindId, limit: 1 })), [ids[0]]);
      assert.deepEqual(idsOf(await store.capabilityRequests.listByOrigin(origin)), [loose.id]);
    });
  });
}

export function grantTests(current: () => TestStore): void {
  describe('grants', () => {
    it('creates an active grant and reads it back whole', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const input = logAccessGrant(mindId, clock);
      const grant = await store.grants.create(input);
      assert.deepEqual(grant, {
        id: grant.id,
        mindId,
        requestId: null,
        capability: 'file.read',
        targetPattern: '/var/log/nginx/*.log',
        paramLimits: { max_bytes: 65536 },
        expiresAt: addSeconds(clock.now(), 900),
        operationsLeft: 3,
        status: 'active',
        grantedBy: 'alice',
        revokedBy: '',
        revokedAt: null,
        createdAt: clock.now(),
      });
      assert.deepEqual(await store.grants.get(grant.id), grant);
      assert.equal(await store.grants.get(newId()), undefined);
      await assert.rejects(store.grants.create({ ...input, operations: 0 }), /at least one operation/);
    });

    it('spends operations one at a time until the grant is exhausted, then refuses', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const grant = await store.grants.create(logAccessGrant(mindId, clock, { operations: 3 }));
      const left: [number | undefined, string | undefined][] = [];
      for (let i = 0; i < 3; i++) {
        const used = await store.grants.consume(grant.id, clock.now());
        left.push([used?.operationsLeft, used?.status]);
      }
      assert.deepEqual(left, [
        [2, 'active'],
        [1, 'active'],
        [0, 'exhausted'],
      ]);
      const exhausted = await store.grants.get(grant.id);
      assert.equal(await store.grants.consume(grant.id, clock.now()), undefined);
      assert.deepEqual(await store.grants.get(grant.id), exhausted, 'a refused use changes nothing');
      assert.equal(await store.grants.revoke(grant.id, 'bob'), undefined, 'an exhausted grant is not active');
      assert.equal(await store.grants.consume(newId(), clock.now()), undefined);
    });

    it('refuses a use at or after expiry, and after revocation', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const expiring = await store.grants.create(logAccessGrant(mindId, clock, { expiresAt: addSeconds(clock.now(), 60) }));
      assert.equal((await store.grants.consume(expiring.id, addSeconds(clock.now(), 59)))?.operationsLeft, 2);
      assert.equal(await store.grants.consume(expiring.id, addSeconds(clock.now(), 60)), undefined, 'expiry is inclusive');
      assert.equal((await store.grants.get(expiring.id))?.operationsLeft, 2);

      const revocable = await store.grants.create(logAccessGrant(mindId, clock));
      clock.advance(10);
      const revoked = await store.grants.revoke(revocable.id, 'bob');
      assert.deepEqual(revoked, { ...revocable, status: 'revoked', revokedBy: 'bob', revokedAt: clock.now() });
      assert.equal(await store.grants.consume(revocable.id, clock.now()), undefined);
      clock.advance(10);
      assert.equal(await store.grants.revoke(revocable.id, 'carol'), undefined, 'revoked once');
      assert.deepEqual(await store.grants.get(revocable.id), revoked, 'and nothing changed');
    });

    it('lists the grants a mind could use now', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const now = clock.now();
      const live = await store.grants.create(logAccessGrant(mindId, clock));
      clock.advance(1);
      const soonGone = await store.grants.create(logAccessGrant(mindId, clock, { expiresAt: addSeconds(now, 30) }));
      const spent = await store.grants.create(logAccessGrant(mindId, clock, { operations: 1 }));
      await store.grants.consume(spent.id, now);
      const revoked = await store.grants.create(logAccessGrant(mindId, clock));
      await store.grants.revoke(revoked.id, 'bob');
      await store.grants.create(logAccessGrant(await seedMind(store), clock));

      const ids = async (at: Date) => (await store.grants.listLive(mindId, at)).map((g) => g.id);
      assert.deepEqual(await ids(now), [live.id, soonGone.id]);
      assert.deepEqual(await ids(addSeconds(now, 30)), [live.id]);
      assert.deepEqual(
        (await store.grants.list({ mindId, status: ['exhausted', 'revoked'] })).map((g) => g.id),
        [spent.id, revoked.id],
      );
      assert.deepEqual(
        (await store.grants.list({ mindId })).map((g) => g.id),
        [live.id, soonGone.id, spent.id, revoked.id],
      );
      assert.deepEqual(
        (await store.grants.list({ mindId, limit: 1 })).map((g) => g.id),
        [live.id],
      );
    });

    it('expires active grants whose time has come, once', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const now = clock.now();
      const short = await store.grants.create(logAccessGrant(mindId, clock, { expiresAt: addSeconds(now, 60) }));
      clock.advance(1);
      const revoked = await store.grants.create(logAccessGrant(mindId, clock, { expiresAt: addSeconds(now, 60) }));
      await store.grants.revoke(revoked.id, 'bob');
      const long = await store.grants.create(logAccessGrant(mindId, clock, { expiresAt: addSeconds(now, 3600) }));

      const ours = <T extends { mindId: string }>(list: T[]) => list.filter((g) => g.mindId === mindId);
      assert.deepEqual(ours(await store.grants.expireDue(addSeconds(now, 59))), []);
      assert.deepEqual(ours(await store.grants.expireDue(addSeconds(now, 60))), [{ ...short, status: 'expired' }]);
      assert.deepEqual(ours(await store.grants.expireDue(addSeconds(now, 60))), [], 'nothing expires twice');
      assert.equal((await store.grants.get(revoked.id))?.status, 'revoked');
      assert.equal((await store.grants.get(long.id))?.status, 'active');
    });
  });
}
