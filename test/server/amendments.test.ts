// Amending a plan step's action before approving it, through the API, with the executor running
// the plan on both stores: the step's own action becomes the amended one and is what runs once
// another operator approves; the plan page and timeline show original and amendment; bad input
// is a typed error that changes nothing; and no MCP caller can amend, by tool or by route.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draftOf, restartPlan, step } from '../execution/support.ts';
import { connect, refused, serveMcp, tokenFor } from '../mcp/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld, pendingApproval, type ApiWorld } from './support.ts';

async function waitingStep(api: ApiWorld, planId: string) {
  await api.world.executor().drain();
  const waiting = (await api.world.store.plans.get(planId))!.steps[0]!;
  assert.equal(waiting.status, 'awaiting_approval');
  return waiting;
}

for (const kind of STORE_KINDS) {
  describe(`amending before approving (${kind})`, () => {
    const store = useStore(kind);

    it("rewrites the step's action, which runs once another operator approves; the plan page and timeline show the original beside the amendment", async () => {
      const api = await makeApiWorld(store());
      try {
        const { world } = api;
        const { plan } = await world.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha', level: 9 } })]));
        const waiting = await waitingStep(api, plan.id);
        const url = `/api/v1/minds/${world.mind.name}/approvals/${waiting.approvalId}/amend`;
        const raisedDigest = (await world.store.approvals.get(waiting.approvalId!))!.digest;

        const amended = await api.call('operator', 'POST', url, { params: { name: 'alpha', level: 2 }, target: 'alpha', reason: 'level 9 restarts every worker' });
        assert.equal(amended.status, 200, JSON.stringify(amended.body));
        assert.equal(amended.body.outcome.status, 'amended');
        assert.equal(amended.body.outcome.amendedBy, 'olga');
        assert.deepEqual(amended.body.approval.params, { name: 'alpha', level: 2 });
        assert.deepEqual(amended.body.approval.amendments[0].from, { target: 'alpha', params: { name: 'alpha', level: 9 } });
        const rewritten = (await world.store.plans.get(plan.id))!.steps[0]!;
        assert.deepEqual(rewritten.params, { name: 'alpha', level: 2 }, "the step's stored action is the amended one");
        assert.equal(rewritten.status, 'awaiting_approval');

        // The amender is an author now: refused; the plan's author too; a third operator approves.
        const own = await api.call('operator', 'POST', `/api/v1/approvals/${waiting.approvalId}/approve`, {});
        assert.equal(own.status, 409, JSON.stringify(own.body));
        assert.equal(own.body.error.problems[0].code, 'self_approval');
        assert.match(own.body.error.problems[0].message, /amended this action/);
        // An approver whose page still showed the action as raised is refused, not approving it unseen.
        const stale = await api.call('admin', 'POST', `/api/v1/approvals/${waiting.approvalId}/approve`, { digest: raisedDigest });
        assert.equal(stale.status, 409, JSON.stringify(stale.body));
        assert.equal(stale.body.error.problems[0].code, 'changed');
        assert.equal(stale.body.error.problems[0].path, 'body.digest', 'the field the approver sent, as amending names it');
        const other = await api.call('admin', 'POST', `/api/v1/approvals/${waiting.approvalId}/approve`, { digest: amended.body.approval.digest });
        assert.equal(other.status, 200, JSON.stringify(other.body));
        await world.executor().drain();
        assert.deepEqual(world.log.calls, [{ capability: 'test.write', params: { name: 'alpha', level: 2 } }], 'the amended action ran, once');
        const done = (await world.store.plans.get(plan.id))!.steps[0]!;
        assert.equal(done.status, 'completed');
        const execution = await world.store.executions.get(done.executionId!);
        assert.deepEqual(execution?.params, { name: 'alpha', level: 2 });

        const detail = await api.call('viewer', 'GET', `/api/v1/plans/${plan.id}`);
        assert.equal(detail.status, 200);
        const view = detail.body.steps[0];
        assert.deepEqual(view.params, { name: 'alpha', level: 2 });
        assert.deepEqual(view.approval.amendments[0].from.params, { name: 'alpha', level: 9 }, 'the plan page reads the original');
        assert.equal(view.approval.amendments[0].reason, 'level 9 restarts every worker');
        const timeline = await api.call('viewer', 'GET', `/api/v1/plans/${plan.id}/timeline`);
        assert.equal(timeline.status, 200, JSON.stringify(timeline.body));
        const events = (timeline.body.events ?? timeline.body.items ?? timeline.body) as { type: string; data: Record<string, unknown> }[];
        const event = events.find((e) => e.type === 'approval_amended');
        assert.ok(event, 'the amendment is on the plan timeline');
        assert.equal(event.data.operator, 'olga');
      } finally {
        await api.app.close();
      }
    });

    it('refuses bad input and policy with typed errors, and changes nothing', async () => {
      const api = await makeApiWorld(store());
      try {
        const { world } = api;
        await world.store.policyRules.set({ mindId: world.mind.id, capability: 'test.write', targetPattern: 'forbidden', decision: 'deny', approvers: 1 });
        const { plan } = await world.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha', level: 9 } })]));
        const waiting = await waitingStep(api, plan.id);
        const url = `/api/v1/minds/${world.mind.name}/approvals/${waiting.approvalId}/amend`;
        const before = await world.store.approvals.get(waiting.approvalId!);

        const cases: [unknown, number, string, string][] = [
          [{ params: { name: 'alpha', level: 11 } }, 400, 'body.params.level', ''],
          [{ params: { name: 'alpha', colour: 'red' } }, 400, 'body.params.colour', ''],
          [{ params: { name: 'beta' }, target: 'alpha' }, 400, 'body.target', 'target_mismatch'],
          [{ params: { name: 'forbidden' } }, 409, '', 'policy_denied'],
          [{ params: { name: 'alpha', level: 9 } }, 409, '', 'unchanged'],
          [{ params: { name: 'alpha', level: 2 }, approved: true }, 400, '', ''],
          [{ params: 'alpha' }, 400, '', ''],
        ];
        for (const [body, status, path, code] of cases) {
          const answer = await api.call('operator', 'POST', url, body);
          assert.equal(answer.status, status, JSON.stringify([body, answer.body]));
          const problem = answer.body.error.problems[0];
          if (path) assert.equal(problem.path, path, JSON.stringify(answer.body));
          if (code) assert.equal(problem.code, code, JSON.stringify(answer.body));
        }
        // Another mind's address, or a request that does not exist: not found.
        const elsewhere = await api.call('operator', 'POST', `/api/v1/minds/${api.other.name}/approvals/${waiting.approvalId}/amend`, { params: { name: 'alpha', level: 2 } });
        assert.equal(elsewhere.status, 404);
        // Only operators decide: a viewer and an agent are forbidden.
        for (const who of ['viewer', 'agent'] as const) {
          const answer = await api.call(who, 'POST', url, { params: { name: 'alpha', level: 2 } });
          assert.equal(answer.status, 403, `${who}: ${JSON.stringify(answer.body)}`);
        }
        assert.deepEqual(await world.store.approvals.get(waiting.approvalId!), before, 'nothing changed');
        assert.deepEqual((await world.store.plans.get(plan.id))!.steps[0]!.params, { name: 'alpha', level: 9 });
        assert.equal((await world.store.events.list({ mindId: world.mind.id, types: ['approval_amended'] })).length, 0);
      } finally {
        await api.app.close();
      }
    });

    it('refuses an amendment over one the operator did not see (409 changed, digest given), amends on the digest seen, and without a digest as before', async () => {
      const api = await makeApiWorld(store());
      try {
        const { world } = api;
        const { plan } = await world.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'alpha', level: 9 } })]));
        const waiting = await waitingStep(api, plan.id);
        const url = `/api/v1/minds/${world.mind.name}/approvals/${waiting.approvalId}/amend`;
        const seen = (await world.store.approvals.get(waiting.approvalId!))!.digest;

        // Another operator amends first; the first operator's editor still shows the action as raised.
        const first = await api.call('admin', 'POST', url, { params: { name: 'alpha', level: 3 }, digest: seen });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const afterFirst = await world.store.approvals.get(waiting.approvalId!);

        const stale = await api.call('operator', 'POST', url, { params: { name: 'alpha', level: 1 }, digest: seen });
        assert.equal(stale.status, 409, JSON.stringify(stale.body));
        assert.equal(stale.body.error.problems[0].code, 'changed');
        assert.equal(stale.body.error.problems[0].path, 'body.digest');
        assert.deepEqual(await world.store.approvals.get(waiting.approvalId!), afterFirst, 'nothing changed');
        assert.deepEqual((await world.store.plans.get(plan.id))!.steps[0]!.params, { name: 'alpha', level: 3 });
        assert.equal((await world.store.events.list({ mindId: world.mind.id, types: ['approval_amended'] })).length, 1);

        // On the digest of the action as it stands now: amended.
        const current = await api.call('operator', 'POST', url, { params: { name: 'alpha', level: 1 }, digest: first.body.approval.digest });
        assert.equal(current.status, 200, JSON.stringify(current.body));
        assert.deepEqual(current.body.approval.params, { name: 'alpha', level: 1 });
        // A script that sends no digest amends whatever stands, as before the field existed.
        const blind = await api.call('operator', 'POST', url, { params: { name: 'alpha', level: 2 } });
        assert.equal(blind.status, 200, JSON.stringify(blind.body));
        assert.deepEqual(
          blind.body.approval.amendments.map((a: { operator: string; to: { params: unknown } }) => [a.operator, a.to.params]),
          [
            ['adam', { name: 'alpha', level: 3 }],
            ['olga', { name: 'alpha', level: 1 }],
            ['olga', { name: 'alpha', level: 2 }],
          ],
        );
        // A digest that is not text is refused at the boundary.
        const bad = await api.call('operator', 'POST', url, { params: { name: 'alpha', level: 4 }, digest: 7 });
        assert.equal(bad.status, 400, JSON.stringify(bad.body));
        assert.equal(bad.body.error.problems[0].path, 'body.digest');
      } finally {
        await api.app.close();
      }
    });

    it("refuses to move a step's target away from the check that verifies it", async () => {
      const api = await makeApiWorld(store());
      try {
        const { world } = api;
        // P1 restarts atlas-worker (policy asks) and expects service.status on atlas-worker to show it active.
        const draft = restartPlan();
        const p1 = draft.steps[0]!;
        const { plan } = await world.plan({
          ...draft,
          steps: [
            {
              ...p1,
              capability: 'test.write',
              params: { name: 'atlas' },
              precondition: null,
              expectation: { ...p1.expectation!, check: { ...p1.expectation!.check, capability: 'test.read', params: { name: 'atlas' }, field: 'value', comparison: 'exists' } },
            },
            { ...draft.steps[1]!, capability: 'test.read', params: { name: 'atlas' } },
          ],
        });
        const waiting = await waitingStep(api, plan.id);
        const moved = await api.call('operator', 'POST', `/api/v1/minds/${world.mind.name}/approvals/${waiting.approvalId}/amend`, { params: { name: 'hermes' } });
        assert.equal(moved.status, 409, JSON.stringify(moved.body));
        assert.equal(moved.body.error.problems[0].code, 'check_on_old_target');
        assert.deepEqual((await world.store.plans.get(plan.id))!.steps[0]!.params, { name: 'atlas' });
      } finally {
        await api.app.close();
      }
    });

    it('a direct invocation waiting for approval takes an amendment too', async () => {
      const api = await makeApiWorld(store());
      try {
        const id = await pendingApproval(api.world, 'gamma');
        const answer = await api.call('operator', 'POST', `/api/v1/minds/${api.world.mind.id}/approvals/${id}/amend`, { params: { name: 'gamma.one' } });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.approval.target, 'gamma.one');
        assert.equal((await api.call('admin', 'POST', `/api/v1/approvals/${id}/approve`, {})).status, 200);
        assert.equal((await api.world.service.performApproved(id))?.status, 'executed');
        assert.deepEqual(api.world.log.calls, [{ capability: 'test.write', params: { name: 'gamma.one' } }]);
      } finally {
        await api.app.close();
      }
    });

    it('offers MCP no way to amend: no such tool for any token, and an agent token cannot reach the route', async () => {
      const api = await makeApiWorld(store());
      const http = await serveMcp(api.world);
      try {
        const id = await pendingApproval(api.world, 'delta');
        for (const role of ['agent', 'admin'] as const) {
          const client = await connect(http.url, await tokenFor(api.world, role));
          try {
            const names = (await client.listTools()).tools.map((t) => t.name);
            assert.deepEqual(
              names.filter((n) => /amend|edit|change/i.test(n)),
              [],
              `${role}: no amending tool`,
            );
            await refused(client, 'amend_approval', { approval_id: id, params: { name: 'delta.one' } }, /Tool amend_approval not found/);
          } finally {
            await client.close();
          }
        }
        // The token an MCP agent holds, used against the API route itself: forbidden.
        const agentToken = await tokenFor(api.world, 'agent');
        const response = await fetch(http.api(`/api/v1/minds/${api.world.mind.name}/approvals/${id}/amend`), {
          method: 'POST',
          headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ params: { name: 'delta.one' } }),
        });
        assert.equal(response.status, 403);
        const stored = await api.world.store.approvals.get(id);
        assert.equal(stored?.target, 'delta');
        assert.deepEqual(stored?.amendments, []);
      } finally {
        await http.close();
        await api.app.close();
      }
    });
  });
}
