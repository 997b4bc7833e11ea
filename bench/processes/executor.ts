// An executor in a process of its own, for the benchmark's cross-process figures. Usage:
//   node --import tsx bench/processes/executor.ts <store-config-json> <host> <mode> [<name host>]
// It runs an Executor loop (woken over LISTEN/NOTIFY, 60 s interval) for minds bound to <host>
// with the benchmark's capabilities. Mode `serve` acts normally; mode `stall` makes bench.write
// hang after its write-ahead record, so the benchmark can kill it mid-act. Prints `ready <name>`
// once listening, then `claimed <step id> <wall ms>` for each approved step it claims, and
// stops on `stop` on stdin. With <name host>, the executor is named as one on that host (the
// benchmark's stand-in for an executor on another machine sharing the store).

import { createInterface } from 'node:readline';
import { WakeBus } from '../../src/bus/wake-bus.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { Executor } from '../../src/execution/executor.ts';
import { newExecutorName } from '../../src/execution/claimants.ts';
import { openStore, type PostgresStoreConfig, type StoreConfig } from '../../src/store/index.ts';
import { benchImplementations, benchRegistry } from '../capabilities.ts';

const [configJson, host, mode, nameHost] = process.argv.slice(2) as [string, string, string, string | undefined];
const config = JSON.parse(configJson) as StoreConfig;
const store = await openStore(config);
const implementations = mode === 'stall' ? { ...benchImplementations, 'bench.write': () => new Promise<never>(() => {}) } : benchImplementations;
const service = new CapabilityService(store, benchRegistry, implementations);
const bus = new WakeBus(store, config.kind === 'postgres' ? { postgres: config as PostgresStoreConfig } : {});
// Each approved step's claim is reported as `claimed <step id> <wall ms>` (bench/latency.ts).
const observer = { approvalClaimed: (_: unknown, step: { id: string }) => process.stdout.write(`claimed ${step.id} ${performance.timeOrigin + performance.now()}\n`) };
const executor = new Executor({ store, capabilities: service, host, bus, intervalMs: 60_000, observer, ...(nameHost ? { name: newExecutorName(nameHost) } : {}) });
const deadline = Date.now() + 10_000;
while (config.kind === 'postgres' && !bus.listening && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
executor.start();
process.stdout.write(`ready ${executor.name}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'stop') break;
}
await executor.stop();
await bus.close();
await store.close();
process.exit(0);
