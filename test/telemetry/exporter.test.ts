// The trace exporter on both stores: a plan run by the executor on a manual clock becomes spans
// once its revision ends; a failed export leaves the cursor where it was, so the same spans (same
// ids) go out on the next try, and a restarted exporter sends nothing twice.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, describe, it } from 'node:test';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { EventFollower } from '../../src/bus/follower.ts';
import { TraceExporter } from '../../src/telemetry/exporter.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep, restartPlan, UNIT, type World } from '../execution/support.ts';
import { createLogger } from '../../src/daemon/logger.ts';

/** The error an OTLP exporter reports for an HTTP answer: OTLPExporterError, with the status as `code`. */
function httpError(status: number, message: string): Error {
  return Object.assign(new Error(message), { name: 'OTLPExporterError', code: status });
}

class Recording implements SpanExporter {
  spans: ReadableSpan[] = [];
  refuse = false;
  /** Refuses (HTTP 400) any export holding a span of this trace. */
  refuseTrace: string | null = null;
  /** Fails every export with this HTTP status. */
  failStatus: number | null = null;
  attempts = 0;
  export(spans: ReadableSpan[], done: (result: { code: ExportResultCode; error?: Error }) => void): void {
    this.attempts += 1;
    if (this.refuse) return done({ code: ExportResultCode.FAILED, error: new Error('collector unavailable') });
    if (this.failStatus !== null) return done({ code: ExportResultCode.FAILED, error: httpError(this.failStatus, 'Service Unavailable') });
    if (spans.some((s) => s.spanContext().traceId === this.refuseTrace)) return done({ code: ExportResultCode.FAILED, error: httpError(400, 'Bad Request') });
    this.spans.push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
}

for (const kind of STORE_KINDS) {
  describe(`trace exporter (${kind})`, () => {
    const current = useStore(kind);
    const worlds: World[] = [];
    afterEach(() => worlds.splice(0).forEach((w) => w.host?.remove()));

    it('exports a verified restart as intention, plan, steps and execute_tool spans, again after a refused export, never twice', async () => {
      const w = await makeWorld(current(), { simulated: true });
      worlds.push(w);
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });
      await w.allow('service.restart');
      const log = createLogger('silent');
      const sink = new Recording();
      const make = (name: string) => new TraceExporter({ store: w.store, name, env: {}, log, exporter: sink });
      const first = make('daemon-a');
      await first.prepare();
      const { plan, intention } = await w.plan(restartPlan());
      const executor = w.executor();
      await executor.drain();
      w.advance(10);
      await executor.drain();
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');

      sink.refuse = true;
      await assert.rejects(first.runOnce(), /collector unavailable/);
      assert.equal(sink.spans.length, 0);
      sink.refuse = false;
      const sent = await first.runOnce();
      assert.ok(sent > 0);
      const names = sink.spans.map((s) => s.name).sort();
      assert.deepEqual(
        names,
        ['execute_tool service.restart', 'execute_tool service.status', 'execute_tool service.status', 'execute_tool service.status', 'intention', 'plan direct', 'step P1', 'step V1'].sort(),
      );
      const traceIds = new Set(sink.spans.map((s) => s.spanContext().traceId));
      assert.deepEqual([...traceIds], [intention.id.replace(/-/g, '')]);
      const byName = (name: string) => sink.spans.find((s) => s.name === name)!;
      assert.equal(byName('plan direct').parentSpanContext?.spanId, byName('intention').spanContext().spanId);
      assert.equal(byName('step P1').parentSpanContext?.spanId, byName('plan direct').spanContext().spanId);
      const restart = byName('execute_tool service.restart');
      assert.equal(restart.parentSpanContext?.spanId, byName('step P1').spanContext().spanId);
      assert.equal(restart.attributes['gen_ai.operation.name'], 'execute_tool');
      assert.equal(restart.attributes['gen_ai.tool.name'], 'service.restart');
      const execution = (await w.store.executions.listByMind(w.mind.id)).find((e) => e.capability === 'service.restart')!;
      assert.equal(restart.attributes['gen_ai.tool.call.id'], execution.id);
      assert.equal(byName('intention').attributes['praxis.intention.outcome'], 'fulfilled');
      const resolved = byName('step P1').events.find((e) => e.name === 'praxis.prediction.resolved');
      assert.equal(resolved?.attributes?.['praxis.prediction.outcome'], 'confirmed');

      // Another daemon (or this one restarted) finds the cursor past the story: nothing again.
      const before = sink.spans.length;
      await new EventFollower(w.store, { consumer: 'traces', holder: 'daemon-a' }).release();
      assert.equal(await make('daemon-b').runOnce(), 0);
      assert.equal(sink.spans.length, before);

      // The same story built afresh has the same ids: a repeat is the same tree, not a new one.
      await w.store.eventCursors.release('traces', 'daemon-b');
      const cursor = await w.store.eventCursors.get('traces');
      await w.store.eventCursors.hold('traces', 'daemon-c', new Date(w.clock.now().getTime() + 60_000));
      await w.store.eventCursors.advance('traces', 'daemon-c', cursor!.seq, 0);
      await w.store.eventCursors.release('traces', 'daemon-c');
      const again = new Recording();
      const third = new TraceExporter({ store: w.store, name: 'daemon-c', env: {}, log, exporter: again });
      await third.runOnce();
      await third.stop(); // lets go of the cursor, for the next test on this store
      const ids = (spans: ReadableSpan[]) =>
        spans
          .filter((s) => traceIds.has(s.spanContext().traceId))
          .map((s) => `${s.name} ${s.spanContext().spanId} ${s.parentSpanContext?.spanId ?? ''}`)
          .sort();
      assert.deepEqual(ids(again.spans), ids(sink.spans.slice(0, before)));
    });

    it('drops the spans of a story the endpoint refuses for good (HTTP 400) and sends the rest, instead of retrying the whole batch forever', async () => {
      const w = await makeWorld(current());
      await w.allow('test.read');
      const lines: string[] = [];
      const log = createLogger('info', { write: (line: string) => void lines.push(line) });
      const sink = new Recording();
      const exporter = new TraceExporter({ store: w.store, name: 'daemon-a', env: {}, log, exporter: sink });
      await exporter.prepare();
      const poison = await w.plan(draftOf([readStep('R1')], { objective: 'a story the collector refuses' }));
      const healthy = [await w.plan(draftOf([readStep('R1')], { objective: 'first good story' })), await w.plan(draftOf([readStep('R1')], { objective: 'second good story' }))];
      await w.executor().drain();
      for (const { plan } of [poison, ...healthy]) assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
      const traceOf = (intentionId: string) => intentionId.replace(/-/g, '');
      sink.refuseTrace = traceOf(poison.intention.id);

      await exporter.runOnce();
      const exported = new Set(sink.spans.map((s) => s.spanContext().traceId));
      assert.deepEqual([...exported].sort(), healthy.map((h) => traceOf(h.intention.id)).sort());
      const dropped = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'traces_dropped');
      assert.deepEqual(
        dropped.map((l) => [l.trace_id, l.status]),
        [[traceOf(poison.intention.id), 400]],
      );
      // The cursor moved past them: nothing is tried again.
      const attempts = sink.attempts;
      assert.equal(await exporter.runOnce(), 0);
      assert.equal(sink.attempts, attempts);

      // A failure of the endpoint's own (a 503 after the SDK's retries) keeps the cursor.
      sink.refuseTrace = null;
      sink.failStatus = 503;
      const later = await w.plan(draftOf([readStep('R1')], { objective: 'a story sent once the collector is back' }));
      await w.executor().drain();
      await assert.rejects(exporter.runOnce(), /Service Unavailable/);
      sink.failStatus = null;
      assert.ok((await exporter.runOnce()) > 0);
      assert.ok(sink.spans.some((s) => s.spanContext().traceId === traceOf(later.intention.id)));
      await exporter.stop();
    });
  });
}

describe('trace exporter over OTLP/HTTP protobuf (the default protocol)', () => {
  const current = useStore('sqlite');
  let world: World | undefined;
  after(() => world?.host?.remove());

  it('posts protobuf to <endpoint>/v1/traces with the story in it', { timeout: 60_000 }, async () => {
    const bodies: { path: string; type: string; body: Buffer }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({ path: req.url ?? '', type: String(req.headers['content-type']), body: Buffer.concat(chunks) });
        res.statusCode = 200;
        res.setHeader('content-type', 'application/x-protobuf');
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const w = (world = await makeWorld(current(), { simulated: true }));
      w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 5 } });
      await w.allow('service.restart');
      const exporter = new TraceExporter({ store: w.store, name: 'daemon-p', env: {}, log: createLogger('silent') });
      await exporter.prepare();
      const { intention } = await w.plan(restartPlan());
      const executor = w.executor();
      await executor.drain();
      w.advance(10);
      await executor.drain();
      assert.ok((await exporter.runOnce()) > 0);
      await exporter.stop();
      assert.equal(bodies.length, 1);
      assert.equal(bodies[0]!.path, '/v1/traces');
      assert.equal(bodies[0]!.type, 'application/x-protobuf');
      // Protobuf keeps strings as UTF-8 and ids as raw bytes.
      assert.ok(bodies[0]!.body.includes('execute_tool service.restart'));
      assert.ok(bodies[0]!.body.includes(Buffer.from(intention.id.replace(/-/g, ''), 'hex')), 'the trace id is the intention id');
    } finally {
      if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
      server.close();
    }
  });
});
