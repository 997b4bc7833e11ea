import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issueToken } from '../../src/access/tokens.ts';
import { buildServer } from '../../src/server/app.ts';
import { draftOf, readStep, step } from '../execution/support.ts';
import { STORE_KINDS, useStore, type TestStore } from '../support/stores.ts';
import { makeApiWorld, openRequest, pendingApproval, type ApiWorld } from './support.ts';

async function withApi(ts: TestStore, run: (api: ApiWorld) => Promise<void>, over = {}): Promise<void> {
  const api = await makeApiWorld(ts, over);
  try {
    await run(api);
  } finally {
    await api.app.close();
  }
}

const validDraft = (objective = 'read a and b') => draftOf([readStep('a', 'test.read', { name: 'a' }), readStep('b', 'test.read', { name: 'b' }, { depends_on: ['a'] })], { objective });

for (const kind of STORE_KINDS) {
  describe(`HTTP API (${kind})`, () => {
    const store = useStore(kind);

    it('refuses requests without a valid token: missing, malformed, unknown, revoked, expired', async () => {
      await withApi(store(), async ({ app, world, call }) => {
        assert.equal((await call(null, 'GET', '/api/v1/whoami')).status, 401);
        const bad = async (authorization: string) => (await app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization } })).statusCode;
        assert.equal(await bad('Basic abc'), 401);
        assert.equal(await bad('Bearer praxis_not-a-real-token'), 401);
        const revoked = await issueToken(world.store, { operator: 'rita', role: 'admin' });
        await world.store.accessTokens.revoke(revoked.record.id);
        assert.equal(await bad(`Bearer ${revoked.token}`), 401);
        const expiring = await issueToken(world.store, { operator: 'eve', role: 'admin', expiresAt: new Date(world.clock.now().getTime() + 60_000) });
        assert.equal(await bad(`Bearer ${expiring.token}`), 200);
        world.advance(120);
        assert.equal(await bad(`Bearer ${expiring.token}`), 401);
        const body = (await call(null, 'GET', '/api/v1/minds')).body;
        assert.equal(body.error.code, 'unauthenticated');
        assert.deepEqual(body.error.problems, []);
      });
    });

    it('says who the token speaks for', async () => {
      await withApi(store(), async ({ call, world }) => {
        assert.deepEqual((await call('agent', 'GET', '/api/v1/whoami')).body, { operator: 'agent-a', role: 'agent', mind_id: world.mind.id });
        assert.deepEqual((await call('operator', 'GET', '/api/v1/whoami')).body, { operator: 'olga', role: 'operator', mind_id: null });
      });
    });

    it('anonymous mode lets token-less requests act with the configured role, and still checks presented tokens', async () => {
      await withApi(
        store(),
        async ({ app, call }) => {
          const anon = await app.inject({ method: 'GET', url: '/api/v1/whoami' });
          assert.equal(anon.statusCode, 200);
          assert.deepEqual(anon.json(), { operator: 'anonymous', role: 'viewer', mind_id: null });
          const refused = await app.inject({ method: 'POST', url: '/api/v1/minds', payload: { name: 'anon-made' } });
          assert.equal(refused.statusCode, 403);
          const wrong = await app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: 'Bearer praxis_bogus' } });
          assert.equal(wrong.statusCode, 401);
          assert.equal((await call('admin', 'GET', '/api/v1/whoami')).body.operator, 'adam');
        },
        { anonymousRole: 'viewer' },
      );
    });

    it('access matrix: viewer reads, agent proposes only for its mind, operator decides, only admin administers', async () => {
      await withApi(store(), async ({ call, world, other }) => {
        const mind = world.mind.name;
        // Reads: everyone; an agent only its own mind.
        for (const who of ['viewer', 'agent', 'operator', 'admin'] as const) {
          assert.equal((await call(who, 'GET', `/api/v1/minds/${mind}`)).status, 200, who);
        }
        assert.equal((await call('agent', 'GET', `/api/v1/minds/${other.name}`)).status, 404);
        assert.equal((await call('otherAgent', 'GET', `/api/v1/minds/${mind}/plans`)).status, 404);
        const minds = (await call('agent', 'GET', '/api/v1/minds')).body.items.map((m: { id: string }) => m.id);
        assert.deepEqual(minds, [world.mind.id]);

        // Proposing.
        assert.equal((await call('viewer', 'POST', `/api/v1/minds/${mind}/plans`, validDraft())).status, 403);
        const byAgent = await call('agent', 'POST', `/api/v1/minds/${mind}/plans`, validDraft());
        assert.equal(byAgent.status, 201);
        assert.equal((await world.store.plans.get(byAgent.body.plan_id))?.origin, 'model');
        assert.equal((await call('agent', 'POST', `/api/v1/minds/${other.name}/plans`, validDraft())).status, 404);
        const byOperator = await call('operator', 'POST', `/api/v1/minds/${mind}/plans`, validDraft());
        assert.equal((await world.store.plans.get(byOperator.body.plan_id))?.origin, 'operator');

        // Deciding.
        const approval = await pendingApproval(world);
        for (const who of ['viewer', 'agent'] as const) {
          assert.equal((await call(who, 'POST', `/api/v1/approvals/${approval}/approve`, {})).status, 403, who);
        }
        const request = await openRequest(world);
        assert.equal((await call('agent', 'POST', `/api/v1/capability-requests/${request}/grant`, {})).status, 403);
        assert.equal((await call('agent', 'POST', `/api/v1/plans/${byOperator.body.plan_id}/cancel`, { reason: 'no' })).status, 403);
        assert.equal((await call('agent', 'POST', `/api/v1/plans/${byOperator.body.plan_id}/steps/a/retry`, {})).status, 403);
        assert.equal((await call('agent', 'POST', `/api/v1/capability-requests/${request}/withdraw`, {})).status, 200);
        const otherRequest = await openRequest(world, other.id);
        assert.equal((await call('agent', 'POST', `/api/v1/capability-requests/${otherRequest}/withdraw`, {})).status, 404);
        assert.equal((await world.store.capabilityRequests.get(otherRequest))?.status, 'open');
        assert.equal((await call('operator', 'POST', `/api/v1/approvals/${approval}/deny`, { note: 'not now' })).status, 200);

        // Administering.
        const rule = { capability: 'test.write', target_pattern: 'svc*', decision: 'allow' };
        assert.equal((await call('operator', 'PUT', `/api/v1/minds/${mind}/policy`, rule)).status, 403);
        assert.equal((await call('operator', 'POST', '/api/v1/minds', { name: `m-${Date.now()}` })).status, 403);
        assert.equal((await world.store.policyRules.listByMind(world.mind.id)).length, 0);
        const set = await call('admin', 'PUT', `/api/v1/minds/${mind}/policy`, rule);
        assert.equal(set.status, 200);
        assert.equal(set.body.rule.decision, 'allow');
        const listed = await call('viewer', 'GET', `/api/v1/minds/${mind}/policy`);
        assert.equal(listed.body.rules.length, 1);
        assert.equal((await call('admin', 'DELETE', `/api/v1/minds/${mind}/policy`, { capability: 'test.write', target_pattern: 'svc*' })).status, 200);
        assert.equal((await call('admin', 'DELETE', `/api/v1/minds/${mind}/policy`, { capability: 'test.write', target_pattern: 'svc*' })).status, 404);
        const created = await call('admin', 'POST', '/api/v1/minds', { name: `made-${world.mind.id.slice(-6)}`, sandbox: true });
        assert.equal(created.status, 201);
        assert.equal(created.body.sandbox, true);
        assert.equal((await call('admin', 'POST', '/api/v1/minds', { name: created.body.name })).status, 409);
      });
    });

    it('refuses bad input with the offending path and changes nothing', async () => {
      await withApi(store(), async ({ call, world }) => {
        const mind = world.mind.name;
        const approval = await pendingApproval(world);
        const request = await openRequest(world);
        const before = await world.store.events.latestSeq();

        const unknown = await call('operator', 'POST', `/api/v1/approvals/${approval}/approve`, { note: 'ok', decision: 'approve' });
        assert.equal(unknown.status, 400);
        assert.equal(unknown.body.error.code, 'invalid_input');
        assert.deepEqual(
          unknown.body.error.problems.map((p: { path: string; code: string }) => [p.path, p.code]),
          [['body.decision', 'unknown_field']],
        );

        const badEnum = await call('admin', 'PUT', `/api/v1/minds/${mind}/policy`, { capability: 'test.write', target_pattern: '*', decision: 'maybe' });
        assert.equal(badEnum.status, 400);
        assert.equal(badEnum.body.error.problems[0].path, 'body.decision');
        assert.equal(badEnum.body.error.problems[0].code, 'invalid_value');

        const badId = await call('operator', 'POST', '/api/v1/approvals/not-an-id/approve', {});
        assert.equal(badId.status, 400);
        assert.equal(badId.body.error.problems[0].path, 'params.id');

        for (const limit of ['0', '201', 'many']) {
          const res = await call('viewer', 'GET', `/api/v1/plans?limit=${limit}`);
          assert.equal(res.status, 400, limit);
          assert.equal(res.body.error.problems[0].path, 'query.limit');
        }
        const badCursor = await call('viewer', 'GET', '/api/v1/plans?cursor=garbage');
        assert.equal(badCursor.status, 400);
        assert.equal(badCursor.body.error.problems[0].path, 'query.cursor');
        // A forged mind-list cursor naming a name with a NUL: PostgreSQL refused it as a 500.
        const nulCursor = await call('viewer', 'GET', `/api/v1/minds?cursor=${Buffer.from('name:a\u0000').toString('base64url')}`);
        assert.deepEqual([nulCursor.status, nulCursor.body.error.problems[0].code, nulCursor.body.error.problems[0].path], [400, 'invalid_cursor', 'query.cursor']);
        const unknownQuery = await call('viewer', 'GET', '/api/v1/plans?colour=red');
        assert.equal(unknownQuery.body.error.problems[0].path, 'query.colour');

        const badGrant = await call('operator', 'POST', `/api/v1/capability-requests/${request}/grant`, { uses: 'three' });
        assert.equal(badGrant.status, 400);
        assert.equal(badGrant.body.error.problems[0].path, 'body.uses');
        // A grant wider than asked names the field the client sent too (the service says max_operations).
        const widerGrant = await call('operator', 'POST', `/api/v1/capability-requests/${request}/grant`, { uses: 500 });
        assert.equal(widerGrant.status, 400, JSON.stringify(widerGrant.body));
        assert.deepEqual(
          widerGrant.body.error.problems.map((p: { code: string; path: string }) => [p.code, p.path]),
          [['wider_than_requested', 'body.uses']],
        );

        const badMeans = await call('operator', 'POST', `/api/v1/minds/${mind}/intentions`, { means: { capability: 'test.read', params: { name: 'x', colour: 1 } } });
        assert.equal(badMeans.status, 400);
        assert.ok(
          badMeans.body.error.problems.some((p: { path: string }) => p.path.startsWith('body.means.params')),
          JSON.stringify(badMeans.body),
        );

        const notAPlan = await call('operator', 'POST', `/api/v1/minds/${mind}/plans`, ['not', 'a', 'plan']);
        assert.equal(notAPlan.status, 422);
        assert.equal(notAPlan.body.error.code, 'not_stored');

        // Valid JSON with a key that could reach an object's prototype: refused, naming the key.
        for (const [text, path] of [
          ['{"name":"proto-mind","__proto__":{"sandbox":true}}', 'body.__proto__'],
          ['{"name":"proto-mind","tags":[{"constructor":{"prototype":{"x":1}}}]}', 'body.tags[0].constructor'],
        ]) {
          const poisoned = await call('admin', 'POST', '/api/v1/minds', text);
          assert.equal(poisoned.status, 400, text);
          assert.equal(poisoned.body.error.code, 'malformed_request');
          assert.equal(poisoned.body.error.problems[0].path, path);
        }
        assert.equal(await world.store.minds.getByName('proto-mind'), undefined);

        assert.equal((await world.store.approvals.get(approval))?.status, 'pending');
        assert.equal((await world.store.capabilityRequests.get(request))?.status, 'open');
        assert.equal(await world.store.events.latestSeq(), before);
        assert.equal((await world.store.plans.listByMind(world.mind.id)).length, 0);
        assert.equal((await world.store.intentions.listByMind(world.mind.id)).length, 0);
        assert.equal((await call('viewer', 'GET', '/api/v1/minds/no-such-mind')).status, 404);
        assert.equal((await call('viewer', 'GET', '/api/v1/plans/01a23710-f254-73ae-a073-9b265b75019f')).status, 404);
      });
    });

    it('refuses an id in upper case with a 400 on either store, and changes nothing', async () => {
      await withApi(store(), async ({ call, world }) => {
        const { plan } = await world.plan(validDraft());
        const before = await world.store.events.latestSeq();
        for (const [method, path] of [
          ['GET', `/api/v1/plans/${plan.id.toUpperCase()}`],
          ['POST', `/api/v1/plans/${plan.id.toUpperCase()}/cancel`],
          ['GET', `/api/v1/plans?intention=${plan.intentionId.toUpperCase()}`],
        ] as const) {
          const answer = await call('operator', method, path, method === 'POST' ? {} : undefined);
          assert.equal(answer.status, 400, `${method} ${path}: ${JSON.stringify(answer.body)}`);
          assert.match(JSON.stringify(answer.body.error.problems), /lower case/, path);
        }
        assert.equal((await world.store.plans.get(plan.id))?.status, plan.status);
        assert.equal(await world.store.events.latestSeq(), before);
        // A mind's id in upper case is no mind's name either: the same 404 on both stores, and no
        // mind may take it as its name (it would answer for the mind whose id it is).
        assert.equal((await call('viewer', 'GET', `/api/v1/minds/${world.mind.id.toUpperCase()}`)).status, 404);
        const named = await call('admin', 'POST', '/api/v1/minds', { name: world.mind.id.toUpperCase() });
        assert.deepEqual([named.status, named.body.error?.problems[0]?.code], [400, 'invalid_name']);
      });
    });

    it("answers an agent about other minds' records and names exactly as about missing ones", async () => {
      await withApi(store(), async ({ call, world, other }) => {
        const missingId = '01a23710-f254-73ae-a073-9b265b75019f';
        const { plan, intention } = await world.plan(validDraft(), { mind: other });
        const otherRequest = await openRequest(world, other.id);
        const hidden = async (template: (id: string) => string, id: string, method: 'GET' | 'POST' = 'GET') => {
          const theirs = await call('agent', method, template(id), method === 'POST' ? {} : undefined);
          const missing = await call('agent', method, template(missingId), method === 'POST' ? {} : undefined);
          assert.equal(theirs.status, 404, template(id));
          assert.equal(missing.status, 404, template(missingId));
          // Word for word the same answer, once each names its own id.
          assert.deepEqual(JSON.parse(JSON.stringify(theirs.body).replaceAll(id, '<id>')), JSON.parse(JSON.stringify(missing.body).replaceAll(missingId, '<id>')), template(id));
          return theirs.body;
        };
        const planBody = await hidden((id) => `/api/v1/plans/${id}`, plan.id);
        assert.equal(planBody.error.code, 'not_found');
        assert.deepEqual(planBody.error.problems, [{ code: 'not_found', path: 'params.id', message: `no plan ${plan.id}` }]);
        await hidden((id) => `/api/v1/plans/${id}/timeline`, plan.id);
        await hidden((id) => `/api/v1/intentions/${id}`, intention.id);
        await hidden((id) => `/api/v1/intentions/${id}/timeline`, intention.id);
        const filtered = await hidden((id) => `/api/v1/plans?intention=${id}`, intention.id);
        assert.equal(filtered.error.problems[0].path, 'query.intention');
        await hidden((id) => `/api/v1/capability-requests/${id}/withdraw`, otherRequest, 'POST');
        // Minds by name and by id.
        const byName = await call('agent', 'GET', `/api/v1/minds/${other.name}`);
        const noName = await call('agent', 'GET', '/api/v1/minds/no-such-mind');
        assert.equal(byName.status, 404);
        assert.deepEqual(JSON.parse(JSON.stringify(byName.body).replaceAll(other.name, '<m>')), JSON.parse(JSON.stringify(noName.body).replaceAll('no-such-mind', '<m>')));
        assert.equal(byName.body.error.problems[0].code, 'unknown_mind');
        await hidden((id) => `/api/v1/minds/${id}/plans`, other.id);
        await hidden((id) => `/api/v1/approvals?mind=${id}`, other.id);
        // A refusal by role is still a 403, whoever's record it names; the operator still sees everything.
        assert.equal((await call('agent', 'POST', `/api/v1/plans/${plan.id}/cancel`, { reason: 'mine now' })).status, 403);
        assert.equal((await call('viewer', 'GET', `/api/v1/plans/${plan.id}`)).status, 200);
        assert.equal((await world.store.capabilityRequests.get(otherRequest))?.status, 'open');
      });
    });

    it('refuses query fields a route does not take, on every route', async () => {
      await withApi(store(), async ({ call, world }) => {
        const { plan } = await world.plan(validDraft());
        const approval = await pendingApproval(world);
        for (const [method, url] of [
          ['GET', `/api/v1/plans/${plan.id}?bogus=1`],
          ['GET', '/api/v1/whoami?bogus=1'],
          ['GET', `/api/v1/minds/${world.mind.name}?bogus=1`],
          ['GET', '/api/v1/capabilities?bogus=1'],
          ['POST', `/api/v1/approvals/${approval}/approve?bogus=1`],
        ] as const) {
          const res = await call('operator', method, url, method === 'POST' ? {} : undefined);
          assert.equal(res.status, 400, url);
          assert.deepEqual(
            res.body.error.problems.map((p: { path: string; code: string }) => [p.path, p.code]),
            [['query.bogus', 'unknown_field']],
            url,
          );
        }
        const spoofed = await call('operator', 'POST', `/api/v1/plans/${plan.id}/cancel?operator=mallory`, { reason: 'spoofed' });
        assert.equal(spoofed.status, 400);
        assert.equal(spoofed.body.error.problems[0].path, 'query.operator');
        assert.equal((await world.store.plans.get(plan.id))?.status, plan.status);
        assert.equal((await world.store.approvals.get(approval))?.status, 'pending');
        // Routes with query parameters still take theirs.
        assert.equal((await call('viewer', 'GET', `/api/v1/plans/${plan.id}/timeline?limit=5`)).status, 200);
      });
    });

    it('refuses a state-changing request that is not declared JSON, as a cross-site page would send it', async () => {
      await withApi(
        store(),
        async ({ app, world, tokens }) => {
          const approval = await pendingApproval(world);
          const before = await world.store.events.latestSeq();
          const url = `/api/v1/approvals/${approval}/approve`;
          for (const [label, extra] of [
            ['no content type, no body', {}],
            ['a form', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'note=x' }],
            ['text', { headers: { 'content-type': 'text/plain' }, payload: '{}' }],
          ] as const) {
            const res = await app.inject({ method: 'POST', url, ...extra });
            assert.equal(res.statusCode, 415, label);
            assert.equal(res.json().error.code, 'unsupported_media_type', label);
            assert.equal(res.json().error.problems[0].path, 'headers.content-type', label);
          }
          const asAdmin = { authorization: `Bearer ${tokens.admin}` };
          assert.equal((await app.inject({ method: 'DELETE', url: `/api/v1/minds/${world.mind.name}/policy`, headers: asAdmin })).statusCode, 415);
          assert.equal((await app.inject({ method: 'PUT', url: `/api/v1/minds/${world.mind.name}/policy`, headers: { ...asAdmin, 'content-type': 'text/plain' }, payload: '{}' })).statusCode, 415);
          assert.equal((await world.store.approvals.get(approval))?.status, 'pending');
          assert.equal(await world.store.events.latestSeq(), before);
          assert.deepEqual(world.log.calls, []);

          // Declared JSON it works, with or without a body (an empty one means no fields).
          const approved = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '' });
          assert.equal(approved.statusCode, 200, approved.body);
          assert.equal(approved.json().approval.decisions[0].operator, 'anonymous');
          const second = await pendingApproval(world, 'svc2');
          const withBody = await app.inject({ method: 'POST', url: `/api/v1/approvals/${second}/deny`, headers: { 'content-type': 'application/json' }, payload: '{"note":"no"}' });
          assert.equal(withBody.statusCode, 200, withBody.body);
          // Reads need no content type, and an unauthenticated caller still hears 401 first.
          assert.equal((await app.inject({ method: 'GET', url: '/api/v1/whoami' })).statusCode, 200);
          assert.equal((await app.inject({ method: 'POST', url, headers: { authorization: 'Bearer praxis_bogus' } })).statusCode, 401);
        },
        { anonymousRole: 'operator' },
      );
    });

    it('approving records the operator; the mind’s executor then runs the action; a second decision conflicts', async () => {
      await withApi(store(), async ({ call, world }) => {
        const approval = await pendingApproval(world, 'approved-here');
        const approved = await call('operator', 'POST', `/api/v1/approvals/${approval}/approve`, { note: 'looks right' });
        assert.equal(approved.status, 200, JSON.stringify(approved.body));
        assert.equal(approved.body.outcome.status, 'approved');
        assert.equal(approved.body.approval.decisions[0].operator, 'olga');
        assert.equal(approved.body.approval.decisions[0].note, 'looks right');
        assert.match(approved.body.approval.decidedAt, /^\d{4}-\d\d-\d\dT/);
        // Counted by name: the store is shared with earlier tests, whose approved actions the executor performs too.
        const mine = () => world.log.calls.filter((c) => c.params.name === 'approved-here').map((c) => c.capability);
        assert.deepEqual(mine(), [], 'the API only records the decision');
        await world.executor().drain();
        assert.deepEqual(mine(), ['test.write']);
        const again = await call('admin', 'POST', `/api/v1/approvals/${approval}/deny`, {});
        assert.equal(again.status, 409);
        assert.equal((await call('operator', 'POST', '/api/v1/approvals/01a23710-f254-73ae-a073-9b265b75019f/approve', {})).status, 404);
      });
    });

    it('groups pending approvals by batch and keeps decided ones in the history', async () => {
      await withApi(store(), async ({ call, world }) => {
        const a1 = await pendingApproval(world, 'one', 'b1');
        const a2 = await pendingApproval(world, 'two', 'b2');
        const a3 = await pendingApproval(world, 'three', 'b1');
        await call('operator', 'POST', `/api/v1/approvals/${a2}/deny`, {});
        const centre = (await call('viewer', 'GET', `/api/v1/approvals?mind=${world.mind.name}`)).body;
        assert.deepEqual(
          centre.groups.map((g: { batch_key: string; items: { id: string }[] }) => [g.batch_key, g.items.map((i) => i.id)]),
          [['b1', [a1, a3]]],
        );
        assert.deepEqual(
          centre.history.map((h: { id: string }) => h.id),
          [a2],
        );
        assert.equal(centre.history[0].decisions[0].operator, 'olga');
      });
    });

    it('grants a capability request with a duration and a use cap, recording the operator', async () => {
      await withApi(store(), async ({ call, world }) => {
        const request = await openRequest(world);
        const listed = (await call('viewer', 'GET', '/api/v1/capability-requests')).body;
        assert.ok(listed.groups.some((g: { batch_key: string }) => g.batch_key === 'req-batch'));
        const granted = await call('operator', 'POST', `/api/v1/capability-requests/${request}/grant`, { duration_seconds: 600, uses: 2, target_pattern: 'svc*' });
        assert.equal(granted.status, 200, JSON.stringify(granted.body));
        assert.equal(granted.body.request.status, 'granted');
        assert.equal(granted.body.request.decidedBy, 'olga');
        assert.equal(granted.body.grant.grantedBy, 'olga');
        assert.equal(granted.body.grant.operationsLeft, 2);
        assert.equal(granted.body.grant.targetPattern, 'svc*');
        assert.equal(new Date(granted.body.grant.expiresAt).getTime() - world.clock.now().getTime(), 600_000);
        const grants = (await call('viewer', 'GET', `/api/v1/grants?mind=${world.mind.name}&status=active`)).body;
        assert.deepEqual(
          grants.items.map((g: { id: string }) => g.id),
          [granted.body.grant.id],
        );
        const revoked = await call('operator', 'POST', `/api/v1/grants/${granted.body.grant.id}/revoke`);
        assert.equal(revoked.status, 200);
        assert.equal(revoked.body.grant.revokedBy, 'olga');
        assert.equal((await call('operator', 'POST', `/api/v1/grants/${granted.body.grant.id}/revoke`, {})).status, 409);
        const tooLong = await call('operator', 'POST', `/api/v1/capability-requests/${await openRequest(world)}/grant`, { duration_seconds: 10 ** 9 });
        assert.equal(tooLong.status, 400);
        assert.equal(tooLong.body.error.problems[0].path, 'body.duration_seconds');
      });
    });

    it('shows a plan with its linked records, use, and revisions; cancels it', async () => {
      await withApi(store(), async ({ call, world }) => {
        await world.allow('test.read');
        const { plan, intention } = await world.plan(draftOf([readStep('a'), step('w', { kind: 'capability', capability: 'test.write', params: { name: 'svc' }, depends_on: ['a'] })]));
        const executor = world.executor();
        for (let i = 0; i < 6; i += 1) await executor.tick();
        const detail = await call('viewer', 'GET', `/api/v1/plans/${plan.id}`);
        assert.equal(detail.status, 200);
        assert.equal(detail.body.plan.id, plan.id);
        assert.equal(detail.body.plan.steps, undefined);
        const [a, w] = detail.body.steps;
        assert.equal(a.status, 'completed');
        assert.equal(a.execution.id, a.executionId);
        assert.equal(a.execution.status, 'succeeded');
        assert.equal(w.status, 'awaiting_approval');
        assert.equal(w.approval.id, w.approvalId);
        assert.equal(w.subordinate?.parentId ?? intention.id, intention.id);
        assert.equal(detail.body.usage.used.invocations, 1);
        assert.equal(detail.body.usage.used.approvals, 1);
        assert.equal(detail.body.usage.budget.invocations, 20);
        assert.deepEqual(
          detail.body.revisions.map((r: { id: string }) => r.id),
          [plan.id],
        );

        const byIntention = await call('viewer', 'GET', `/api/v1/intentions/${intention.id}`);
        assert.deepEqual(
          byIntention.body.plans.map((p: { id: string; mindName: string }) => [p.id, p.mindName]),
          [[plan.id, world.mind.name]],
        );

        const cancelled = await call('operator', 'POST', `/api/v1/plans/${plan.id}/cancel`, { reason: 'changed my mind' });
        assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
        assert.equal(cancelled.body.plan.status, 'abandoned');
        assert.match(cancelled.body.plan.statusReason, /olga/);
        assert.equal((await world.store.approvals.get(w.approvalId))?.status, 'withdrawn');
        assert.equal((await world.store.steps.get(w.id))?.status, 'cancelled');
        assert.equal((await call('operator', 'POST', `/api/v1/plans/${plan.id}/cancel`, { reason: 'again' })).status, 409);
      });
    });

    it("marks a completed escalation in plan summaries (the list, an intention's plans), not a plain completed plan", async () => {
      await withApi(store(), async ({ call, world }) => {
        await world.allow('test.read');
        const note = step('N1', { kind: 'internal', spec: { action: 'notify_operator', message: 'Could not fix it; look at the unit.' } });
        const escalation = await world.plan(draftOf([note], { objective: 'tell the operator' }));
        const done = await world.plan(draftOf([readStep('a')], { objective: 'read a' }));
        await world.executor().drain();
        const statuses = Object.fromEntries((await world.store.plans.listByMind(world.mind.id)).map((p) => [p.id, p.status]));
        assert.equal(statuses[escalation.plan.id], 'completed');
        assert.equal(statuses[done.plan.id], 'completed');

        const list = await call('viewer', 'GET', '/api/v1/plans');
        assert.equal(list.status, 200);
        const flags = Object.fromEntries(list.body.items.map((p: { id: string; escalated: boolean }) => [p.id, p.escalated]));
        assert.equal(flags[escalation.plan.id], true);
        assert.equal(flags[done.plan.id], false);
        const byIntention = await call('viewer', 'GET', `/api/v1/intentions/${escalation.intention.id}`);
        assert.deepEqual(
          byIntention.body.plans.map((p: { id: string; escalated: boolean }) => [p.id, p.escalated]),
          [[escalation.plan.id, true]],
        );
      });
    });

    it('releases a blocked step by key, naming the operator', async () => {
      await withApi(store(), async ({ call, world }) => {
        const { plan } = await world.plan(draftOf([readStep('a')]));
        const a = plan.steps[0]!;
        await world.store.steps.move('block', a.id, 'pending', { error: 'outcome unknown' });
        const released = await call('operator', 'POST', `/api/v1/plans/${plan.id}/steps/a/retry`, { note: 'checked by hand' });
        assert.equal(released.status, 200, JSON.stringify(released.body));
        assert.equal(released.body.step.status, 'ready');
        assert.match(released.body.step.statusReason, /olga/);
        assert.equal((await call('operator', 'POST', `/api/v1/plans/${plan.id}/steps/a/retry`, {})).status, 409);
        assert.equal((await call('operator', 'POST', `/api/v1/plans/${plan.id}/steps/zz/retry`, {})).status, 404);
        const types = (await call('viewer', 'GET', `/api/v1/plans/${plan.id}/timeline`)).body.items.map((e: { type: string }) => e.type);
        assert.deepEqual(types, ['plan_step_released', 'operator_note']);
      });
    });

    it('forms an intention, asks the planner, and cancels it', async () => {
      await withApi(store(), async ({ call, world }) => {
        const formed = await call('agent', 'POST', `/api/v1/minds/${world.mind.name}/intentions`, { means: { capability: 'test.read', params: { name: 'disk' } } });
        assert.equal(formed.status, 201, JSON.stringify(formed.body));
        assert.equal(formed.body.intention.means.target, 'disk');
        assert.equal(typeof formed.body.planning.status, 'string');
        const listed = (await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/intentions`)).body.items;
        assert.deepEqual(
          listed.map((i: { id: string }) => i.id),
          [formed.body.intention.id],
        );
        const { intention } = await world.plan(validDraft());
        const cancelled = await call('operator', 'POST', `/api/v1/intentions/${intention.id}/cancel`, { reason: 'not needed' });
        assert.equal(cancelled.status, 200);
        assert.equal(cancelled.body.intention.status, 'abandoned');
        assert.equal(cancelled.body.intention.reason, 'cancelled');
        const plans = (await call('viewer', 'GET', `/api/v1/plans?intention=${intention.id}`)).body.items;
        assert.deepEqual(
          plans.map((p: { status: string }) => p.status),
          ['abandoned'],
        );
        assert.equal((await call('operator', 'POST', `/api/v1/intentions/${intention.id}/cancel`, { reason: 'x' })).status, 409);
      });
    });

    it('walks plan pages with the cursor, newest first, without gaps or repeats', async () => {
      await withApi(store(), async ({ call, world }) => {
        const made: string[] = [];
        for (let i = 0; i < 5; i += 1) made.push((await world.plan(validDraft(`plan ${i}`))).plan.id);
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const url: string = `/api/v1/minds/${world.mind.name}/plans?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
          const page = (await call('viewer', 'GET', url)).body;
          seen.push(...page.items.map((p: { id: string }) => p.id));
          cursor = page.next_cursor;
          pages += 1;
        } while (cursor);
        assert.equal(pages, 3);
        assert.deepEqual(seen, [...made].reverse());
      });
    });

    it('pages a timeline oldest first', async () => {
      await withApi(store(), async ({ call, world }) => {
        const { intention } = await world.plan(validDraft());
        for (const note of ['one', 'two', 'three']) {
          await world.store.events.append({ type: 'operator_note', mindId: world.mind.id, intentionId: intention.id, data: { note } });
        }
        const first = (await call('viewer', 'GET', `/api/v1/intentions/${intention.id}/timeline?limit=2`)).body;
        assert.deepEqual(
          first.items.map((e: { data: { note: string } }) => e.data.note),
          ['one', 'two'],
        );
        const second = (await call('viewer', 'GET', `/api/v1/intentions/${intention.id}/timeline?limit=2&cursor=${first.next_cursor}`)).body;
        assert.deepEqual(
          second.items.map((e: { data: { note: string } }) => e.data.note),
          ['three'],
        );
        assert.equal(second.next_cursor, null);
        // The mind's timeline also holds the issuing of its agent's token (the audit trail).
        const byMind = (await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/timeline`)).body.items as { type: string }[];
        assert.deepEqual(
          byMind.map((e) => e.type),
          ['token_created', 'operator_note', 'operator_note', 'operator_note'],
        );
        // Newest first, as the console reads a busy mind's timeline, paging towards older events.
        const latest = (await call('viewer', 'GET', `/api/v1/intentions/${intention.id}/timeline?limit=2&order=newest`)).body;
        assert.deepEqual(
          latest.items.map((e: { data: { note: string } }) => e.data.note),
          ['three', 'two'],
        );
        const older = (await call('viewer', 'GET', `/api/v1/intentions/${intention.id}/timeline?limit=2&order=newest&cursor=${latest.next_cursor}`)).body;
        assert.deepEqual(
          older.items.map((e: { data: { note: string } }) => e.data.note),
          ['one'],
        );
        const sideways = await call('viewer', 'GET', `/api/v1/intentions/${intention.id}/timeline?order=sideways`);
        assert.equal(sideways.status, 400);
        assert.equal(sideways.body.error.problems[0].path, 'query.order');
        const mixed = await call('viewer', 'GET', `/api/v1/intentions/${intention.id}/timeline?order=newest&cursor=${first.next_cursor}`);
        assert.equal(mixed.status, 400, 'a cursor of the oldest-first order is refused in the other');
      });
    });

    it('serves the catalogue, the mind view of policy, previews, memories and calibration', async () => {
      await withApi(store(), async ({ call, world }) => {
        const cat = (await call('viewer', 'GET', '/api/v1/capabilities')).body.items;
        const write = cat.find((c: { name: string }) => c.name === 'test.write');
        assert.equal(write.read_only, false);
        assert.equal(write.params_schema.additionalProperties, false);
        await world.allow('test.read');
        const mine = (await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/capabilities`)).body.items;
        assert.equal(mine.find((c: { name: string }) => c.name === 'test.read').policy.decision, 'allow');
        assert.equal(mine.find((c: { name: string }) => c.name === 'test.write').policy.decision, 'ask');
        const preview = await call('viewer', 'POST', `/api/v1/minds/${world.mind.name}/preview`, { capability: 'test.write', params: { name: 'svc' } });
        assert.equal(preview.body.needs, 'approval');
        assert.equal((await world.store.approvals.list({ mindId: world.mind.id })).length, 0);
        assert.deepEqual((await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/procedural-memories`)).body, { items: [], next_cursor: null });
        assert.equal((await call('viewer', 'GET', `/api/v1/minds/${world.mind.name}/calibration`)).body.resolved, 0);
      });
    });

    it('serves the console with a fallback to index.html for its own routes only', async (t) => {
      const { mkdtempSync, writeFileSync, mkdirSync, rmSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const dir = mkdtempSync(join(tmpdir(), 'praxis-console-'));
      writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
      mkdirSync(join(dir, 'assets'));
      writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      await withApi(
        store(),
        async ({ app }) => {
          assert.match((await app.inject('/')).body, /<title>console/);
          const deep = await app.inject('/console/plans/123');
          assert.equal(deep.statusCode, 200);
          assert.match(deep.body, /<title>console/);
          assert.equal((await app.inject('/assets/app.js')).body, 'console.log(1)');
          assert.equal((await app.inject('/assets/missing.js')).statusCode, 404);
          assert.equal((await app.inject('/metrics')).statusCode, 404);
          // /mcp is MCP's, never the console page: without a token it is refused.
          const mcp = await app.inject('/mcp');
          assert.equal(mcp.statusCode, 401);
          assert.doesNotMatch(mcp.body, /<title>console/);
        },
        { consoleDir: dir },
      );
    });

    it('answers probes, metrics and the OpenAPI description without a token', async () => {
      let ready = false;
      const { Registry, Counter } = await import('prom-client');
      const metrics = new Registry();
      new Counter({ name: 'praxis_test_total', help: 'a test counter', registers: [metrics] }).inc();
      await withApi(
        store(),
        async ({ app }) => {
          assert.equal((await app.inject('/healthz')).statusCode, 200);
          assert.equal((await app.inject('/readyz')).statusCode, 503);
          ready = true;
          const readyz = await app.inject('/readyz');
          assert.equal(readyz.statusCode, 200);
          assert.deepEqual(readyz.json(), { status: 'ready' });
          const scraped = await app.inject('/metrics');
          assert.equal(scraped.statusCode, 200);
          assert.match(scraped.body, /praxis_test_total 1/);
          const doc = (await app.inject('/docs/json')).json();
          assert.equal(doc.components.securitySchemes.bearer.scheme, 'bearer');
          for (const path of ['/api/v1/plans/{id}', '/api/v1/approvals/{id}/approve', '/api/v1/minds/{mind}/policy', '/api/v1/stream']) {
            assert.ok(doc.paths[path], `${path} is described`);
          }
          const missing = await app.inject('/api/v1/nothing-here');
          assert.equal(missing.statusCode, 401);
        },
        { isReady: () => ready, metrics },
      );
    });
  });
}

describe('HTTP API construction', () => {
  it('refuses an anonymous agent role', async () => {
    await assert.rejects(buildServer({ anonymousRole: 'agent' } as never), /anonymous role cannot be agent/);
  });
});
