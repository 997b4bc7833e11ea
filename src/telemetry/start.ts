// Traces, when the standard OTEL_* variables say where to send them. Without them nothing of
// OpenTelemetry is loaded: the exporter module is imported only here, on demand.

import type { Logger } from 'pino';
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

export async function startTracing(store: Store, daemon: { name: string; logger: Logger }, env: Record<string, string | undefined> = process.env): Promise<Tracing | null> {
  if (!tracingWanted(env)) return null;
  const { TraceExporter } = await import('./exporter.ts');
  const tracing = new TraceExporter({ store, name: daemon.name, env, log: daemon.logger.child({ component: 'traces' }) });
  await tracing.start();
  return tracing;
}
