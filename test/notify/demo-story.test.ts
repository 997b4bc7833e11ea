// The demo story played by a daemon with a webhook target and an OTLP/HTTP endpoint, both local
// servers in this test: the receiver gets every signed delivery of the story (the first one
// after a 500 and a retry) and the collector gets the story's trace as one tree.

import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { issueToken } from '../../src/access/tokens.ts';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import type { DaemonConfig } from '../../src/daemon/config.ts';
import { seedHost, seedStory, watchStory, type DemoStory } from '../../src/daemon/demo.ts';
import { startDaemon, type Daemon } from '../../src/daemon/serve.ts';
import { verifyDelivery } from '../../src/notify/signature.ts';
import { useStore } from '../support/stores.ts';

const SECRET = 'a-shared-secret-for-the-demo-test';
const PUBLIC = 'https://praxis.example.test';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

function listen(handler: (path: string, headers: IncomingHttpHeaders, body: string) => number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.statusCode = handler(req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

async function until<T>(what: string, look: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await look();
    if (seen) return seen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  events?: { name: string; attributes: { key: string; value: OtlpValue }[] }[];
  links?: { traceId: string; spanId: string; attributes: { key: string; value: OtlpValue }[] }[];
  status?: { code?: number };
}

function attrs(list: { key: string; value: OtlpValue }[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.boolValue ?? a.value.doubleValue ?? (a.value.intValue !== undefined ? Number(a.value.intValue) : undefined)]));
}

describe('the demo story, told to a webhook receiver and an OTLP collector', () => {
  const current = useStore('sqlite');
  const deliveries: Received[] = [];
  const exports: { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] }[] = [];
  let hook: { server: Server; url: string };
  let collector: { server: Server; url: string };
  let daemon: Daemon;
  let story: DemoStory;
  let host: SimulatedHost;
  const saved = { ...process.env };

  before(async () => {
    let first = true;
    hook = await listen((_path, headers, body) => {
      // The first delivery is refused once: the daemon must try it again.
      const answered = first ? 500 : 200;
      first = false;
      deliveries.push({ headers, body, answered });
      return answered;
    });
    collector = await listen((path, _headers, body) => {
      if (path === '/v1/traces') exports.push(JSON.parse(body));
      return 200;
    });
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    process.env.OTEL_SERVICE_NAME = 'praxis-demo-test';
    host = SimulatedHost.create();
    seedHost(host, new Date());
    const { config: storeConfig } = current();
    const config: DaemonConfig = {
      host: '127.0.0.1',
      port: 0,
      store: storeConfig,
      anonymousRole: null,
      logLevel: 'silent',
      tickMs: 500,
      executorHost: 'demo-test',
      consoleDir: null,
      notifications: { targets: [{ name: 'ops', url: `${hook.url}/praxis`, secret: SECRET, format: 'praxis', topics: null }], publicUrl: PUBLIC },
    };
    daemon = await startDaemon({
      config,
      implementations: builtinImplementations({ runner: host.runner() }),
      prepare: async (store) => {
        story = await seedStory(store);
      },
    });
  });

  after(async () => {
    await daemon?.stop('test over');
    host?.remove();
    hook?.server.close();
    collector?.server.close();
    for (const key of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_SERVICE_NAME']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it('plays the story to its escalation note', { timeout: 120_000 }, async () => {
    const watch = watchStory(daemon.store, daemon.capabilities, story, { auto: true, tell: () => {} });
    const note = await watch.finished;
    assert.equal(note.type, 'operator_note');
  });

  it('delivers every notification of the story, signed, the refused one again after a 500', { timeout: 60_000 }, async () => {
    const topicsOf = () => deliveries.filter((d) => d.answered === 200).map((d) => String(d.headers['x-praxis-topic']));
    const wanted = ['approval.requested', 'approval.approved', 'capability_request.opened', 'capability_request.granted', 'intention.escalated'];
    await until('every topic delivered', () => wanted.every((t) => topicsOf().includes(t)));
    assert.deepEqual([...topicsOf()].sort(), [...wanted].sort(), 'each told once, nothing else (the waits for approval and grant are not told as blocked intentions)');

    for (const d of deliveries) {
      const check = verifyDelivery(SECRET, { signature: d.headers['x-praxis-signature'] as string, timestamp: d.headers['x-praxis-timestamp'] as string }, d.body, Math.floor(Date.now() / 1000));
      assert.deepEqual(check, { ok: true }, `delivery ${String(d.headers['x-praxis-topic'])} verifies`);
      assert.equal(
        verifyDelivery('another-secret-entirely', { signature: d.headers['x-praxis-signature'] as string, timestamp: d.headers['x-praxis-timestamp'] as string }, d.body, Math.floor(Date.now() / 1000))
          .ok,
        false,
      );
    }
    // The 500 was tried again: same delivery, same body, second attempt.
    const [refused, ...rest] = deliveries;
    assert.equal(refused!.answered, 500);
    const retried = rest.find((d) => d.headers['x-praxis-delivery'] === refused!.headers['x-praxis-delivery']);
    assert.ok(retried, 'the refused delivery came again');
    assert.equal(retried.body, refused!.body);
    assert.equal(refused!.headers['x-praxis-attempt'], '1');
    assert.equal(retried.headers['x-praxis-attempt'], '2');

    const requested = JSON.parse(deliveries.find((d) => d.headers['x-praxis-topic'] === 'approval.requested')!.body);
    const approval = (await daemon.store.approvals.list({ mindId: story.mindId }))[0]!;
    assert.equal(requested.approval.id, approval.id);
    assert.equal(requested.link, `${PUBLIC}/#/approvals?approval=${approval.id}`);
    assert.equal(requested.mind.name, 'demo');
    assert.match(requested.text, /demo asks for approval: service\.restart on atlas-worker\.service/);
    const escalated = JSON.parse(deliveries.find((d) => d.headers['x-praxis-topic'] === 'intention.escalated')!.body);
    assert.equal(escalated.intention_id, story.intentionId);
    assert.match(escalated.link, new RegExp(`^${PUBLIC}/#/plans/`));
  });

  it('keeps the delivery log, which admins read through the API and nobody else', async () => {
    // The receiver saw every delivery; the daemon records each as delivered once its answer is back.
    const log = await until('every delivery recorded as delivered', async () => {
      const listed = await daemon.store.webhookDeliveries.list({});
      return listed.every((d) => d.status === 'delivered') && listed;
    });
    assert.equal(log.length, 5);
    assert.ok(log.every((d) => d.status === 'delivered' && d.target === 'ops'));
    assert.deepEqual(
      log.filter((d) => d.attempts === 2).map((d) => d.topic),
      ['approval.requested'],
    );
    const admin = await issueToken(daemon.store, { operator: 'root', role: 'admin' });
    const operator = await issueToken(daemon.store, { operator: 'olga', role: 'operator' });
    const answer = await fetch(`${daemon.url}/api/v1/webhook-deliveries?status=delivered`, { headers: { authorization: `Bearer ${admin.token}` } });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { deliveries: { topic: string; attempts: number; body: { topic: string } }[] };
    assert.equal(body.deliveries.length, 5);
    assert.ok(body.deliveries.every((d) => d.body.topic === d.topic));
    assert.ok(!JSON.stringify(body).includes(SECRET) && !JSON.stringify(body).includes(hook.url), 'neither the secret nor the URL is shown');
    const refused = await fetch(`${daemon.url}/api/v1/webhook-deliveries`, { headers: { authorization: `Bearer ${operator.token}` } });
    assert.equal(refused.status, 403);
    const bad = await fetch(`${daemon.url}/api/v1/webhook-deliveries?status=lost`, { headers: { authorization: `Bearer ${admin.token}` } });
    assert.equal(bad.status, 400);
  });

  it('exports the story as one trace: intention, two plan revisions, steps, execute_tool spans linked to their approval and grant', { timeout: 60_000 }, async () => {
    const spans = () => exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    await until('the intention span', () => spans().some((s) => s.name === 'intention'));
    const all = spans();
    const byId = new Map(all.map((s) => [s.spanId, s]));
    assert.equal(byId.size, all.length, 'no span exported twice');
    const traceIds = new Set(all.map((s) => s.traceId));
    assert.deepEqual([...traceIds], [story.intentionId.replace(/-/g, '')], 'one trace, named by the intention');
    assert.equal(attrs(exports[0]!.resourceSpans[0]!.resource.attributes)['service.name'], 'praxis-demo-test');

    const intention = all.find((s) => s.name === 'intention')!;
    assert.equal(intention.parentSpanId ?? '', '');
    assert.equal(attrs(intention.attributes)['praxis.intention.outcome'], 'escalated');

    const plans = all.filter((s) => s.name.startsWith('plan ')).sort((a, b) => Number(attrs(a.attributes)['praxis.plan.revision']) - Number(attrs(b.attributes)['praxis.plan.revision']));
    assert.deepEqual(
      plans.map((p) => [p.name, attrs(p.attributes)['praxis.plan.outcome']]),
      [
        ['plan direct', 'superseded'],
        ['plan diagnose_then_escalate', 'completed'],
      ],
    );
    assert.ok(plans.every((p) => p.parentSpanId === intention.spanId));
    assert.equal(plans[1]!.links?.[0]?.spanId, plans[0]!.spanId, 'revision 2 links to revision 1');

    const childrenOf = (span: OtlpSpan) => all.filter((s) => s.parentSpanId === span.spanId);
    assert.deepEqual(
      childrenOf(plans[0]!)
        .map((s) => s.name)
        .sort(),
      ['step P1', 'step V1'],
    );
    assert.deepEqual(
      childrenOf(plans[1]!)
        .map((s) => s.name)
        .sort(),
      ['step L1', 'step N1', 'step R1', 'step S1', 'step U1'],
    );

    const p1 = all.find((s) => s.name === 'step P1')!;
    const underP1 = childrenOf(p1)
      .map((s) => s.name)
      .sort();
    assert.deepEqual(underP1, ['approval service.restart', 'execute_tool service.restart', 'execute_tool service.status']);
    const restart = childrenOf(p1).find((s) => s.name === 'execute_tool service.restart')!;
    const a = attrs(restart.attributes);
    assert.equal(a['gen_ai.operation.name'], 'execute_tool');
    assert.equal(a['gen_ai.tool.name'], 'service.restart');
    const execution = (await daemon.store.executions.listByMind(story.mindId)).find((e) => e.capability === 'service.restart')!;
    assert.equal(a['gen_ai.tool.call.id'], execution.id);
    const approvalSpan = childrenOf(p1).find((s) => s.name === 'approval service.restart')!;
    assert.equal(attrs(approvalSpan.attributes)['praxis.approval.outcome'], 'approved');
    const linked = (restart.links ?? []).map((l) => l.spanId);
    assert.ok(linked.includes(approvalSpan.spanId), 'the restart links to its approval');
    assert.ok(linked.includes(intention.spanId), 'and to the intention');
    assert.ok(BigInt(restart.startTimeUnixNano) <= BigInt(restart.endTimeUnixNano));

    const outcome = (p1.events ?? []).find((e) => e.name === 'praxis.prediction.resolved');
    assert.ok(outcome, 'the prediction outcome is an event of the step that made it');
    assert.equal(attrs(outcome.attributes)['praxis.prediction.outcome'], 'refuted');

    const l1 = all.find((s) => s.name === 'step L1')!;
    const logs = childrenOf(l1).find((s) => s.name === 'execute_tool logs.query')!;
    const r1 = all.find((s) => s.name === 'step R1')!;
    const request = childrenOf(r1).find((s) => s.name === 'capability_request logs.query')!;
    assert.equal(attrs(request.attributes)['praxis.capability_request.outcome'], 'granted');
    assert.ok(
      (logs.links ?? []).some((l) => l.spanId === request.spanId),
      'the journal read links to the request that granted it',
    );
  });
});
