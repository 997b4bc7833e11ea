// `praxis mcp` as a desktop client runs it: a child process speaking MCP on stdin/stdout for the
// token it was given, and refusing to start without a valid one.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { issueToken } from '../../src/access/tokens.ts';
import { openStore, type MindRecord } from '../../src/store/index.ts';
import { ok, refused, restartPlan } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-mcp-'));
const db = join(dir, 'praxis.db');
let mind: MindRecord;
let token: string;

/** The environment without any token the developer's shell may carry. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  const { PRAXIS_TOKEN: _drop, ...rest } = process.env;
  return { ...(rest as Record<string, string>), ...extra };
}

async function withStore<T>(work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const store = await openStore({ kind: 'sqlite', path: db });
  try {
    await store.migrate();
    return await work(store);
  } finally {
    await store.close();
  }
}

describe('praxis mcp over stdio', () => {
  before(async () => {
    await withStore(async (store) => {
      mind = await store.minds.create({ name: 'atlas' });
      token = (await issueToken(store, { operator: 'model-one', role: 'agent', mindId: mind.id })).token;
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves an agent token from PRAXIS_TOKEN: reads, forms an intention, proposes a plan, and nothing else', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ['bin/praxis.js', 'mcp', '--db', db], env: env({ PRAXIS_TOKEN: token }), stderr: 'pipe' });
    const client = new Client({ name: 'praxis-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const listed = await ok(client, 'list_capabilities');
      assert.equal(listed.mind.name, 'atlas');
      const formed = await ok(client, 'form_intention', { objective: 'Restart atlas-worker.service and confirm it is healthy' });
      const proposed = await ok(client, 'propose_plan', { intention_id: formed.intention.id, plan: restartPlan() });
      assert.equal(proposed.status, 'validated');
      await refused(client, 'approve', { approval_id: formed.intention.id }, /Tool approve not found/);
    } finally {
      await client.close();
    }
    await withStore(async (store) => {
      const [plan] = await store.plans.listByMind(mind.id);
      assert.equal(plan?.origin, 'model');
      assert.equal(plan?.status, 'validated');
    });
  });

  it('ends the session once its token is revoked: nothing more is served, and nothing is written', async () => {
    const issued = await withStore((store) => issueToken(store, { operator: 'model-two', role: 'agent', mindId: mind.id }));
    const transport = new StdioClientTransport({ command: process.execPath, args: ['bin/praxis.js', 'mcp', '--db', db], env: env({ PRAXIS_TOKEN: issued.token }), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'praxis-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      assert.equal((await ok(client, 'list_capabilities')).mind.name, 'atlas');
      await withStore((store) => store.accessTokens.revoke(issued.record.id));
      await assert.rejects(client.callTool({ name: 'form_intention', arguments: { objective: 'Read the logs after the revocation' } }), 'the call is not answered: the session closed');
    } finally {
      await client.close();
    }
    assert.match(stderr, /the token was revoked or has expired; closing the session/);
    await withStore(async (store) => {
      const intentions = await store.intentions.listByMind(mind.id);
      assert.ok(!intentions.some((i) => i.objective === 'Read the logs after the revocation'));
    });
  });

  it('refuses to start without a token or with an invalid one: exit code 2, a message on stderr, nothing on stdout', () => {
    const run = (args: string[], extra: Record<string, string> = {}) =>
      spawnSync(process.execPath, ['bin/praxis.js', 'mcp', '--db', db, ...args], { env: env(extra), input: '', encoding: 'utf8', timeout: 30_000 });
    const missing = run([]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /no token.*PRAXIS_TOKEN/);
    assert.equal(missing.stdout, '');
    const bad = run(['--token', 'praxis_not-issued']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown, revoked or expired/);
    assert.equal(bad.stdout, '');
  });
});
