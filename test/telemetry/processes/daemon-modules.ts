// A daemon started in a process of its own that says which OpenTelemetry modules it loaded:
// starts `praxis serve`'s daemon on the SQLite file at DB_PATH with whatever OTEL_* its
// environment has, stops it, and prints {"loaded": <count>}. Usage (see programArgs):
//   DB_PATH=<file> node test/telemetry/processes/daemon-modules.ts

import { createRequire } from 'node:module';
import { startDaemon } from '../../../src/daemon/serve.ts';

const require = createRequire(import.meta.url);
const config = {
  host: '127.0.0.1',
  port: 0,
  store: { kind: 'sqlite' as const, path: process.env.DB_PATH! },
  anonymousRole: null,
  logLevel: 'silent' as const,
  tickMs: 1000,
  executorHost: 'off-test',
  consoleDir: null,
};
const daemon = await startDaemon({ config });
// prom-client (the metrics) brings @opentelemetry/api for exemplars; the SDK and exporters are ours.
const loaded = Object.keys(require.cache).filter((k) => k.includes('@opentelemetry/') && !k.includes('@opentelemetry/api/')).length;
await daemon.stop('done');
console.log(JSON.stringify({ loaded }));
