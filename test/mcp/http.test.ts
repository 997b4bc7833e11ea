// The MCP server over streamable HTTP as the daemon mounts it at /mcp, driven by the SDK's
// client: a model proposes and inspects plans; an operator approves outside MCP (through the
// service, or the HTTP API beside /mcp); the executor runs the plan on the simulated host.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { makeWorld, stepsOf, type World } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { connect, ok, refused, restartPlan, serveMcp, tokenFor, UNIT, type McpHttp } from './support.ts';

function textOf(content: object | undefined): string {
  assert.ok(content && 'text' in content && typeof content.text === 'string', 'a JSON text resource');
  return content.text;
}

const TOOLS = ['form_intention', 'list_capabilities', 'preview_decision', 'preview_plan', 'propose_plan', 'show_plan', 'show_timeline', 'withdraw_requests'];

for (const kind of STORE_KINDS) {
  describe(`MCP over HTTP (${kind})`, () => {
    const current = useStore(kind);
    const cleanup: (() => Promise<void> | void)[] = [];
    after(async () => {
      for (const done of cleanup.reverse()) await done();
    });

    async function setUp(): Promise<{ w: World; http: McpHttp; agent: Client }> {
      const w = await makeWorld(current(), { simulated: true });
      const http = await serveMcp(w);
      const agent = await connect(http.url, await tokenFor(w, 'agent'));
      cleanup.push(
        () => w.host?.remove(),
        () => http.close(),
        () => agent.close(),
      );
      return { w, http, agent };
    }

    async function client(http: McpHttp, token: string): Promise<Client> {
      const c = await connect(http.url, token);
      cleanup.push(() => c.close());
      return c;
    }

    it('round trip: capabilities, an intention, a refused draft, a plan that waits for an operator, runs, and reads back its observation', async () => {
      const { w, agent } = await setUp();
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });

      const { tools } = await agent.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS, 'reading and proposing only');
      assert.equal((tools.find((t) => t.name === 'show_plan')!.inputSchema as { additionalProperties?: boolean }).additionalProperties, false);

      const listed = await ok(agent, 'list_capabilities');
      const byName = new Map<string, any>(listed.capabilities.map((c: any) => [c.name, c]));
      const restart = byName.get('service.restart');
      assert.equal(restart.read_only, false);
      assert.equal(restart.policy.decision, 'ask');
      assert.deepEqual(restart.params_schema.required, ['unit']);
      assert.equal(byName.get('service.status').read_only, true);
      assert.equal(byName.get('service.status').policy.decision, 'allow');

      const preview = await ok(agent, 'preview_decision', { capability: 'service.restart', params: { unit: UNIT } });
      assert.deepEqual([preview.decision, preview.needs, preview.target, preview.grant_would_lift], ['ask', 'approval', UNIT, true]);
      assert.equal((await w.store.approvals.list({ mindId: w.mind.id })).length, 0, 'a preview raises nothing');
      const badParams = await refused(agent, 'preview_decision', { capability: 'service.restart', params: { unit: UNIT, force: true } }, /force/);
      assert.match(badParams.json.error.path, /params/);

      const formed = await ok(agent, 'form_intention', { objective: 'Restart atlas-worker.service and confirm it is healthy' });
      const intentionId: string = formed.intention.id;
      assert.equal(formed.intention.origin, 'mcp');
      assert.equal(formed.intention.mindId, w.mind.id);

      // A draft that fails validation is kept as a draft with its errors; its claim of approval is ignored.
      const invalid = { ...restartPlan(), approved: true, steps: [{ ...(restartPlan().steps as any[])[0], capability: 'service.reboot_everything' }] };
      const draft = await ok(agent, 'propose_plan', { intention_id: intentionId, plan: invalid });
      assert.equal(draft.stored, true);
      assert.equal(draft.status, 'draft');
      assert.ok(
        draft.errors.some((e: any) => e.path.startsWith('steps[0]')),
        JSON.stringify(draft.errors),
      );
      assert.ok(
        draft.warnings.some((e: any) => e.code === 'ignored_authority_claim'),
        JSON.stringify(draft.warnings),
      );
      assert.equal((await w.store.plans.get(draft.plan_id))?.status, 'draft');

      // Something that is not a plan at all is refused and nothing is stored.
      const before = (await w.store.plans.listByIntention(intentionId)).length;
      const notPlan = await refused(agent, 'propose_plan', { intention_id: intentionId, plan: 'please restart atlas-worker' }, /must be an object/);
      assert.equal(notPlan.json.error.path, 'plan');
      assert.equal((await w.store.plans.listByIntention(intentionId)).length, before);

      const proposed = await ok(agent, 'propose_plan', { intention_id: intentionId, plan: restartPlan() });
      assert.deepEqual([proposed.status, proposed.errors], ['validated', []]);
      const planId: string = proposed.plan_id;
      assert.equal((await w.store.plans.get(planId))?.origin, 'model');
      // While that plan is live, a second runnable plan for the intention is refused.
      await refused(agent, 'propose_plan', { intention_id: intentionId, plan: restartPlan() }, /plan_in_progress/);

      const executor = w.executor();
      await executor.drain();
      let shown = await ok(agent, 'show_plan', { plan_id: planId });
      const waiting = shown.steps.find((s: any) => s.key === 'P1');
      assert.equal(waiting.status, 'awaiting_approval');
      assert.ok(waiting.approvalId, 'the step names the approval it waits for');
      assert.equal(waiting.approval.status, 'pending', 'and carries it, as the HTTP API shows a plan');
      assert.equal(shown.usage.budget.invocations, 10);
      assert.equal(w.host!.calls().filter((c) => c.argv[0] === 'restart').length, 0, 'nothing restarted without an operator');

      // The operator decides outside MCP.
      assert.equal((await w.service.approve(waiting.approvalId, 'alice')).status, 'approved');
      await executor.drain();
      w.advance(10);
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, planId), { P1: 'completed', V1: 'completed' });

      shown = await ok(agent, 'show_plan', { plan_id: planId });
      assert.equal(shown.plan.status, 'completed');
      const verify = shown.steps.find((s: any) => s.key === 'V1');
      assert.equal(verify.observation.observed, 'active', JSON.stringify(verify.observation));
      assert.ok(shown.steps.find((s: any) => s.key === 'P1').expectation.check);

      const timeline = await ok(agent, 'show_timeline', { plan_id: planId, limit: 200 });
      const types: string[] = timeline.events.map((e: any) => e.type);
      for (const expected of ['plan_created', 'approval_requested', 'tool_executed', 'plan_completed']) assert.ok(types.includes(expected), `${expected} in ${types.join(', ')}`);
      const seqs: number[] = timeline.events.map((e: any) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        'oldest first',
      );
      assert.ok(
        timeline.events.every((e: any) => e.planId === planId || e.planId === null),
        "the refused draft is not in this plan's timeline",
      );
      const limited = await ok(agent, 'show_timeline', { intention_id: intentionId, limit: 2 });
      assert.equal(limited.events.length, 2);
      assert.equal(limited.next_after_seq, limited.events[1].seq);
      const next = await ok(agent, 'show_timeline', { intention_id: intentionId, limit: 2, after_seq: limited.next_after_seq });
      assert.ok(next.events[0].seq > limited.next_after_seq, 'reading on starts after the last event read');
      // Past the largest seq a page can carry, the tool's own field is named (it was refused as a cursor the tool has not).
      const tooFar = await refused(agent, 'show_timeline', { intention_id: intentionId, after_seq: 1_000_000_000_000_000 }, /after_seq/);
      assert.doesNotMatch(tooFar.text, /cursor/);

      const resource = await agent.readResource({ uri: `praxis://plans/${planId}` });
      assert.equal(JSON.parse(textOf(resource.contents[0])).plan.status, 'completed');
      const memories = await agent.readResource({ uri: `praxis://minds/${encodeURIComponent(w.mind.name)}/procedural-memories` });
      const read = JSON.parse(textOf(memories.contents[0]));
      assert.equal(read.memories.length, 1);
      assert.equal(read.memories[0].planId, planId);
    });

    it('through the daemon: an agent proposes over /mcp, an operator approves over the API, the executor runs it, the agent reads the observation', async () => {
      const { w, http, agent } = await setUp();
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });
      const agentToken = await tokenFor(w, 'agent');
      const operatorToken = await tokenFor(w, 'operator');
      const approve = (token: string, id: string) =>
        fetch(http.api(`/api/v1/approvals/${id}/approve`), {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ note: 'checked the unit' }),
        });

      const { intention } = await ok(agent, 'form_intention', { objective: 'Restart atlas-worker.service and confirm it is healthy' });
      const proposed = await ok(agent, 'propose_plan', { intention_id: intention.id, plan: restartPlan() });
      assert.equal(proposed.status, 'validated');
      const planId: string = proposed.plan_id;

      const executor = w.executor();
      await executor.drain();
      const approvalId: string = (await ok(agent, 'show_plan', { plan_id: planId })).steps.find((s: any) => s.key === 'P1').approvalId;
      assert.ok(approvalId, 'P1 waits for an operator');

      // The agent's token holds no authority on the API either.
      const byAgent = await approve(agentToken, approvalId);
      assert.equal(byAgent.status, 403);
      assert.equal(((await byAgent.json()) as any).error.code, 'forbidden');
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'pending');

      const byOperator = await approve(operatorToken, approvalId);
      assert.equal(byOperator.status, 200, await byOperator.clone().text());
      const decided = (await byOperator.json()) as any;
      assert.equal(decided.outcome.status, 'approved');
      assert.equal(decided.approval.id, approvalId);

      await executor.drain();
      w.advance(10);
      await executor.drain();
      assert.deepEqual(await stepsOf(w.store, planId), { P1: 'completed', V1: 'completed' });
      assert.equal(w.host!.calls().filter((c) => c.argv[0] === 'restart').length, 1, 'restarted once');

      const shown = await ok(agent, 'show_plan', { plan_id: planId });
      assert.equal(shown.plan.status, 'completed');
      assert.equal(shown.steps.find((s: any) => s.key === 'V1').observation.observed, 'active');
      const p1 = shown.steps.find((s: any) => s.key === 'P1');
      assert.equal(p1.approval.status, 'executed', JSON.stringify(p1.approval));
      assert.ok(
        p1.approval.decisions.some((d: any) => d.operator === 'operator-one'),
        'the API recorded the deciding operator',
      );
    });

    it('a means intention planned by Praxis itself, and withdrawing its pending approval', async () => {
      const { w, agent } = await setUp();
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed' });
      await refused(agent, 'form_intention', { means: { capability: 'service.restart', params: { unit: UNIT }, target: 'nginx.service' } }, /target_mismatch/);
      const formed = await ok(agent, 'form_intention', { means: { capability: 'service.restart', params: { unit: UNIT } }, plan: true });
      assert.equal(formed.intention.objective, `run service.restart on ${UNIT}`);
      assert.equal(formed.planning.status, 'planned');
      await w.executor().drain();
      const plan = (await w.store.plans.get(formed.planning.plan_id))!;
      const approvalId = plan.steps.find((s) => s.status === 'awaiting_approval')?.approvalId;
      assert.ok(approvalId, `a step waits for approval: ${JSON.stringify(plan.steps.map((s) => [s.key, s.status]))}`);

      const answer = await ok(agent, 'withdraw_requests', { plan_id: plan.id });
      assert.deepEqual(answer.withdrawn.approvals, [approvalId]);
      assert.equal((await w.store.approvals.get(approvalId))?.status, 'withdrawn');
      const again = await ok(agent, 'withdraw_requests', {});
      assert.deepEqual(again.withdrawn, { approvals: [], requests: [] }, 'nothing left to withdraw');

      // A call an operator made for the mind is the operator's question, not the mind's.
      await w.store.policyRules.set({ mindId: w.mind.id, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 1 });
      const call = await w.service.invoke({ mindId: w.mind.id, capability: 'service.restart', params: { unit: UNIT }, origin: 'operator:alice', authoredBy: 'alice' });
      assert.equal(call.status, 'pending');
      const mine = await ok(agent, 'withdraw_requests', {});
      assert.deepEqual([mine.withdrawn, mine.skipped], [{ approvals: [], requests: [] }, []]);
      assert.equal((await w.store.approvals.get(call.status === 'pending' ? call.approvalId : ''))?.status, 'pending');
    });

    it('lists the narrower rules that decide a capability on some targets, glob rules among them, as preview_decision decides', async () => {
      const { w, agent } = await setUp();
      const rule = (capability: string, targetPattern: string, decision: 'allow' | 'ask' | 'deny') => w.store.policyRules.set({ mindId: w.mind.id, capability, targetPattern, decision, approvers: 1 });
      await rule('service.*', 'nginx.service', 'deny');
      await rule('service.restart', 'db*.service', 'allow');
      await rule('service.status', '*', 'allow');
      await rule('service.*', 'cron.service', 'deny'); // outranked for service.status by its own rule for any target
      const listed = await ok(agent, 'list_capabilities');
      const policyOf = (name: string) => listed.capabilities.find((c: any) => c.name === name).policy;
      const targets = (name: string) =>
        policyOf(name)
          .narrower_rules.map((r: any) => `${r.target_pattern} ${r.decision}`)
          .sort();
      assert.deepEqual(targets('service.restart'), ['cron.service deny', 'db*.service allow', 'nginx.service deny']);
      assert.deepEqual(targets('service.status'), []);
      for (const [unit, decision] of [
        ['nginx.service', 'deny'],
        ['db1.service', 'allow'],
        ['cron.service', 'deny'],
      ] as const) {
        assert.equal((await ok(agent, 'preview_decision', { capability: 'service.restart', params: { unit } })).decision, decision, unit);
      }
      assert.equal((await ok(agent, 'preview_decision', { capability: 'service.status', params: { unit: 'cron.service' } })).decision, policyOf('service.status').decision);
    });

    it('refuses every attempt at authority, unknown fields, malformed calls and other minds', async () => {
      const { w, http, agent } = await setUp();
      for (const name of ['approve', 'deny', 'grant', 'set_policy', 'run_step', 'release_step', 'complete', 'mark_completed', 'invoke']) {
        await refused(agent, name, { approval_id: '00000000-0000-7000-8000-000000000000' }, new RegExp(`Tool ${name} not found`));
      }
      const admin = await client(http, await tokenFor(w, 'admin'));
      const adminTools = (await admin.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(adminTools, TOOLS, 'an admin token holds no more authority over MCP');
      await refused(admin, 'approve', {}, /Tool approve not found/);

      // Unknown fields and malformed arguments are errors naming the field; nothing is formed.
      await refused(agent, 'form_intention', { objective: 'look around', approved: true }, /unknown field "approved"/);
      await refused(agent, 'show_plan', {}, /plan_id/);
      await refused(agent, 'show_plan', { plan_id: 'plan-1' }, /plan_id/);
      await refused(agent, 'show_timeline', { limit: '5' }, /limit/);
      await refused(agent, 'preview_decision', { capability: 'service.restart' }, /params/);
      await refused(agent, 'form_intention', {}, /missing_objective/);
      assert.equal((await w.store.intentions.listByMind(w.mind.id)).length, 0, 'refused calls formed nothing');

      // Another mind's things: refused as if they did not exist.
      const other = await w.store.minds.create({ name: `other-${w.mind.name}` });
      const { plan, intention } = await w.plan(
        {
          objective: 'theirs',
          strategy: 'operator',
          assumptions: [],
          completion_criteria: '',
          abort_conditions: [],
          risk: '',
          estimate: {},
          budget: { invocations: 5 },
          alternatives: [],
          steps: [
            {
              key: 'S',
              title: 's',
              kind: 'capability',
              depends_on: [],
              capability: 'service.status',
              target: '',
              params: { unit: UNIT },
              expectation: null,
              precondition: null,
              max_attempts: 1,
              require_approval: false,
              spec: {},
            },
          ],
        } as any,
        { mind: other },
      );
      const hidden = await refused(agent, 'show_plan', { plan_id: plan.id }, /unknown_plan/);
      const missing = await refused(agent, 'show_plan', { plan_id: '00000000-0000-7000-8000-000000000000' }, /unknown_plan/);
      assert.equal(hidden.json.error.message.replace(plan.id, 'X'), missing.json.error.message.replace('00000000-0000-7000-8000-000000000000', 'X'), 'no difference leaks');
      await refused(agent, 'propose_plan', { intention_id: intention.id, plan: restartPlan() }, /unknown_intention/);
      await refused(agent, 'show_timeline', { intention_id: intention.id }, /unknown_intention/);
      await refused(agent, 'withdraw_requests', { plan_id: plan.id }, /unknown_plan/);
      await refused(agent, 'list_capabilities', { mind: other.name }, /not_your_mind/);
      await assert.rejects(agent.readResource({ uri: `praxis://plans/${plan.id}` }), /unknown_plan|no plan/);
      await assert.rejects(agent.readResource({ uri: `praxis://minds/${other.name}/procedural-memories` }), /this token speaks for mind/);
      assert.equal((await w.store.plans.listByIntention(intention.id)).length, 1, 'nothing was added to their intention');

      // An operator names the mind; a viewer reads but cannot propose.
      const operator = await client(http, await tokenFor(w, 'operator'));
      await refused(operator, 'list_capabilities', {}, /missing_mind/);
      assert.equal((await ok(operator, 'show_plan', { plan_id: plan.id })).plan.id, plan.id);
      const viewer = await client(http, await tokenFor(w, 'viewer'));
      assert.ok((await ok(viewer, 'list_capabilities', { mind: other.id })).capabilities.length > 0);
      await refused(viewer, 'form_intention', { mind: other.name, objective: 'look around' }, /forbidden/);
      await refused(viewer, 'propose_plan', { intention_id: intention.id, plan: restartPlan() }, /forbidden/);
      await refused(viewer, 'withdraw_requests', { mind: other.name }, /forbidden/);
      assert.equal((await w.store.intentions.listByMind(other.id)).length, 1);
    });

    it('answers 401 without a token or with a bad one, and 405 for GET', async () => {
      const { w, http } = await setUp();
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
      const post = (headers: Record<string, string>) =>
        fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });
      for (const headers of [{}, { authorization: 'Bearer praxis_not-a-real-token' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
        const response = await post(headers);
        assert.equal(response.status, 401);
        assert.equal(((await response.json()) as any).error.code, 'unauthenticated');
      }
      const revoked = await tokenFor(w, 'agent');
      const record = (await w.store.accessTokens.list()).filter((t) => t.mindId === w.mind.id).at(-1)!;
      await w.store.accessTokens.revoke(record.id);
      assert.equal((await post({ authorization: `Bearer ${revoked}` })).status, 401);
      await assert.rejects(connect(http.url, 'praxis_bogus'), /401|unauthenticated/);

      const good = await tokenFor(w, 'viewer');
      assert.equal((await post({ authorization: `Bearer ${good}` })).status, 200);
      assert.equal((await fetch(http.url, { headers: { authorization: `Bearer ${good}` } })).status, 405);
    });
  });
}
