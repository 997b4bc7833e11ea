// Traces, when the standard OTEL_* variables say where to send them. Without them nothing of
// OpenTelemetry is loaded: the exporter module is imported only here, on demand.

import type { Logger } from 'pino';
import type { Problem } from '../core/errors.ts';
import type { Store } from '../store/index.ts';

export interface Tracing {
  stop(): Promise<void>;
}

/** True when the environment asks for traces (docs/traces.md). */
export function tracingWanted(env: Record<string, string | undefined>): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  if (
    (env.OTEL_TRACES_EXPORTER ?? '')
      .split(',')
      .map((s) => s.trim())
      .includes('none')
  )
    return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** The OTLP endpoint variables, the traces' own first. */
const ENDPOINT_VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;

/**
 * What is wrong with the endpoints set when traces are wanted: each must be an http(s) URL. The
 * exporter took anything: "not a url" sent every trace to localhost:4318 and "collector:4318"
 * failed every 5 s with an unsupported protocol, noticed only in the log.
 */
export function tracingEndpointProblems(env: Record<string, string | undefined>): Problem[] {
  if (!tracingWanted(env)) return [];
  return ENDPOINT_VARIABLES.flatMap((name): Problem[] => {
    const value = env[name];
    if (!value) return [];
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return [];
    return [{ code: 'invalid_otlp_endpoint', path: name, message: `${JSON.stringify(value)} is not the http(s) URL of an OTLP collector, such as http://collector:4318` }];
  });
}

export async function startTracing(store: Store, daemon: { name: string; logger: Logger }, env: Record<string, string | undefined> = process.env): Promise<Tracing | null> {
  if (!tracingWanted(env)) return null;
  const { TraceExporter } = await import('./exporter.ts');
  const tracing = new TraceExporter({ store, name: daemon.name, env, log: daemon.logger.child({ component: 'traces' }) });
  await tracing.start();
  return tracing;
}
