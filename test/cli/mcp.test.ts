// `praxis mcp` as a process, on both stores: how a session ends (stdin closing, signals, a revoked
// token) and with which exit code, and what a session that only reads leaves on disk.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultSecretFile } from '../../src/access/daemon-secret.ts';
import { issueToken } from '../../src/access/tokens.ts';
import type { StoreConfig } from '../../src/store/config.ts';
import { BIN, exampleRestart, storeEnv } from '../daemon/process.ts';
import { startFakeModel, type FakeModel } from '../planning/planner-fake-model.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const INITIALIZE = { id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'praxis-test', version: '0.0.0' } } };

interface McpProcess {
  child: ChildProcess;
  /** Every message written to stdout so far, parsed. */
  out: Record<string, any>[];
  stderr(): string;
  send(message: Record<string, unknown>): void;
  /** Resolves with the answer to request `id` once it is written. */
  answer(id: number): Promise<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment with nothing the developer's shell may carry for a token, a secret or a model. */
function cleanEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  for (const name of Object.keys(env)) if (/^PRAXIS_(TOKEN|SECRET_FILE|MODEL)/.test(name)) delete env[name];
  return env;
}

/** `praxis mcp` for `token`, initialised; `cwd` is where a PostgreSQL store's default secret would go. */
function startMcp(config: StoreConfig, token: string, cwd: string, extra: Record<string, string> = {}): McpProcess {
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd, env: { ...cleanEnv(), ...storeEnv(config), PRAXIS_TOKEN: token, ...extra }, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Record<string, any>[] = [];
  const waiting = new Map<number, (message: Record<string, any>) => void>();
  let pending = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      const message = JSON.parse(pending.slice(0, at)) as Record<string, any>;
      pending = pending.slice(at + 1);
      out.push(message);
      waiting.get(message.id)?.(message);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // A child that exits before reading all its input makes the pipe fail; that is for the test to judge.
  child.stdin!.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
  const send = (message: Record<string, unknown>) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send(INITIALIZE);
  send({ method: 'notifications/initialized' });
  return {
    child,
    out,
    stderr: () => stderr,
    send,
    answer: (id) => {
      const found = out.find((m) => m.id === id);
      if (found) return Promise.resolve(found);
      return Promise.race([new Promise<Record<string, any>>((done) => waiting.set(id, done)), exited.then(() => Promise.reject(new Error(`exited without answering ${id}; stderr: ${stderr}`)))]);
    },
    exited,
  };
}

function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return { id, method: 'tools/call', params: { name, arguments: args } };
}

/** A tool's answer that is no error, parsed. */
function content(message: Record<string, any>): Record<string, any> {
  assert.equal(message.error, undefined, JSON.stringify(message.error));
  assert.notEqual(message.result?.isError, true, JSON.stringify(message.result));
  return JSON.parse(message.result.content[0].text) as Record<string, any>;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((done) => setTimeout(done, 10));
}

for (const kind of STORE_KINDS) {
  describe(`praxis mcp, a session's end and what it leaves (${kind})`, () => {
    const current = useStore(kind);
    let cwd: string;
    let fake: FakeModel;
    before(async () => {
      cwd = mkdtempSync(join(tmpdir(), 'praxis-mcp-cwd-'));
      fake = await startFakeModel();
    });
    after(async () => {
      await fake.close();
      rmSync(cwd, { recursive: true, force: true });
    });

    async function agentToken(): Promise<{ token: string; mind: string; tokenId: string }> {
      const { store } = current();
      const mind = await store.minds.create({ name: `atlas-${Math.random().toString(36).slice(2, 8)}` });
      const issued = await issueToken(store, { operator: 'model-one', role: 'agent', mindId: mind.id });
      return { token: issued.token, mind: mind.name, tokenId: issued.record.id };
    }

    it('stdin closing after twenty calls: every one is answered and done before the store closes, exit 0', async () => {
      const { store, config } = current();
      const { token, mind } = await agentToken();
      const mcp = startMcp(config, token, cwd);
      for (let i = 1; i <= 10; i++) {
        mcp.send(toolCall(i, 'form_intention', { mind, objective: `queued objective ${i}` }));
        mcp.send(toolCall(100 + i, 'show_timeline', { limit: 1 }));
      }
      mcp.child.stdin!.end();
      const { code } = await mcp.exited;
      assert.equal(code, 0, mcp.stderr());
      assert.deepEqual(
        mcp.out.map((m) => m.id).sort((a, b) => a - b),
        [0, ...Array.from({ length: 10 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => 101 + i)],
        mcp.stderr(),
      );
      for (const message of mcp.out.filter((m) => m.id !== 0)) content(message);
      const record = (await store.minds.list()).find((m) => m.name === mind)!;
      const objectives = (await store.intentions.listByMind(record.id)).map((i) => i.objective).sort();
      assert.equal(objectives.length, 10);
      assert.doesNotMatch(mcp.stderr(), /praxis mcp:/, 'nothing went wrong');
    });

    it('model variables that name no usable model: refused before the session starts, exit 2, each named', async () => {
      const { token } = await agentToken();
      const mcp = startMcp(current().config, token, cwd, { PRAXIS_MODEL_BASE_URL: fake.baseURL, PRAXIS_MODEL_TIMEOUT_MS: 'soon' });
      const { code } = await mcp.exited;
      assert.equal(code, 2, mcp.stderr());
      assert.deepEqual(mcp.out, [], 'no session was served');
      assert.match(mcp.stderr(), /error invalid_model_config at PRAXIS_MODEL: PRAXIS_MODEL is not set/);
      assert.match(mcp.stderr(), /error invalid_model_config at PRAXIS_MODEL_TIMEOUT_MS: "soon"/);
    });

    it('a token revoked during the session ends it with exit 2, the call after it unanswered', async () => {
      const { store, config } = current();
      const { token, tokenId } = await agentToken();
      const mcp = startMcp(config, token, cwd);
      await mcp.answer(0);
      await store.accessTokens.revoke(tokenId);
      mcp.send(toolCall(1, 'show_timeline', { limit: 1 }));
      const { code } = await mcp.exited;
      assert.equal(code, 2, mcp.stderr());
      assert.ok(!mcp.out.some((m) => m.id === 1));
      assert.match(mcp.stderr(), /the token was revoked or has expired; closing the session/);
    });

    describe('input that cannot be read', () => {
      it('a line that is not JSON and one that is no JSON-RPC message: each answered with id null and said on stderr, the session goes on', async () => {
        const { config } = current();
        const { token } = await agentToken();
        const mcp = startMcp(config, token, cwd);
        mcp.child.stdin!.write('{not json\n');
        mcp.child.stdin!.write('{"hello": 1}\n');
        mcp.send(toolCall(1, 'show_timeline', { limit: 1 }));
        mcp.child.stdin!.end();
        const { code } = await mcp.exited;
        assert.equal(code, 0, mcp.stderr());
        const unread = mcp.out.filter((m) => m.id === null);
        assert.deepEqual(
          unread.map((m) => m.error.code),
          [-32700, -32600],
        );
        assert.match(unread[0]!.error.message, /^Parse error/);
        assert.match(unread[1]!.error.message, /^Invalid Request/);
        content(await mcp.answer(1));
        assert.match(mcp.stderr(), /a message is not JSON \(.+\); answered with a parse error \(-32700\)/);
        assert.match(mcp.stderr(), /a message is not a JSON-RPC 2\.0 request, notification or response; answered with an invalid request error \(-32600\)/);
      });

      it('a message over 10 MiB ends the session after the calls before it: an error answer, the limit on stderr, exit 1', async () => {
        const { config } = current();
        const { token } = await agentToken();
        const mcp = startMcp(config, token, cwd);
        mcp.send(toolCall(1, 'show_timeline', { limit: 1 }));
        mcp.send(toolCall(2, 'form_intention', { objective: 'x'.repeat(20 * 1024 * 1024) }));
        mcp.send(toolCall(3, 'show_timeline', { limit: 1 }));
        mcp.child.stdin!.end();
        const { code } = await mcp.exited;
        assert.equal(code, 1, mcp.stderr());
        content(await mcp.answer(1));
        assert.ok(!mcp.out.some((m) => m.id === 2 || m.id === 3), 'nothing after the oversized message is read');
        const refused = mcp.out.find((m) => m.id === null);
        assert.equal(refused?.error.code, -32600);
        assert.match(refused?.error.message, /over 10485760 bytes/);
        assert.match(mcp.stderr(), /a message over 10485760 bytes \(10 MiB, the most one message may be\) cannot be read; ending the session/);
      });
    });

    describe('signals while a call waits on the model', () => {
      const modelEnv = () => ({ PRAXIS_MODEL_BASE_URL: fake.baseURL, PRAXIS_MODEL: 'fake-planner', PRAXIS_MODEL_TIMEOUT_MS: '120000' });

      async function waitingOnTheModel(): Promise<McpProcess> {
        const { config } = current();
        const { token, mind } = await agentToken();
        const mcp = startMcp(config, token, cwd, modelEnv());
        await mcp.answer(0);
        const asked = fake.requests.length;
        fake.next({ kind: 'hang' });
        mcp.send(toolCall(1, 'form_intention', { mind, objective: 'make sure /var has room for the nightly export', plan: true }));
        await until(() => fake.requests.length > asked);
        return mcp;
      }

      it('SIGTERM: the call is given five seconds, then the process exits 3 saying it ended without its answer', async () => {
        const mcp = await waitingOnTheModel();
        mcp.child.kill('SIGTERM');
        const { code } = await mcp.exited;
        assert.equal(code, 3, mcp.stderr());
        assert.match(mcp.stderr(), /1 call\(s\) still running 5000 ms after the stop; ending without their answers/);
        assert.ok(!mcp.out.some((m) => m.id === 1));
      });

      it('a second signal exits 3 at once', async () => {
        const mcp = await waitingOnTheModel();
        mcp.child.kill('SIGTERM');
        mcp.child.kill('SIGINT');
        const { code } = await mcp.exited;
        assert.equal(code, 3, mcp.stderr());
        assert.match(mcp.stderr(), /second signal: exiting without waiting/);
      });
    });

    describe('the daemon secret', () => {
      const secretFile = () => resolve(cwd, defaultSecretFile(current().config)!);

      it("a viewer's session, and an agent's that reads and forms intentions, write no daemon secret; preview_decision, which needs it, does", async () => {
        const { store, config } = current();
        rmSync(secretFile(), { force: true });
        const { token: agent, mind } = await agentToken();
        const viewer = (await issueToken(store, { operator: 'viewer-one', role: 'viewer' })).token;

        const viewing = startMcp(config, viewer, cwd);
        viewing.send(toolCall(1, 'list_capabilities', { mind }));
        viewing.send(toolCall(2, 'show_timeline', { mind, limit: 5 }));
        viewing.send(toolCall(3, 'preview_plan', { mind, plan: exampleRestart() }));
        viewing.child.stdin!.end();
        assert.equal((await viewing.exited).code, 0, viewing.stderr());
        for (const id of [1, 2, 3]) content(viewing.out.find((m) => m.id === id)!);

        const agentSession = startMcp(config, agent, cwd);
        agentSession.send(toolCall(1, 'list_capabilities', { mind }));
        agentSession.send(toolCall(2, 'form_intention', { mind, objective: 'Read the logs of atlas-worker.service', plan: true }));
        agentSession.child.stdin!.end();
        assert.equal((await agentSession.exited).code, 0, agentSession.stderr());
        for (const id of [1, 2]) content(agentSession.out.find((m) => m.id === id)!);
        assert.equal(existsSync(secretFile()), false, `no secret at ${secretFile()}`);

        const previewing = startMcp(config, agent, cwd);
        previewing.send(toolCall(1, 'preview_decision', { mind, capability: 'service.restart', params: { unit: 'atlas-worker.service' } }));
        previewing.child.stdin!.end();
        assert.equal((await previewing.exited).code, 0, previewing.stderr());
        content(previewing.out.find((m) => m.id === 1)!);
        assert.equal(existsSync(secretFile()), true, 'preview_decision keys the capability service with the secret');
      });
    });
  });
}
