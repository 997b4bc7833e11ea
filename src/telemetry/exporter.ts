// The daemon's trace exporter: follows the event log and, each time a plan revision ends or an
// intention settles, builds that part of the story's trace from its events (spans.ts) and sends
// it over OTLP/HTTP with the official OpenTelemetry SDK. Spans get their ids from Praxis' ids
// (ids.ts), so a batch sent again after a restart is the same tree. The cursor moves only once
// the export succeeded: at least once, never lost. Imported only when OTEL_* asks for traces.

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Link } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { TracerProvider, type IdGenerator, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { EventFollower, PassLoop, type FollowedBatch } from '../bus/follower.ts';
import type { Logger } from 'pino';
import type { EventRecord, Store } from '../store/index.ts';
import { closedBy, intentionSpan, planSpans, type Lineage, type SpanRecord } from './spans.ts';

export const CONSUMER = 'traces';
const PAGE = 1_000;

export interface TraceExporterOptions {
  store: Store;
  /** This daemon's name: the cursor's holder and `service.instance.id`. */
  name: string;
  env: Record<string, string | undefined>;
  log: Logger;
  pollMs?: number;
  /** Replaces the OTLP exporter (tests of failures). */
  exporter?: SpanExporter;
}

/** The OTLP protocol asked for; gRPC is not offered (docs/traces.md). */
export function protocolOf(env: Record<string, string | undefined>): 'http/json' | 'http/protobuf' | 'grpc' {
  const value = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  return value === 'http/json' ? 'http/json' : value === 'grpc' ? 'grpc' : 'http/protobuf';
}

/** The HTTP status of an OTLP exporter's error (OTLPExporterError's `code`), if it has one. */
function statusOf(error: Error | undefined): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * An answer that would be the same for the same spans: a 4xx other than 408 and 429 (a
 * malformed or too large request, a refused tenant). Retried, it held the cursor, and with it
 * every later trace of the fleet, for good. A 5xx, a timeout or no connection is the endpoint's
 * trouble, not the spans': those keep the cursor and are tried again.
 */
function refusedForGood(error: Error | undefined): boolean {
  const status = statusOf(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Hands out the ids chosen for the span being started, instead of random ones. */
class ChosenIds implements IdGenerator {
  next: { traceId: string; spanId: string } | null = null;
  generateTraceId(): string {
    return this.next!.traceId;
  }
  generateSpanId(): string {
    return this.next!.spanId;
  }
}

/** Keeps ended spans for one explicit export, so the cursor moves only when it succeeded. */
class Collected implements SpanProcessor {
  spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

export class TraceExporter {
  readonly #options: TraceExporterOptions;
  readonly #follower: EventFollower;
  readonly #exporter: SpanExporter;
  readonly #ids = new ChosenIds();
  readonly #collected = new Collected();
  readonly #provider: TracerProvider;
  readonly #loop: PassLoop;

  constructor(options: TraceExporterOptions) {
    this.#options = options;
    this.#follower = new EventFollower(options.store, { consumer: CONSUMER, holder: options.name });
    const protocol = protocolOf(options.env);
    if (protocol === 'grpc') options.log.warn({ event: 'traces_protocol' }, 'OTLP over gRPC is not offered; sending OTLP/HTTP protobuf to the same endpoint instead');
    // The exporters read OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT and _COMPRESSION themselves.
    this.#exporter = options.exporter ?? (protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter());
    const resource = defaultResource()
      .merge(resourceFromAttributes({ 'service.name': 'praxis', 'service.instance.id': options.name }))
      // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults.
      .merge(detectResources({ detectors: [envDetector] }));
    this.#provider = new TracerProvider({ resource, idGenerator: this.#ids, spanProcessors: [this.#collected] });
    this.#loop = new PassLoop(() => this.runOnce(), {
      pauseMs: options.pollMs ?? 2_000,
      afterErrorMs: 5_000,
      onError: (error) => options.log.warn({ error: error.message }, 'trace export failed; trying again'),
    });
  }

  /** Creates the cursor at the newest event for a store that never exported traces. */
  prepare(): Promise<void> {
    return this.#follower.ensureCursor();
  }

  async start(): Promise<void> {
    await this.prepare();
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
    await this.#follower.release().catch(() => {});
    await this.#exporter.shutdown().catch(() => {});
  }

  /** Exports what the events since the cursor closed; returns how many spans were sent. */
  async runOnce(): Promise<number> {
    let sent = 0;
    for (let batch = await this.#follower.next(); batch && !this.#loop.stopping; batch = await this.#follower.next()) {
      const exported = await this.#export(batch);
      if (exported === 0) await this.#follower.pass(batch);
      else await this.#follower.advance(batch);
      sent += exported;
    }
    return sent;
  }

  /**
   * The spans closed by the batch's events, sent in one export. A refusal the endpoint means
   * for good (refusedForGood) is narrowed to the stories it was about: they are sent one by one,
   * those refused again are dropped with an error in the log, and the rest go. Any other failure
   * throws, leaving the cursor for the next try.
   */
  async #export(batch: FollowedBatch): Promise<number> {
    const records: SpanRecord[] = [];
    const stories = new Map<string, EventRecord[]>();
    for (const event of batch.events) {
      const closed = closedBy(event);
      const intentionId = event.intentionId;
      if ((!closed.planId && !closed.intentionId) || !intentionId) continue;
      const events = stories.get(intentionId) ?? (await this.#storyOf(intentionId));
      stories.set(intentionId, events);
      const lineage = await this.#lineageOf(intentionId);
      if (closed.planId) records.push(...planSpans(events, closed.planId, lineage));
      // A subordinate that only waited for an approval or a grant is told by that span instead.
      if (closed.intentionId && (lineage.parentIntentionId === null || events.some((e) => e.type === 'plan_created'))) {
        const span = intentionSpan(events, closed.intentionId, lineage);
        if (span) records.push(span);
      }
    }
    if (records.length === 0) return 0;
    const whole = await this.#send(records);
    if (whole.ok) return whole.sent;
    if (!refusedForGood(whole.error)) throw new Error(`the OTLP endpoint refused ${whole.sent} spans: ${whole.error?.message ?? 'no reason given'}`);
    const traces = new Map<string, SpanRecord[]>();
    for (const record of records) traces.set(record.traceId, [...(traces.get(record.traceId) ?? []), record]);
    let sent = 0;
    for (const story of traces.values()) {
      const one = await this.#send(story);
      if (one.ok) sent += one.sent;
      else if (refusedForGood(one.error)) {
        this.#options.log.error(
          { event: 'traces_dropped', trace_id: story[0]!.traceId, spans: one.sent, status: statusOf(one.error), reason: one.error?.message ?? '' },
          'the OTLP endpoint refused the spans of a story for good; they are dropped',
        );
      } else throw new Error(`the OTLP endpoint refused ${one.sent} spans: ${one.error?.message ?? 'no reason given'}`);
    }
    return sent;
  }

  async #send(records: readonly SpanRecord[]): Promise<{ ok: boolean; sent: number; error?: Error }> {
    const spans = this.#build(records);
    const result = await new Promise<{ code: number; error?: Error }>((resolve) => this.#exporter.export(spans, resolve));
    return { ok: result.code === ExportResultCode.SUCCESS, sent: spans.length, ...(result.error ? { error: result.error } : {}) };
  }

  async #storyOf(intentionId: string): Promise<EventRecord[]> {
    const events: EventRecord[] = [];
    for (;;) {
      const page = await this.#options.store.events.list({ intentionId, afterSeq: events.at(-1)?.seq ?? 0, limit: PAGE });
      events.push(...page);
      if (page.length < PAGE) return events;
    }
  }

  async #lineageOf(intentionId: string): Promise<Lineage> {
    const { intentions } = this.#options.store;
    const own = await intentions.get(intentionId);
    let root = own;
    for (let hops = 0; root?.parentId && hops < 32; hops++) root = await intentions.get(root.parentId);
    return { rootIntentionId: root?.id ?? intentionId, parentIntentionId: own?.parentId ?? null };
  }

  /** OpenTelemetry spans with the chosen ids, times, links, events and status. */
  #build(records: readonly SpanRecord[]): ReadableSpan[] {
    const tracer = this.#provider.getTracer('praxis');
    this.#collected.spans = [];
    for (const record of records) {
      this.#ids.next = record;
      const parent = record.parentSpanId ? trace.setSpanContext(ROOT_CONTEXT, { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: TraceFlags.SAMPLED }) : ROOT_CONTEXT;
      const links: Link[] = record.links.map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: TraceFlags.SAMPLED }, attributes: l.attributes }));
      const span = tracer.startSpan(record.name, { kind: SpanKind.INTERNAL, startTime: record.start, attributes: record.attributes, links }, parent);
      for (const event of record.events) span.addEvent(event.name, event.attributes, event.at);
      if (record.status.code !== 'unset')
        span.setStatus({ code: record.status.code === 'ok' ? SpanStatusCode.OK : SpanStatusCode.ERROR, ...(record.status.message ? { message: record.status.message } : {}) });
      span.end(record.end);
    }
    this.#ids.next = null;
    return this.#collected.spans.splice(0);
  }
}
