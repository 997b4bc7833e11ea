// The audit trail and tamper evidence through the HTTP API (issue 15), on both stores: policy
// changes are events naming the token's operator, shown in the mind's timeline and in /audit;
// tokens issued and revoked are there too; naming the author of an authorless request keeps four
// eyes (the namer cannot approve); a request altered in the database answers 409 `tampered`.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { issueToken, revokeToken } from '../../src/access/tokens.ts';
import { approvalKeyFrom } from '../../src/capabilities/policy/action-digest.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { makeApiWorld, type ApiWorld } from '../server/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations } from '../support/test-capabilities.ts';

for (const kind of STORE_KINDS) {
  describe(`audit trail and keyed approvals over the API (${kind})`, () => {
    const current = useStore(kind);
    let api: ApiWorld;
    let keyed: CapabilityService;

    before(async () => {
      const ts = current();
      // The daemon's service holds a key; the test world's default one would write unkeyed digests.
      keyed = new CapabilityService(ts.store, (await import('../support/test-capabilities.ts')).testRegistry, testImplementations({ calls: [] }), {
        approvalKey: approvalKeyFrom(randomBytes(32)),
      });
      api = await makeApiWorld(ts, { capabilities: keyed });
    });
    after(async () => api?.app.close());

    async function raise(name: string, authoredBy?: string): Promise<string> {
      const result = await keyed.invoke({ mindId: api.world.mind.id, capability: 'test.write', params: { name }, origin: 'operator:test', ...(authoredBy ? { authoredBy } : {}) });
      assert.equal(result.status, 'pending');
      return result.status === 'pending' ? result.approvalId : '';
    }

    it('a policy rule set, replaced and removed is three events naming the admin, in the timeline and the audit trail', async () => {
      const mind = api.world.mind.name;
      const body = { capability: 'test.write', target_pattern: 'svc-*' };
      assert.equal((await api.call('admin', 'PUT', `/api/v1/minds/${mind}/policy`, { ...body, decision: 'ask' })).status, 200);
      assert.equal((await api.call('admin', 'PUT', `/api/v1/minds/${mind}/policy`, { ...body, decision: 'allow' })).status, 200);
      assert.equal((await api.call('admin', 'DELETE', `/api/v1/minds/${mind}/policy`, body)).status, 200);
      // Refused changes leave nothing on the record.
      assert.equal((await api.call('operator', 'PUT', `/api/v1/minds/${mind}/policy`, { ...body, decision: 'deny' })).status, 403);
      assert.equal((await api.call('admin', 'DELETE', `/api/v1/minds/${mind}/policy`, body)).status, 404);

      const timeline = await api.call('viewer', 'GET', `/api/v1/minds/${mind}/timeline?limit=200`);
      const changes = (timeline.body.items as { type: string; data: Record<string, unknown> }[]).filter((e) => e.type.startsWith('policy_rule_'));
      assert.deepEqual(
        changes.map((e) => [e.type, e.data.operator, e.data.target_pattern, e.data.decision, e.data.previous ?? null]),
        [
          ['policy_rule_set', 'adam', 'svc-*', 'ask', null],
          ['policy_rule_set', 'adam', 'svc-*', 'allow', { decision: 'ask', approvers: 1 }],
          ['policy_rule_removed', 'adam', 'svc-*', 'allow', null],
        ],
      );
      const audit = await api.call('viewer', 'GET', '/api/v1/audit?limit=200');
      assert.equal(audit.status, 200);
      assert.equal((audit.body.items as { type: string }[]).filter((e) => e.type.startsWith('policy_rule_')).length, 3);
    });

    it('tokens issued and revoked are in the audit trail, never their secret; an agent sees only its own mind there', async () => {
      const { store } = api.world;
      const issued = await issueToken(store, { operator: 'ops-bot', role: 'operator', label: 'night shift', issuedBy: 'adam' });
      const revocation = await revokeToken(store, issued.record.id, 'Olga');
      assert.ok('revoked' in revocation);
      assert.deepEqual(await revokeToken(store, issued.record.id, 'olga').then((r) => ('refused' in r ? r.refused : null)), 'already_revoked');
      const audit = await api.call('admin', 'GET', '/api/v1/audit?limit=200');
      const mine = (audit.body.items as { type: string; mindId: string | null; data: Record<string, unknown> }[]).filter((e) => e.data.token_id === issued.record.id);
      assert.deepEqual(
        mine.map((e) => [e.type, e.data.operator, e.data.token_operator, e.data.role, e.data.label, e.mindId]),
        [
          ['token_created', 'adam', 'ops-bot', 'operator', 'night shift', null],
          ['token_revoked', 'Olga', 'ops-bot', 'operator', 'night shift', null],
        ],
      );
      assert.ok(!JSON.stringify(audit.body).includes(issued.token), 'the secret never appears');
      // The revoked token is refused from then on.
      const refused = await api.app.inject({ method: 'GET', url: '/api/v1/minds', headers: { authorization: `Bearer ${issued.token}` } });
      assert.equal(refused.statusCode, 401);

      const seen = await api.call('agent', 'GET', '/api/v1/audit?limit=200');
      assert.equal(seen.status, 200);
      assert.ok(
        (seen.body.items as { mindId: string | null }[]).every((e) => e.mindId === api.world.mind.id),
        'an agent sees its own mind only',
      );
      assert.ok((seen.body.items as { data: Record<string, unknown> }[]).every((e) => e.data.token_id !== issued.record.id));
    });

    it('naming the author of an authorless request: the namer cannot approve, another operator can', async () => {
      const id = await raise('svc-named');
      const before = await api.call('operator', 'POST', `/api/v1/approvals/${id}/approve`, {});
      assert.equal(before.status, 409);
      assert.equal(before.body.error.problems[0].code, 'no_author');

      assert.equal((await api.call('agent', 'POST', `/api/v1/approvals/${id}/author`, { author: 'alice' })).status, 403);
      const bad = await api.call('operator', 'POST', `/api/v1/approvals/${id}/author`, { author: 'al\u0000ice' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.problems[0].path, 'body.author');
      const named = await api.call('operator', 'POST', `/api/v1/approvals/${id}/author`, { author: 'alice', note: 'from the change ticket' });
      assert.equal(named.status, 200, JSON.stringify(named.body));
      assert.equal(named.body.approval.authoredBy, 'alice');
      assert.equal(named.body.approval.authorNamedBy, 'olga');
      const twice = await api.call('admin', 'POST', `/api/v1/approvals/${id}/author`, { author: 'bob' });
      assert.equal(twice.status, 409);
      assert.equal(twice.body.error.problems[0].code, 'author_recorded');

      const byNamer = await api.call('operator', 'POST', `/api/v1/approvals/${id}/approve`, {});
      assert.equal(byNamer.status, 409);
      assert.equal(byNamer.body.error.problems[0].code, 'self_approval');
      const byAdmin = await api.call('admin', 'POST', `/api/v1/approvals/${id}/approve`, {});
      assert.equal(byAdmin.status, 200);
      assert.equal(byAdmin.body.outcome.status, 'approved');

      const audit = await api.call('viewer', 'GET', '/api/v1/audit?limit=200');
      const named_ = (audit.body.items as { type: string; data: Record<string, unknown> }[]).find((e) => e.type === 'approval_author_named' && e.data.approval_id === id);
      assert.deepEqual([named_?.data.operator, named_?.data.author], ['olga', 'alice']);
    });

    it('a request altered in the database answers 409 tampered, is closed, and the tamper event is in the audit trail', async () => {
      const id = await raise('svc-tampered', 'tester');
      await api.world.store.db.updateTable('approval_requests').set({ approvers_required: 1, authored_by: 'olga-not' }).where('id', '=', id).execute();
      const answer = await api.call('operator', 'POST', `/api/v1/approvals/${id}/approve`, {});
      assert.equal(answer.status, 409);
      assert.equal(answer.body.error.problems[0].code, 'tampered');
      assert.equal((await api.world.store.approvals.get(id))?.status, 'failed');
      const audit = await api.call('viewer', 'GET', '/api/v1/audit?limit=200');
      const event = (audit.body.items as { type: string; data: Record<string, unknown> }[]).find((e) => e.type === 'approval_tampered' && e.data.approval_id === id);
      assert.deepEqual([event?.data.code, event?.data.operator], ['tampered', 'olga']);
    });
  });
}
