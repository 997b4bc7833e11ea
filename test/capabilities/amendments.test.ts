// Amending an action before approving it, at the capability service on both stores: the amended
// action is validated and decided by policy again, bound by a new keyed digest and recorded
// beside the original; the amending operator becomes an author and cannot approve it; a refused
// amendment changes nothing.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { approvalKeyFrom } from '../../src/capabilities/policy/action-digest.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { checkOnOldTarget } from '../../src/capabilities/amendments.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, testRegistry, type CallLog } from '../support/test-capabilities.ts';

describe('a check on the old target (pure)', () => {
  const targetOf = (_capability: string, params: unknown) => String((params as { name?: unknown }).name ?? '');
  const expectation = { statement: 'alpha is up', confidence: 0.8, within_seconds: 60, check: { capability: 'test.read', params: { name: 'alpha' }, field: 'value', comparison: 'exists' as const } };
  it('refuses a new target when the step expects to observe the old one, and allows the rest', () => {
    assert.match(checkOnOldTarget({ key: 'P1', expectation }, 'alpha', 'beta', targetOf) ?? '', /step P1 expects its outcome to be observed by test.read on alpha/);
    assert.equal(checkOnOldTarget({ key: 'P1', expectation }, 'alpha', 'alpha', targetOf), null, 'same target, other parameters');
    assert.equal(checkOnOldTarget({ key: 'P1', expectation: null }, 'alpha', 'beta', targetOf), null, 'nothing observes the outcome');
    assert.equal(checkOnOldTarget({ key: 'P1', expectation: { ...expectation, check: { ...expectation.check, params: { name: 'gamma' } } } }, 'alpha', 'beta', targetOf), null);
  });
});

for (const kind of STORE_KINDS) {
  describe(`amending an approval request (${kind})`, () => {
    const current = useStore(kind);

    async function setUp() {
      const { store } = current();
      const log: CallLog = { calls: [] };
      const service = new CapabilityService(store, testRegistry, testImplementations(log), { approvalKey: approvalKeyFrom(randomBytes(32)) });
      const mind = await store.minds.create({ name: `mind-${Math.random().toString(36).slice(2, 10)}` });
      const raise = async (params: Record<string, unknown>) => {
        const result = await service.invoke({ mindId: mind.id, capability: 'test.write', params, origin: 'operator:tester', authoredBy: 'tester' });
        assert.equal(result.status, 'pending');
        return result.status === 'pending' ? result.approvalId : '';
      };
      const amendedEvents = async () => (await store.events.list({ mindId: mind.id, limit: 500 })).filter((e) => e.type === 'approval_amended');
      return { store, log, service, mind, raise, amendedEvents };
    }

    it('records the amendment beside the original, re-signs it, and runs the amended action once another operator approves', async () => {
      const { store, log, service, raise, amendedEvents } = await setUp();
      const id = await raise({ name: 'alpha', level: 9 });
      const before = (await store.approvals.get(id))!;

      const answer = await service.amend(id, { params: { name: 'alpha', level: 2 }, target: 'alpha', reason: 'a gentler level' }, 'bob');
      assert.deepEqual(answer, { status: 'amended', approvalId: id, approversRequired: 1, amendedBy: 'bob' });
      const after = (await store.approvals.get(id))!;
      assert.equal(after.status, 'pending');
      assert.deepEqual(after.params, { name: 'alpha', level: 2 });
      assert.equal(after.target, 'alpha');
      assert.notEqual(after.digest, before.digest, 'a new digest');
      assert.match(after.digest, /^hmac-sha256:[0-9a-f]{12}:[0-9a-f]{64}$/);
      assert.equal(after.amendments.length, 1);
      const [amendment] = after.amendments;
      assert.equal(amendment!.operator, 'bob');
      assert.equal(amendment!.reason, 'a gentler level');
      assert.deepEqual(amendment!.from, { target: 'alpha', params: { name: 'alpha', level: 9 } }, 'the original stays readable');
      assert.deepEqual(amendment!.to, { target: 'alpha', params: { name: 'alpha', level: 2 } });
      const [event] = await amendedEvents();
      assert.equal(event?.data.operator, 'bob');
      assert.deepEqual(event?.data.from, amendment!.from);

      // The amender is an author now, as is the one who raised it: neither may approve.
      const byAmender = await service.approve(id, 'Bob ');
      assert.equal(byAmender.status === 'refused' && byAmender.code, 'self_approval');
      const byAuthor = await service.approve(id, 'tester');
      assert.equal(byAuthor.status === 'refused' && byAuthor.code, 'self_approval');
      assert.equal((await service.approve(id, 'carol')).status, 'approved');
      assert.equal((await service.performApproved(id))?.status, 'executed');
      assert.deepEqual(log.calls, [{ capability: 'test.write', params: { name: 'alpha', level: 2 } }], 'the amended action ran, once');
    });

    it('sets aside approvals of the earlier action and asks for the approvers policy gives the amended one', async () => {
      const { store, service, mind, raise } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: '*', decision: 'ask', approvers: 1 });
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: 'prod-*', decision: 'ask', approvers: 2 });
      const id = await raise({ name: 'alpha' });
      assert.equal((await service.approve(id, 'alice', 'looks fine')).status, 'approved');
      // A fresh one: alice approves half of a four-eyes request, then bob moves it to production.
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: '*', decision: 'ask', approvers: 2 });
      const second = await raise({ name: 'alpha' });
      assert.equal((await service.approve(second, 'alice')).status, 'awaiting_second_approver');
      const answer = await service.amend(second, { params: { name: 'prod-alpha' } }, 'bob');
      assert.equal(answer.status, 'amended');
      const amended = (await store.approvals.get(second))!;
      assert.equal(amended.target, 'prod-alpha');
      assert.equal(amended.approversRequired, 2);
      assert.deepEqual(amended.decisions, [], 'alice approved another action');
      assert.deepEqual(amended.amendments[0]!.approvals_cleared, ['alice']);
      assert.equal((await service.approve(second, 'alice')).status, 'awaiting_second_approver');
      assert.equal((await service.approve(second, 'carol')).status, 'approved');
    });

    it('refuses what a fresh request would be refused, typed, and changes nothing', async () => {
      const { store, service, mind, raise, amendedEvents } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: 'gamma', decision: 'deny', approvers: 1 });
      const id = await raise({ name: 'alpha', level: 9 });
      const before = await store.approvals.get(id);

      const cases: [Parameters<CapabilityService['amend']>[1], string, RegExp][] = [
        [{ params: { name: 'alpha', level: 99 } }, 'invalid_params', /level/],
        [{ params: { name: 'alpha', colour: 'red' } }, 'invalid_params', /"colour" is not a parameter of test.write/],
        [{ params: ['alpha'] }, 'invalid_params', /JSON object/],
        [{ params: { name: 'beta' }, target: 'alpha' }, 'target_mismatch', /parameters of test.write act on "beta"/],
        [{ params: { level: 9, name: 'alpha' } }, 'unchanged', /already awaiting approval/],
        [{ params: { name: 'gamma' } }, 'policy_denied', /policy refuses the amended action \(test.write on gamma\)/],
        [{ params: { name: 'alpha', level: 1 }, reason: 'bad\u0007bell' }, 'invalid_reason', /control character/],
      ];
      for (const [input, code, message] of cases) {
        const answer = await service.amend(id, input, 'bob');
        assert.equal(answer.status, 'refused', code);
        if (answer.status !== 'refused') continue;
        assert.equal(answer.code, code);
        assert.match(answer.message, message);
      }
      const invalid = await service.amend(id, { params: { name: 'alpha', level: 99 } }, 'bob');
      assert.deepEqual(invalid.status === 'refused' ? invalid.issues?.map((i) => i.path) : [], ['params.level']);
      assert.equal((await service.amend(id, { params: { name: 'alpha', level: 1 } }, ' ')).status, 'refused', 'a nameless operator');
      assert.deepEqual(await store.approvals.get(id), before, 'nothing changed');
      assert.deepEqual(await amendedEvents(), []);

      // A decided request cannot be amended.
      assert.equal((await service.deny(id, 'carol', 'no')).status, 'denied');
      const late = await service.amend(id, { params: { name: 'alpha', level: 1 } }, 'bob');
      assert.equal(late.status === 'refused' && late.code, 'not_pending');
    });

    it('an approval of the action as it was before an amendment does not approve the amended one', async () => {
      const { store, service, raise } = await setUp();
      const id = await raise({ name: 'alpha', level: 9 });
      const seen = (await store.approvals.get(id))!;
      assert.equal((await service.amend(id, { params: { name: 'alpha', level: 2 } }, 'bob')).status, 'amended');
      // The approver's surface names the digest it showed: the amended request is refused, unchanged.
      const stale = await service.approve(id, 'carol', undefined, seen.digest);
      assert.equal(stale.status === 'refused' && stale.code, 'changed');
      assert.deepEqual((await store.approvals.get(id))?.decisions, []);
      // A decision read before the amendment and written after it loses: both writes are guarded by the digest read.
      assert.equal(
        await store.approvals.transition(id, 'pending', 'approved', { decisions: [{ operator: 'carol', decision: 'approve', at: new Date().toISOString() }] }, { digest: seen.digest }),
        undefined,
      );
      assert.equal(await store.approvals.recordDecision(id, [], [{ operator: 'carol', decision: 'approve', at: new Date().toISOString() }], { digest: seen.digest }), undefined);
      assert.equal((await store.approvals.get(id))?.status, 'pending');
      const current = (await store.approvals.get(id))!;
      assert.equal((await service.approve(id, 'carol', undefined, current.digest)).status, 'approved');
    });

    it('covers the amendment with the digest: an amendment rewritten in the database is caught as tampering', async () => {
      const { store, service, raise } = await setUp();
      const id = await raise({ name: 'alpha', level: 9 });
      assert.equal((await service.amend(id, { params: { name: 'alpha', level: 2 } }, 'bob')).status, 'amended');
      // Someone with the database but not the secret hides who amended it, to approve it themselves.
      const forged = JSON.stringify((await store.approvals.get(id))!.amendments.map((a) => ({ ...a, operator: 'nobody' })));
      await sql`update approval_requests set amendments = ${kind === 'postgres' ? sql`cast(${forged} as jsonb)` : forged} where id = ${id}`.execute(store.db);
      const answer = await service.approve(id, 'bob');
      assert.equal(answer.status === 'refused' && answer.code, 'tampered');
      assert.equal((await store.approvals.get(id))?.status, 'failed');
    });
  });
}
