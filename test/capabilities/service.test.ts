import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { listGrants } from '../../src/operations/decisions.ts';
import type { InvokeRequest } from '../../src/capabilities/invocation.ts';
import type { Store } from '../../src/store/index.ts';
import { openStore } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, testRegistry, type CallLog } from '../support/test-capabilities.ts';

for (const kind of STORE_KINDS) {
  describe(`capability service (${kind})`, () => {
    const current = useStore(kind);

    async function setUp(options: { mind?: string } = {}) {
      const { store, clock } = current();
      const log: CallLog = { calls: [] };
      const service = new CapabilityService(store, testRegistry, testImplementations(log));
      const mind = await store.minds.create({ name: options.mind ?? `mind-${Math.random().toString(36).slice(2, 10)}` });
      const request = (capability: string, params: unknown, over: Partial<InvokeRequest> = {}): InvokeRequest => ({
        mindId: mind.id,
        capability,
        params,
        origin: `plan_step:${crypto.randomUUID()}`,
        correlationId: crypto.randomUUID(),
        explanation: { what: `${capability}`, why: 'the test needs it', expected_outcome: 'done', side_effects: 'none', alternatives: ['do nothing'] },
        // Four eyes: an action with no recorded author cannot be approved.
        authoredBy: 'tester',
        ...over,
      });
      return { store, clock, log, service, mind, request };
    }

    async function eventTypes(store: Store, mindId: string) {
      return (await store.events.list({ mindId, limit: 1000 })).map((e) => e.type);
    }

    it('executes an allowed call, recording the execution by its origin', async () => {
      const { store, service, mind, log, request } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: '*', decision: 'allow', approvers: 1 });
      const call = request('test.write', { name: 'alpha' });
      const result = await service.invoke(call);
      assert.equal(result.status, 'executed');
      assert.deepEqual(log.calls, [{ capability: 'test.write', params: { name: 'alpha' } }]);
      const [execution] = await store.executions.listByOrigin(call.origin);
      assert.equal(execution?.status, 'succeeded');
      assert.equal(execution?.target, 'alpha');
      assert.equal(execution?.correlationId, call.correlationId);
      assert.deepEqual(await eventTypes(store, mind.id), ['policy_decision', 'tool_authorised', 'tool_executed']);
    });

    it('asks, then executes exactly the approved action', async () => {
      const { store, service, mind, log, request } = await setUp();
      const call = request('test.write', { name: 'beta', level: 3 });
      const pending = await service.invoke(call);
      assert.equal(pending.status, 'pending');
      assert.equal(log.calls.length, 0, 'nothing runs before approval');
      const approvalId = pending.status === 'pending' ? pending.approvalId : '';
      const [stored] = await store.approvals.listByOrigin(call.origin);
      assert.equal(stored?.id, approvalId);
      assert.equal(stored?.explanation.why, 'the test needs it');
      assert.match(stored?.digest ?? '', /^sha256:[0-9a-f]{64}$/);

      const answer = await service.approve(approvalId, 'alice');
      assert.equal(answer.status, 'approved');
      assert.equal(log.calls.length, 0, 'approving only records the decision');
      assert.equal((await service.performApproved(approvalId))?.status, 'executed');
      assert.equal(await service.performApproved(approvalId), undefined, 'performed once');
      assert.deepEqual(log.calls, [{ capability: 'test.write', params: { name: 'beta', level: 3 } }]);
      const done = await store.approvals.get(approvalId);
      assert.equal(done?.status, 'executed');
      assert.deepEqual(
        done?.decisions.map((d) => [d.operator, d.decision]),
        [['alice', 'approve']],
      );
      const [execution] = await store.executions.listByOrigin(call.origin).then((rows) => rows.filter((r) => r.status === 'succeeded'));
      assert.equal(execution?.approvalId, approvalId);
      assert.equal(done?.executionId, execution?.id);
      assert.deepEqual(await eventTypes(store, mind.id), ['policy_decision', 'tool_requested', 'approval_requested', 'approval_approved', 'tool_authorised', 'tool_executed']);
      // Approving twice runs nothing twice.
      assert.equal((await service.approve(approvalId, 'bob')).status, 'refused');
      assert.equal(log.calls.length, 1);
    });

    it('asks, then a denial runs nothing and cannot be approved afterwards', async () => {
      const { store, service, log, request } = await setUp();
      const pending = await service.invoke(request('test.write', { name: 'gamma' }));
      const id = pending.status === 'pending' ? pending.approvalId : '';
      assert.deepEqual(await service.deny(id, 'alice', 'not during business hours'), { status: 'denied', approvalId: id });
      const approve = await service.approve(id, 'bob');
      assert.equal(approve.status === 'refused' && approve.code, 'not_pending');
      assert.equal(log.calls.length, 0);
      const stored = await store.approvals.get(id);
      assert.equal(stored?.status, 'denied');
      assert.equal(stored?.decisions[0]?.note, 'not during business hours');
    });

    it('expires requests after the configured time', async () => {
      const { store, clock, service, log, request } = await setUp();
      const first = await service.invoke(request('test.write', { name: 'delta' }));
      const second = await service.invoke(request('test.write', { name: 'epsilon' }));
      clock.advance(3600);
      const late = await service.approve(first.status === 'pending' ? first.approvalId : '', 'alice');
      assert.equal(late.status === 'refused' && late.code, 'expired');
      assert.equal((await store.approvals.get(first.status === 'pending' ? first.approvalId : ''))?.status, 'expired');
      assert.equal(await service.expireApprovals(), 1, 'the sweep expires the other one');
      assert.equal((await store.approvals.get(second.status === 'pending' ? second.approvalId : ''))?.status, 'expired');
      assert.equal(log.calls.length, 0);
    });

    it('lets only the raising mind withdraw its pending request', async () => {
      const { store, service, request } = await setUp();
      const other = await store.minds.create({ name: `other-${Math.random().toString(36).slice(2, 8)}` });
      const pending = await service.invoke(request('test.write', { name: 'zeta' }));
      const id = pending.status === 'pending' ? pending.approvalId : '';
      const foreign = await service.withdraw(id, other.id);
      assert.equal(foreign.status === 'refused' && foreign.code, 'not_owner');
      assert.equal((await service.withdraw(id, pending.status === 'pending' ? (await store.approvals.get(id))!.mindId : '')).status, 'withdrawn');
      const again = await service.approve(id, 'alice');
      assert.equal(again.status === 'refused' && again.code, 'not_pending');
    });

    it("refuses the mind a withdrawal of an operator's own call, which stays pending for another operator", async () => {
      const { store, service, mind, request } = await setUp();
      const pending = await service.invoke(request('test.write', { name: 'theta' }, { authoredBy: 'alice', origin: 'operator:alice' }));
      const id = pending.status === 'pending' ? pending.approvalId : '';
      const answer = await service.withdraw(id, mind.id);
      assert.equal(answer.status === 'refused' && answer.code, 'not_owner');
      assert.match(answer.status === 'refused' ? answer.message : '', /operator alice raised this request/);
      assert.equal((await store.approvals.get(id))?.status, 'pending');
    });

    it('requires two different operators under a four-eyes rule', async () => {
      const { store, service, mind, log, request } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: 'prod-*', decision: 'ask', approvers: 2 });
      const pending = await service.invoke(request('test.write', { name: 'prod-db' }));
      const id = pending.status === 'pending' ? pending.approvalId : '';
      assert.equal((await store.approvals.get(id))?.approversRequired, 2);
      const first = await service.approve(id, 'alice');
      assert.deepEqual(first, { status: 'awaiting_second_approver', approvalId: id, approvals: 1, required: 2 });
      const same = await service.approve(id, 'alice');
      assert.equal(same.status === 'refused' && same.code, 'already_decided');
      assert.equal(log.calls.length, 0);
      const second = await service.approve(id, 'bob');
      assert.equal(second.status, 'approved');
      assert.equal((await service.performApproved(id))?.status, 'executed');
      assert.equal(log.calls.length, 1);
    });

    it('never lets an operator approve an action they authored', async () => {
      const { service, log, request } = await setUp();
      const pending = await service.invoke(request('test.write', { name: 'eta' }, { authoredBy: 'alice', origin: 'operator:alice' }));
      const id = pending.status === 'pending' ? pending.approvalId : '';
      const own = await service.approve(id, 'alice');
      assert.equal(own.status === 'refused' && own.code, 'self_approval');
      assert.equal(log.calls.length, 0);
      assert.equal((await service.approve(id, 'bob')).status, 'approved');
    });

    it('refuses to approve an action changed after it was raised', async () => {
      const { store, service, log, request } = await setUp();
      const pending = await service.invoke(request('test.write', { name: 'theta' }));
      const id = pending.status === 'pending' ? pending.approvalId : '';
      // Someone with database access swaps the parameters under the request.
      await store.db
        .updateTable('approval_requests')
        .set({ params: store.codec.json({ name: 'everything' }) })
        .where('id', '=', id)
        .execute();
      const answer = await service.approve(id, 'alice');
      assert.equal(answer.status === 'refused' && answer.code, 'tampered');
      assert.equal((await store.approvals.get(id))?.status, 'failed');
      assert.equal(log.calls.length, 0);
    });

    it('uses a grant inside its scope, and falls back to policy outside it, after expiry or exhaustion', async () => {
      const { store, clock, service, mind, log, request } = await setUp();
      const raised = await service.requestCapability({
        mindId: mind.id,
        origin: 'plan_step:r1',
        capability: 'test.read',
        targetPattern: 'web-*',
        paramLimits: { level: { max: 5 } },
        durationSeconds: 1800,
        maxOperations: 2,
        reason: 'read the web tier',
        risk: 'may show internal names',
        mitigation: 'read-only',
        fallback: 'ask the operator',
      });
      assert.equal(raised.status, 'raised');
      const requestId = raised.status === 'raised' ? raised.requestId : '';
      const granted = await service.grant(requestId, 'alice');
      assert.equal(granted.status, 'granted');

      const inside = await service.invoke(request('test.read', { name: 'web-1', level: 2 }));
      assert.equal(inside.status, 'executed');
      assert.equal(inside.status === 'executed' && inside.verdict.source, 'grant');
      assert.equal((await service.invoke(request('test.read', { name: 'db-1', level: 2 }))).status, 'pending', 'another target');
      assert.equal((await service.invoke(request('test.read', { name: 'web-1', level: 9 }))).status, 'pending', 'over the limit');
      assert.equal((await service.invoke(request('test.read', { name: 'web-2', level: 1 }))).status, 'executed');
      assert.equal((await service.invoke(request('test.read', { name: 'web-3', level: 1 }))).status, 'pending', 'exhausted');
      assert.equal(log.calls.length, 2);
      const grantId = granted.status === 'granted' ? granted.grantId : '';
      assert.equal((await store.grants.get(grantId))?.status, 'exhausted');

      // A fresh grant stops at its expiry.
      const again = await service.requestCapability({ ...baseRequest(mind.id), capability: 'test.read', targetPattern: 'web-*' });
      await service.grant(again.status === 'raised' ? again.requestId : '', 'alice', { durationSeconds: 60 });
      assert.equal((await service.invoke(request('test.read', { name: 'web-1' }))).status, 'executed');
      clock.advance(60);
      assert.equal((await service.invoke(request('test.read', { name: 'web-1' }))).status, 'pending', 'expired');
    });

    it('a grant past its expiry is expired: by the sweep, in lists by status, and to a revocation', async () => {
      const { store, clock, service, mind } = await setUp();
      const raised = await service.requestCapability({ ...baseRequest(mind.id), capability: 'test.read', targetPattern: 'web-*' });
      const granted = await service.grant(raised.status === 'raised' ? raised.requestId : '', 'alice', { durationSeconds: 60 });
      const grantId = granted.status === 'granted' ? granted.grantId : '';
      const kept = await service.requestCapability({ ...baseRequest(mind.id), capability: 'test.read', targetPattern: 'db-*' });
      await service.grant(kept.status === 'raised' ? kept.requestId : '', 'alice', { durationSeconds: 600 });
      clock.advance(60);
      const revoked = await service.revokeGrant(grantId, 'bob');
      assert.deepEqual(revoked.status === 'refused' && [revoked.code, revoked.message], ['not_active', `grant ${grantId} is expired (at ${new Date(clock.now().getTime()).toISOString()})`]);
      assert.equal(
        (await store.events.list({ mindId: mind.id, limit: 100 })).some((e) => e.type === 'grant_revoked'),
        false,
      );
      const admin = { tokenId: null, operator: 'alice', role: 'admin' as const, mindId: null };
      const active = await listGrants(store, admin, { mind: mind.id, status: 'active' });
      assert.deepEqual(
        active.items.map((g) => g.targetPattern),
        ['db-*'],
      );
      assert.equal((await store.grants.get(grantId))?.status, 'expired', 'listing swept it');
      clock.advance(600);
      assert.equal(await service.expireGrants(), 1);
      assert.equal(await service.expireGrants(), 0);
      assert.deepEqual((await listGrants(store, admin, { mind: mind.id, status: 'expired' })).items.map((g) => g.targetPattern).sort(), ['db-*', 'web-*']);
    });

    it('a grant may narrow the request but never widen it; a refused grant leaves the request open', async () => {
      const { store, service, mind } = await setUp();
      const raised = await service.requestCapability({ ...baseRequest(mind.id), capability: 'test.read', targetPattern: 'web-*', durationSeconds: 600, maxOperations: 3 });
      const requestId = raised.status === 'raised' ? raised.requestId : '';
      const wider = await service.grant(requestId, 'alice', { targetPattern: '*', durationSeconds: 3600, maxOperations: 50 });
      assert.equal(wider.status, 'invalid');
      const paths = wider.status === 'invalid' ? wider.issues.map((i) => `${i.code} ${i.path}`) : [];
      assert.deepEqual(paths.sort(), ['wider_than_requested duration_seconds', 'wider_than_requested max_operations', 'wider_than_requested target_pattern']);
      assert.equal((await store.capabilityRequests.get(requestId))?.status, 'open');
      assert.equal((await store.grants.list({ mindId: mind.id })).length, 0);

      const narrower = await service.grant(requestId, 'alice', { targetPattern: 'web-1*', durationSeconds: 60, maxOperations: 1 });
      assert.equal(narrower.status, 'granted');
    });

    it('stops using a revoked grant', async () => {
      const { service, mind, request } = await setUp();
      const raised = await service.requestCapability({ ...baseRequest(mind.id), capability: 'test.read', targetPattern: '*' });
      const granted = await service.grant(raised.status === 'raised' ? raised.requestId : '', 'alice');
      const grantId = granted.status === 'granted' ? granted.grantId : '';
      assert.equal((await service.invoke(request('test.read', { name: 'a' }))).status, 'executed');
      assert.deepEqual(await service.revokeGrant(grantId, 'bob'), { status: 'revoked', grantId });
      assert.equal((await service.invoke(request('test.read', { name: 'a' }))).status, 'pending');
      const twice = await service.revokeGrant(grantId, 'bob');
      assert.equal(twice.status === 'refused' && twice.code, 'not_active');
    });

    it('caps open capability requests per mind and validates them', async () => {
      const { store, service, mind } = await setUp();
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await service.requestCapability({ ...baseRequest(mind.id), targetPattern: `svc-${i}` })).status, 'raised');
      }
      const capped = await service.requestCapability({ ...baseRequest(mind.id), targetPattern: 'svc-6' });
      assert.deepEqual(capped, { status: 'capped', open: 5, cap: 5 });
      assert.equal(await store.capabilityRequests.countOpen(mind.id), 5);
      const invalid = await service.requestCapability({ ...baseRequest(mind.id), capability: 'test.locked', durationSeconds: 0, risk: ' ', paramLimits: { colour: { equals: 1 } } });
      assert.equal(invalid.status, 'invalid');
      assert.deepEqual((invalid.status === 'invalid' ? invalid.issues : []).map((i) => i.path).sort(), ['capability', 'duration_seconds', 'param_limits.colour', 'risk']);
    });

    it('lets a commitment add an approval requirement that policy did not have', async () => {
      const { store, service, mind, log, request } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: '*', decision: 'allow', approvers: 1 });
      await store.commitments.create({ mindId: mind.id, capability: 'test.write', targetPattern: 'payments-*', reason: 'change freeze' });
      const frozen = await service.invoke(request('test.write', { name: 'payments-api' }));
      assert.equal(frozen.status, 'pending');
      assert.equal(frozen.status === 'pending' && frozen.verdict.source, 'commitment');
      assert.equal((await service.invoke(request('test.write', { name: 'search-api' }))).status, 'executed');
      assert.equal(log.calls.length, 1);
    });

    it('always denies a locked capability and records the refusal', async () => {
      const { store, service, mind, log, request } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: 'test.locked', targetPattern: '*', decision: 'allow', approvers: 1 });
      const call = request('test.locked', { name: 'x' });
      const result = await service.invoke(call);
      assert.equal(result.status === 'denied' && result.code, 'locked');
      assert.equal(log.calls.length, 0);
      const [execution] = await store.executions.listByOrigin(call.origin);
      assert.equal(execution?.status, 'failed');
      assert.match(execution?.error ?? '', /^locked/);
    });

    it('answers "not observable" for a check that policy would ask about, raising nothing', async () => {
      const { store, service, mind, log, request } = await setUp();
      const call = request('test.read', { name: 'web-1' }, { allowPrompt: false });
      const result = await service.invoke(call);
      assert.equal(result.status === 'denied' && result.code, 'not_observable');
      assert.equal((await store.approvals.list({ mindId: mind.id })).length, 0);
      assert.equal(log.calls.length, 0);
    });

    it('still never prompts for a check when every grant is spent by racing callers', async () => {
      const { store, service, mind, log, request } = await setUp();
      const raised = await service.requestCapability({ ...baseRequest(mind.id), capability: 'test.read', targetPattern: '*' });
      await service.grant(raised.status === 'raised' ? raised.requestId : '', 'alice');
      // Every attempt to use the live grant loses, as if other callers spent it each time.
      const grants = new Proxy(store.grants, {
        get: (target, key) => (key === 'consume' ? async () => undefined : (Reflect.get(target, key) as (...a: unknown[]) => unknown).bind(target)),
      });
      const racing = new CapabilityService({ ...store, grants } as Store, testRegistry, testImplementations(log));
      const check = await racing.invoke(request('test.read', { name: 'a' }, { allowPrompt: false }));
      assert.equal(check.status === 'denied' && check.code, 'not_observable');
      assert.equal((await store.approvals.list({ mindId: mind.id })).length, 0);
      const call = await racing.invoke(request('test.read', { name: 'a' }));
      assert.equal(call.status, 'pending', 'an ordinary call falls back to asking');
      assert.equal(log.calls.length, 0);
    });

    it('refuses invalid parameters and unknown capabilities with a record', async () => {
      const { store, service, log, request } = await setUp();
      const bad = request('test.write', { name: 'alpha', shell: 'rm -rf /' });
      const result = await service.invoke(bad);
      assert.equal(result.status === 'failed' && result.code, 'invalid_params');
      assert.deepEqual(result.status === 'failed' && result.issues?.map((i) => i.path), ['params.shell']);
      const coerced = await service.invoke(request('test.write', { name: 'alpha', level: '3' }));
      assert.equal(coerced.status === 'failed' && coerced.code, 'invalid_params');
      const unknown = request('shell.exec', { command: 'id' });
      assert.equal((await service.invoke(unknown)).status, 'failed');
      assert.equal((await store.executions.listByOrigin(unknown.origin))[0]?.error.startsWith('unknown_capability'), true);
      assert.equal(log.calls.length, 0);
    });

    it('reports a failed implementation with whether a retry is safe', async () => {
      const { store, service, mind, request } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: '*', targetPattern: '*', decision: 'allow', approvers: 1 });
      const flaky = await service.invoke(request('test.flaky', { name: 'a' }));
      assert.deepEqual(flaky.status === 'failed' && [flaky.code, flaky.retrySafe], ['unavailable', true]);
      const missing = await service.invoke(request('test.unimplemented', { name: 'a' }));
      assert.deepEqual(missing.status === 'failed' && [missing.code, missing.retrySafe], ['not_implemented', false]);
    });

    it('previews a decision without recording anything', async () => {
      const { store, service, mind, request } = await setUp();
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: 'prod-*', decision: 'ask', approvers: 2 });
      const before = await snapshot(store, mind.id);
      const preview = await service.preview(request('test.write', { name: 'prod-db' }));
      assert.deepEqual([preview.decision, preview.needs, preview.verdict?.source], ['ask', 'two_approvals', 'rule']);
      const check = await service.preview(request('test.read', { name: 'a' }, { allowPrompt: false }));
      assert.equal(check.needs, 'refused');
      const invalid = await service.preview(request('test.write', { nam: 'x' }));
      assert.equal(invalid.decision, 'invalid');
      assert.deepEqual(await snapshot(store, mind.id), before);
    });

    it('lets exactly one of a concurrent approve and withdraw win', async () => {
      const { store, service, log, request } = await setUp();
      // PostgreSQL: the two decisions come over separate connections.
      const second = kind === 'postgres' ? await openStore(current().config, { clock: current().clock }) : undefined;
      const otherService = second ? new CapabilityService(second, testRegistry, testImplementations(log)) : service;
      try {
        for (let round = 0; round < 5; round += 1) {
          const pending = await service.invoke(request('test.write', { name: `race-${round}` }));
          const id = pending.status === 'pending' ? pending.approvalId : '';
          const mindId = (await store.approvals.get(id))!.mindId;
          const [approve, withdraw] = await Promise.all([service.approve(id, 'alice'), otherService.withdraw(id, mindId)]);
          const winners = [approve.status === 'approved', withdraw.status === 'withdrawn'].filter(Boolean).length;
          assert.equal(winners, 1, `round ${round}: ${approve.status} / ${withdraw.status}`);
          const final = (await store.approvals.get(id))!.status;
          assert.equal(final, approve.status === 'approved' ? 'approved' : 'withdrawn');
        }
      } finally {
        await second?.close();
      }
    });
  });
}

function baseRequest(mindId: string) {
  return {
    mindId,
    origin: 'plan_step:r',
    capability: 'test.read',
    targetPattern: '*',
    durationSeconds: 600,
    maxOperations: 3,
    reason: 'look at it',
    risk: 'low',
    mitigation: 'read-only',
    fallback: 'ask the operator',
  };
}

async function snapshot(store: Store, mindId: string) {
  return {
    executions: (await store.executions.listByMind(mindId, { limit: 1000 })).length,
    approvals: (await store.approvals.list({ mindId })).length,
    events: (await store.events.list({ mindId, limit: 1000 })).length,
    requests: (await store.capabilityRequests.list({ mindId })).length,
  };
}
