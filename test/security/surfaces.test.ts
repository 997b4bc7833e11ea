// Hardening of the surfaces (issue 15): only expected hosts and the console's own origin
// (finding 3, DNS rebinding), /mcp says 401 before anything else (8), the input rule over MCP
// tools (1), tokens never reach a log line (6), the model server's words are masked (2), and
// four eyes compare normalised names and refuse an authorless action (5).

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { issueToken } from '../../src/access/tokens.ts';
import { fourEyesRefusal, isOperatorName, normaliseOperator, sameOperator } from '../../src/core/operator.ts';
import { resolveDaemonConfig } from '../../src/daemon/config.ts';
import { createLogger, redactLogLine } from '../../src/daemon/logger.ts';
import type { ModelReply, ModelRole } from '../../src/drafting/model-role.ts';
import { InputError } from '../../src/core/errors.ts';
import { draftOf, step } from '../execution/support.ts';
import { call, connect, serveMcp, tokenFor } from '../mcp/support.ts';
import { makeApiWorld, pendingApproval, serverFor } from '../server/support.ts';
import { makeWorld } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const kind = STORE_KINDS[0]!;

function send(options: { port: number; method: string; path: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: options.port, method: options.method, path: options.path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('only expected hosts, only the console origin (finding 3)', () => {
  const store = useStore(kind);

  it('a DNS-rebinding request in anonymous operator mode is refused and changes nothing', async () => {
    const api = await makeApiWorld(store(), { anonymousRole: 'operator' });
    try {
      const approval = await pendingApproval(api.world);
      const rebound = await api.app.inject({
        method: 'POST',
        url: `/api/v1/approvals/${approval}/approve`,
        // What a page on rebind.evil.example sends once its name resolves to 127.0.0.1: to the
        // browser it is a same-origin JSON request.
        headers: { host: 'rebind.evil.example:7300', origin: 'http://rebind.evil.example:7300', 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(rebound.statusCode, 403, rebound.body);
      const body = rebound.json();
      assert.equal(body.error.code, 'host_not_allowed');
      assert.equal(body.error.problems[0].path, 'headers.host');
      assert.equal((await api.world.store.approvals.get(approval))?.status, 'pending');
      assert.equal(api.world.log.calls.length, 0, 'nothing ran');

      // Reads through a rebound name are refused too, probes included.
      for (const url of ['/api/v1/approvals', '/healthz', '/docs/json']) {
        const read = await api.app.inject({ method: 'GET', url, headers: { host: 'rebind.evil.example' } });
        assert.equal(read.statusCode, 403, url);
      }
      // The same request from the console on the daemon's own address goes through.
      const own = await api.app.inject({
        method: 'POST',
        url: `/api/v1/approvals/${approval}/approve`,
        headers: { host: 'localhost:7300', origin: 'http://localhost:7300', 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(own.statusCode, 200, own.body);
    } finally {
      await api.app.close();
    }
  });

  it('a state-changing request from another origin is refused with 403; hosts named in the configuration are served', async () => {
    const api = await makeApiWorld(store(), { anonymousRole: 'operator', allowedHosts: ['praxis.internal.example'] });
    try {
      const approval = await pendingApproval(api.world);
      const post = (headers: Record<string, string>) =>
        api.app.inject({ method: 'POST', url: `/api/v1/approvals/${approval}/deny`, headers: { 'content-type': 'application/json', ...headers }, payload: '{}' });
      for (const origin of ['http://evil.example', 'null', 'http://localhost:9999', 'file://']) {
        const refused = await post({ host: 'localhost:7300', origin });
        assert.equal(refused.statusCode, 403, origin);
        assert.equal(refused.json().error.code, 'origin_not_allowed');
        assert.equal(refused.json().error.problems[0].path, 'headers.origin');
      }
      assert.equal((await api.world.store.approvals.get(approval))?.status, 'pending');
      for (const host of ['127.0.0.1:7300', '[::1]:7300', 'LOCALHOST:7300', 'praxis.internal.example', 'Praxis.Internal.Example:443']) {
        const read = await api.app.inject({ method: 'GET', url: '/api/v1/approvals', headers: { host } });
        assert.equal(read.statusCode, 200, host);
      }
      for (const host of ['evil.example', 'praxis.internal.example.evil.example', '127.0.0.1.nip.io', 'localhost.evil.example', 'a b', '[::1', 'x:1:2']) {
        const read = await api.app.inject({ method: 'GET', url: '/api/v1/approvals', headers: { host } });
        assert.equal(read.statusCode, 403, JSON.stringify(host));
      }
      const fromConsole = await post({ host: 'praxis.internal.example', origin: 'https://praxis.internal.example' });
      assert.equal(fromConsole.statusCode, 200, fromConsole.body);
    } finally {
      await api.app.close();
    }
  });

  it('over a real socket the port must be the one reached; the MCP endpoint is guarded the same way', async () => {
    const world = await makeWorld(store());
    const app = await serverFor(world, { anonymousRole: 'viewer' });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as { port: number }).port;
      assert.equal((await send({ port, method: 'GET', path: '/api/v1/whoami', headers: { host: `127.0.0.1:${port}` } })).status, 200);
      assert.equal((await send({ port, method: 'GET', path: '/api/v1/whoami', headers: { host: `localhost:${port}` } })).status, 200);
      assert.equal((await send({ port, method: 'GET', path: '/api/v1/whoami', headers: { host: `localhost:${port + 1}` } })).status, 403);
      assert.equal((await send({ port, method: 'GET', path: '/api/v1/whoami', headers: { host: `rebind.evil.example:${port}` } })).status, 403);
      const mcp = await send({ port, method: 'POST', path: '/mcp', headers: { host: `rebind.evil.example:${port}`, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(mcp.status, 403);
    } finally {
      await app.close();
    }
  });

  it('allowedHosts comes from PRAXIS_ALLOWED_HOSTS, --allowed-hosts or the file, and bad names are refused', () => {
    const around = { defaultConsoleDir: null, defaultExecutorHost: 'h', consoleAt: (p: string) => p };
    const fromEnv = resolveDaemonConfig({}, { PRAXIS_ALLOWED_HOSTS: 'Praxis.Example.com, ops.example.com' }, null, around);
    assert.deepEqual(fromEnv.allowedHosts, ['praxis.example.com', 'ops.example.com']);
    const fromFile = resolveDaemonConfig({}, {}, { path: 'c.yaml', values: { allowedHosts: ['a.example', '[::1]'] } }, around);
    assert.deepEqual(fromFile.allowedHosts, ['a.example', '[::1]']);
    assert.deepEqual(resolveDaemonConfig({ allowedHosts: 'b.example' }, { PRAXIS_ALLOWED_HOSTS: 'c.example' }, null, around).allowedHosts, ['b.example']);
    assert.throws(
      () => resolveDaemonConfig({}, { PRAXIS_ALLOWED_HOSTS: 'ok.example,not a host,evil.example/x' }, null, around),
      (error: unknown) => error instanceof InputError && error.problems[0]?.code === 'invalid_allowed_hosts' && error.problems[0].path === 'PRAXIS_ALLOWED_HOSTS',
    );
  });
});

describe('/mcp without a token (finding 8) and the input rule over MCP tools (finding 1)', () => {
  const store = useStore(kind);

  it('DELETE, GET and POST /mcp without a token answer 401, whatever the body', async () => {
    const world = await makeWorld(store());
    const mcp = await serveMcp(world);
    try {
      for (const [method, headers, body] of [
        ['DELETE', { 'content-type': 'application/json' }, ''],
        ['DELETE', {}, undefined],
        ['GET', {}, undefined],
        ['POST', { 'content-type': 'application/json' }, ''],
        ['POST', { 'content-type': 'text/plain' }, 'x'],
        ['POST', { 'content-type': 'application/json' }, '{not json'],
      ] as const) {
        const answer = await fetch(mcp.url, { method, headers, ...(body !== undefined ? { body } : {}) });
        assert.equal(answer.status, 401, `${method} ${JSON.stringify(headers)} ${String(body)}`);
        assert.equal(((await answer.json()) as any).error.code, 'unauthenticated');
      }
    } finally {
      await mcp.close();
    }
  });

  it('a NUL in propose_plan or form_intention, or arguments nested too deep, is refused naming the field; nothing is stored', async () => {
    const world = await makeWorld(store());
    const mcp = await serveMcp(world);
    const client = await connect(mcp.url, await tokenFor(world, 'agent'));
    try {
      const formed = await call(client, 'form_intention', { objective: 'look at logs' });
      assert.equal(formed.isError, false, formed.text);
      const intentionId = formed.json.intention.id as string;
      const plansBefore = (await world.store.plans.listByIntention(intentionId)).length;
      const intentionsBefore = (await world.store.intentions.listPage(world.mind.id, { limit: 100 })).length;

      const nul = await call(client, 'propose_plan', {
        intention_id: intentionId,
        plan: { ...draftOf([step('S1', { kind: 'capability', capability: 'test.read', params: { name: 'x' } })]), objective: 'nul\u0000' },
      });
      assert.equal(nul.isError, true, nul.text);
      assert.equal(nul.json.error.code, 'control_character');
      assert.equal(nul.json.error.path, 'plan.objective');

      let deep: unknown = 'x';
      for (let i = 0; i < 3_000; i += 1) deep = { value: deep };
      const nested = await call(client, 'form_intention', { means: { capability: 'test.read', params: { name: 'x', deep } } });
      assert.equal(nested.isError, true);
      assert.equal(nested.json.error.code, 'too_deep');

      const objective = await call(client, 'form_intention', { objective: 'bell\u0007' });
      assert.equal(objective.isError, true);
      assert.equal(objective.json.error.path, 'objective');

      assert.equal((await world.store.plans.listByIntention(intentionId)).length, plansBefore);
      assert.equal((await world.store.intentions.listPage(world.mind.id, { limit: 100 })).length, intentionsBefore);
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});

describe('no secret leaves (findings 2 and 6)', () => {
  const store = useStore(kind);

  it('a token in a query string never reaches a log line, however often the URL is logged', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('trace', sink);
    const world = await makeWorld(store());
    const { token } = await issueToken(world.store, { operator: 'olga', role: 'operator' });
    const app = await serverFor(world, { logger: logger.child({ component: 'http' }) as unknown as FastifyBaseLogger });
    try {
      for (const url of [`/api/v1/minds?token=${token}`, `/api/v1/stream?access_token=${token}&mind=x`, `/nowhere?api_key=${token}`, `/mcp?token=${token}`]) {
        await app.inject({ method: 'GET', url });
      }
      const text = lines.join('');
      assert.ok(lines.length >= 8, `only ${lines.length} lines`);
      assert.ok(!text.includes(token.slice('praxis_'.length, 20)), text);
      assert.match(text, /token=\[secret\]/);
      assert.match(text, /access_token=\[secret\]&mind=x/);
    } finally {
      await app.close();
    }
    assert.equal(redactLogLine('{"msg":"bearer sk-proj-abc123DEF456ghi789JKL"}'), '{"msg":"bearer [secret]"}');
    assert.equal(redactLogLine('{"url":"/cb?code=abc&state=1","pem":"-----BEGIN PRIVATE KEY-----\\nMIIE"}'), '{"url":"/cb?code=[secret]&state=1","pem":"[private-key]"}');
    assert.equal(redactLogLine('{"url":"/api/v1/plans?limit=5&cursor=abc"}'), '{"url":"/api/v1/plans?limit=5&cursor=abc"}');
  });

  it("the model server's error text is masked before the API answers it", async () => {
    const key = 'sk-proj-AbC123dEf456GhI789jKl012MnO345';
    const model: ModelRole = {
      model: 'fake',
      baseUrl: 'http://127.0.0.1:1/v1',
      async complete(): Promise<ModelReply> {
        return {
          outcome: 'http_error',
          content: null,
          message: `the model server answered HTTP 401: Incorrect API key provided: ${key} (Authorization: Bearer ${key}); user ops@example.com from 10.1.2.3, password=hunter2`,
          statusCode: 401,
          finishReason: '',
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: 1,
        };
      },
    };
    const api = await makeApiWorld(store(), { planning: { registry: (await makeWorld(store())).registry, model } });
    try {
      const answer = await api.call('agent', 'POST', `/api/v1/minds/${api.world.mind.name}/intentions`, { objective: 'write a short poem about the logs' });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.planning.status, 'model_failed', JSON.stringify(answer.body));
      const reason = answer.body.planning.reason as string;
      for (const secret of [key, 'hunter2', 'ops@example.com', '10.1.2.3']) assert.ok(!reason.includes(secret), reason);
      assert.match(reason, /\[secret\]/);
    } finally {
      await api.app.close();
    }
  });
});

describe('four eyes everywhere (finding 5)', () => {
  const store = useStore(kind);

  it('operator names compare after NFKC, trimming and lower case', () => {
    assert.equal(normaliseOperator('  ＯＰＥＲ '), 'oper');
    assert.ok(sameOperator('OPER', 'oper'));
    assert.ok(sameOperator('ｏｐｅｒ', ' Oper'));
    assert.ok(!sameOperator('', ''));
    assert.ok(!sameOperator('oper', 'operator'));
    assert.ok(sameOperator('op\u200Ber\uFEFF', 'oper'), 'invisible characters are no part of a name');
    assert.ok(!sameOperator('\u200B', '\u2060'), 'a name of nothing visible is nobody');
    assert.equal(isOperatorName('\u200B\u202E'), false);
    assert.equal(isOperatorName('bob\u200B'), true);
    const pending = { id: 'a', status: 'pending', authoredBy: 'oper', decisions: [{ operator: 'Alice' }] };
    assert.equal(fourEyesRefusal(pending, 'OPER')?.code, 'self_approval');
    assert.equal(fourEyesRefusal(pending, ' alice')?.code, 'already_decided');
    assert.equal(fourEyesRefusal({ ...pending, authoredBy: '  ' }, 'bob')?.code, 'no_author');
    assert.equal(fourEyesRefusal(pending, 'bob'), null);
  });

  it('an author cannot approve under another spelling of their name, and an authorless action cannot be approved', async () => {
    const api = await makeApiWorld(store());
    try {
      const { token } = await issueToken(api.world.store, { operator: 'TESTER', role: 'operator' });
      const approval = await pendingApproval(api.world, 'svc', 'b1', 'tester');
      const own = await api.app.inject({
        method: 'POST',
        url: `/api/v1/approvals/${approval}/approve`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(own.statusCode, 409, own.body);
      assert.equal(own.json().error.problems[0].code, 'self_approval');

      const authorless = await pendingApproval(api.world, 'svc2', 'b2', '');
      const refused = await api.call('operator', 'POST', `/api/v1/approvals/${authorless}/approve`, {});
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.error.problems[0].code, 'no_author');
      assert.equal((await api.world.store.approvals.get(authorless))?.status, 'pending');
      // Denying it is always possible.
      assert.equal((await api.call('operator', 'POST', `/api/v1/approvals/${authorless}/deny`, {})).status, 200);
      assert.equal(api.world.log.calls.length, 0);
    } finally {
      await api.app.close();
    }
  });
});
