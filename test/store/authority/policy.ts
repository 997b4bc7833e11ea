import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../../src/core/ids.ts';
import type { TestStore } from '../../support/stores.ts';
import { seedMind } from './fixtures.ts';

export function policyRuleTests(current: () => TestStore): void {
  describe('policy rules', () => {
    it('sets rules and lists them by capability, then target pattern', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const other = await seedMind(store);
      const restartAll = await store.policyRules.set({
        mindId,
        capability: 'service.restart',
        targetPattern: '*',
        decision: 'ask',
        approvers: 2,
      });
      assert.deepEqual(restartAll, {
        id: restartAll.id,
        mindId,
        capability: 'service.restart',
        targetPattern: '*',
        decision: 'ask',
        approvers: 2,
        createdAt: clock.now(),
      });
      await store.policyRules.set({ mindId, capability: 'service.restart', targetPattern: 'nginx.service', decision: 'allow', approvers: 1 });
      await store.policyRules.set({ mindId, capability: 'file.read', targetPattern: '/var/log/*', decision: 'allow', approvers: 1 });
      await store.policyRules.set({ mindId: other, capability: 'file.read', targetPattern: '*', decision: 'deny', approvers: 1 });
      assert.deepEqual(
        (await store.policyRules.listByMind(mindId)).map((r) => `${r.capability} ${r.targetPattern} ${r.decision}`),
        ['file.read /var/log/* allow', 'service.restart * ask', 'service.restart nginx.service allow'],
      );
      assert.deepEqual(await store.policyRules.listByMind(newId()), []);
    });

    it('replaces the rule for the same mind, capability and pattern instead of adding one', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const first = await store.policyRules.set({ mindId, capability: 'service.stop', targetPattern: '*', decision: 'ask', approvers: 2 });
      clock.advance(30);
      const second = await store.policyRules.set({ mindId, capability: 'service.stop', targetPattern: '*', decision: 'deny', approvers: 1 });
      assert.deepEqual(second, { ...first, decision: 'deny', approvers: 1 }, 'same id and creation time, new decision');
      assert.deepEqual(await store.policyRules.listByMind(mindId), [second]);
    });

    it('removes a rule once', async () => {
      const { store } = current();
      const mindId = await seedMind(store);
      await store.policyRules.set({ mindId, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 1 });
      await store.policyRules.set({ mindId, capability: 'service.restart', targetPattern: 'ssh.service', decision: 'deny', approvers: 1 });
      assert.equal(await store.policyRules.remove(mindId, 'service.restart', '*'), true);
      assert.equal(await store.policyRules.remove(mindId, 'service.restart', '*'), false);
      assert.deepEqual(
        (await store.policyRules.listByMind(mindId)).map((r) => r.targetPattern),
        ['ssh.service'],
      );
    });

    it('refuses more than two approvers', async () => {
      const { store } = current();
      const mindId = await seedMind(store);
      await assert.rejects(store.policyRules.set({ mindId, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 3 }), /policy_rules_approvers_check/);
      assert.deepEqual(await store.policyRules.listByMind(mindId), []);
    });
  });
}

export function commitmentTests(current: () => TestStore): void {
  describe('commitments', () => {
    it('creates, lists and releases a commitment once', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const commitment = await store.commitments.create({
        mindId,
        capability: 'service.restart',
        targetPattern: 'postgresql*.service',
        reason: 'the database is being migrated — ask first',
      });
      assert.deepEqual(commitment, {
        id: commitment.id,
        mindId,
        kind: 'require_approval',
        capability: 'service.restart',
        targetPattern: 'postgresql*.service',
        reason: 'the database is being migrated — ask first',
        status: 'active',
        createdAt: clock.now(),
        releasedAt: null,
      });
      clock.advance(1);
      const later = await store.commitments.create({ mindId, capability: 'file.write', targetPattern: '/etc/*', reason: 'change freeze' });
      assert.deepEqual(await store.commitments.listActive(mindId), [commitment, later]);

      clock.advance(60);
      const released = await store.commitments.release(commitment.id);
      assert.deepEqual(released, { ...commitment, status: 'released', releasedAt: clock.now() });
      clock.advance(60);
      assert.equal(await store.commitments.release(commitment.id), undefined, 'a second release loses');
      assert.deepEqual(await store.commitments.get(commitment.id), released, 'and changes nothing');
      assert.equal(await store.commitments.release(newId()), undefined);
      assert.deepEqual(await store.commitments.listActive(mindId), [later]);
    });
  });
}
