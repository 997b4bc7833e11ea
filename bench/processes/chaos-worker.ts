// One executor of a chaos run (bench/chaos.ts), in a process of its own. Usage:
//   node --import tsx bench/processes/chaos-worker.ts <store-config-json> <simulated-host-dir> <name host>
// It runs an Executor loop (the daemon's defaults, woken over LISTEN/NOTIFY on PostgreSQL) named
// as an executor of <name host> (on PostgreSQL another host's, so that only its presence tells
// another executor it has gone; on SQLite this host's), on the shared simulated host. Its restarts are slow (a pause before and after the call to systemctl) so that
// kills land in the middle of acts. Each line it prints is JSON: `{ at, kind, message, data }`,
// with kind `ready`, `warn`, `error` or `crash`.

import { setTimeout as sleep } from 'node:timers/promises';
import { WakeBus } from '../../src/bus/wake-bus.ts';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import type { CapabilityImplementation } from '../../src/capabilities/implementation.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { newExecutorName } from '../../src/execution/claimants.ts';
import { Executor } from '../../src/execution/executor.ts';
import { openStore, type StoreConfig } from '../../src/store/index.ts';

const [configJson, hostDir, nameHost] = process.argv.slice(2) as [string, string, string];
const say = (kind: string, message: string, data?: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ at: Date.now(), kind, message, data })}\n`);
process.on('unhandledRejection', (error) => say('crash', 'unhandled rejection', { error: String(error) }));
process.on('uncaughtException', (error) => say('crash', 'uncaught exception', { error: String(error) }));

const config = JSON.parse(configJson) as StoreConfig;
const store = await openStore(config);
const host = SimulatedHost.create(hostDir);
const registry = builtinRegistry();
const builtins = builtinImplementations({ runner: host.runner() });
const pause = (from: number, to: number) => sleep(from + Math.random() * (to - from));
const restart = builtins['service.restart']!;
const slowRestart: CapabilityImplementation = async (params, context) => {
  await pause(100, 500);
  const result = await restart(params, context);
  await pause(500, 2000);
  return result;
};
const service = new CapabilityService(store, registry, { ...builtins, 'service.restart': slowRestart });
// On SQLite no other process's writes wake it: it finds them by its interval, as a daemon does.
const bus = new WakeBus(store, config.kind === 'postgres' ? { postgres: config } : {});
const name = newExecutorName(nameHost);
const log = {
  debug() {},
  warn: (message: string, data?: Record<string, unknown>) => say('warn', message, data),
  error: (message: string, data?: Record<string, unknown>) => say('error', message, data),
};
const executor = new Executor({ store, capabilities: service, registry, bus, name, log });
const deadline = Date.now() + 10_000;
while (config.kind === 'postgres' && !bus.listening && Date.now() < deadline) await sleep(10);
executor.start();
say('ready', name, { pid: process.pid });
process.on('SIGTERM', async () => {
  await executor.stop();
  await bus.close();
  await store.close();
  process.exit(0);
});
