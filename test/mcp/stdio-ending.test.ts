// How a stdio session ends, in process on both stores: the client closing stdin, or a stop, lets
// every message already read be handled and answered before serveMcpOverStdio returns (after
// which the CLI closes the store), and a stop gives up on calls still running after its grace.

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { authenticate, issueToken } from '../../src/access/tokens.ts';
import type { ModelReply, ModelRole } from '../../src/drafting/model-role.ts';
import type { McpServerOptions } from '../../src/mcp/deps.ts';
import { serveMcpOverStdio, type StdioLimits, type StdioSession } from '../../src/mcp/stdio.ts';
import { useWorlds, type World } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { OBJECTIVE, goodPlan } from '../planning/planner-fake-model.ts';

/** A model that answers a good plan only when released; `asked` resolves once it is called. */
function heldModel(): ModelRole & { asked: Promise<void>; release(): void } {
  let asked!: () => void;
  let release!: () => void;
  const askedPromise = new Promise<void>((resolve) => (asked = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    model: 'held-planner',
    baseUrl: 'http://127.0.0.1:1/v1',
    asked: askedPromise,
    release,
    async complete(): Promise<ModelReply> {
      asked();
      await released;
      return { outcome: 'answered', content: JSON.stringify(goodPlan), message: '', statusCode: 200, finishReason: 'stop', promptTokens: 10, completionTokens: 20, latencyMs: 5 };
    },
  };
}

interface Session {
  send(message: Record<string, unknown>): void;
  input: PassThrough;
  /** Every message written to stdout so far, parsed. */
  out: Record<string, any>[];
  stop: AbortController;
  serving: Promise<StdioSession>;
}

async function open(world: World, model: ModelRole, limits?: StdioLimits): Promise<Session> {
  const { token } = await issueToken(world.store, { operator: 'model-one', role: 'agent', mindId: world.mind.id });
  const principal = (await authenticate(world.store, token))!;
  const options: McpServerOptions = { store: world.store, registry: world.registry, capabilities: world.service, planning: { registry: world.registry, model }, principal };
  const input = new PassThrough();
  const output = new PassThrough();
  const out: Record<string, any>[] = [];
  let pending = '';
  output.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      out.push(JSON.parse(pending.slice(0, at)) as Record<string, any>);
      pending = pending.slice(at + 1);
    }
  });
  const stop = new AbortController();
  const serving = serveMcpOverStdio(options, { input, output }, stop.signal, limits);
  const send = (message: Record<string, unknown>) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'praxis-test', version: '0.0.0' } } });
  send({ method: 'notifications/initialized' });
  return { send, input, out, stop, serving };
}

const planNow = (id: number) => ({ id, method: 'tools/call', params: { name: 'form_intention', arguments: { objective: OBJECTIVE, plan: true } } });

function answerTo(out: Record<string, any>[], id: number): Record<string, any> {
  const found = out.find((m) => m.id === id);
  assert.ok(found, `no answer to request ${id}: ${JSON.stringify(out.map((m) => m.id))}`);
  assert.equal(found.error, undefined, JSON.stringify(found.error));
  assert.notEqual(found.result?.isError, true, JSON.stringify(found.result));
  return JSON.parse(found.result.content[0].text) as Record<string, any>;
}

for (const kind of STORE_KINDS) {
  describe(`ending a stdio session (${kind})`, () => {
    const worlds = useWorlds(useStore(kind));

    it('stdin closing while a call waits on the model: it returns only once the call is answered and its model call and plan are stored', async () => {
      const w = await worlds({ simulated: true });
      const model = heldModel();
      const session = await open(w, model);
      session.send(planNow(1));
      await model.asked;
      session.input.end();
      // The session has read the end; the call is still with the model.
      await new Promise((resolve) => setImmediate(resolve));
      model.release();
      const ended = await session.serving;
      const { intention, planning } = answerTo(session.out, 1);
      assert.equal(planning.status, 'planned', JSON.stringify(planning));
      const calls = await w.store.llmCalls.listByIntention(intention.id as string);
      assert.deepEqual(
        calls.map((c) => c.outcome),
        ['answered'],
      );
      const events = await w.store.events.list({ planId: planning.plan_id as string });
      assert.ok(events.length > 0, 'the plan has its events');
      assert.deepEqual(ended, { end: 'client_closed', abandoned: 0 });
    });

    it('stdin closing after many messages: every one queued is handled and answered', async () => {
      const w = await worlds({ simulated: true });
      const session = await open(w, heldModel());
      for (let i = 1; i <= 10; i++) {
        session.send({ id: i, method: 'tools/call', params: { name: 'form_intention', arguments: { objective: `queued objective ${i}` } } });
        session.send({ id: 100 + i, method: 'tools/call', params: { name: 'show_timeline', arguments: { limit: 1 } } });
      }
      session.input.end();
      const ended = await session.serving;
      for (let i = 1; i <= 10; i++) {
        answerTo(session.out, i);
        answerTo(session.out, 100 + i);
      }
      const objectives = (await w.store.intentions.listByMind(w.mind.id)).map((i) => i.objective);
      for (let i = 1; i <= 10; i++) assert.ok(objectives.includes(`queued objective ${i}`), `queued objective ${i} stored`);
      assert.deepEqual(ended, { end: 'client_closed', abandoned: 0 });
    });

    it('a stop while a call waits on the model: nothing more is read, and the call is finished and answered within the grace', async () => {
      const w = await worlds({ simulated: true });
      const model = heldModel();
      // A grace no test run reaches: the release below ends the wait.
      const session = await open(w, model, { graceMs: 600_000 });
      session.send(planNow(1));
      await model.asked;
      session.stop.abort();
      session.send({ id: 2, method: 'tools/call', params: { name: 'form_intention', arguments: { objective: 'sent after the stop' } } });
      await new Promise((resolve) => setImmediate(resolve));
      model.release();
      const ended = await session.serving;
      const { intention, planning } = answerTo(session.out, 1);
      assert.equal(planning.status, 'planned', JSON.stringify(planning));
      assert.equal((await w.store.llmCalls.listByIntention(intention.id as string)).length, 1);
      assert.ok(!session.out.some((m) => m.id === 2), 'a message sent after the stop is not handled');
      assert.ok(!(await w.store.intentions.listByMind(w.mind.id)).some((i) => i.objective === 'sent after the stop'));
      assert.deepEqual(ended, { end: 'stopped', abandoned: 0 });
    });

    it('a stop whose grace runs out: the call still running is counted, not answered', async () => {
      const w = await worlds({ simulated: true });
      const model = heldModel();
      const session = await open(w, model, { graceMs: 50 });
      session.send(planNow(1));
      await model.asked;
      session.stop.abort();
      // The model never answers in time: the grace decides, however long it takes to run out.
      const ended = await session.serving;
      assert.ok(!session.out.some((m) => m.id === 1), 'no answer for the abandoned call');
      assert.deepEqual(ended, { end: 'stopped', abandoned: 1 });
      // Let the abandoned call finish (it stores its plan) before the suite closes the store.
      model.release();
      while ((await w.store.plans.listByMind(w.mind.id)).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    });
  });
}
