// One contender in the multi-process executor race: its own process, store connection and wake
// listener, on the system clock. Usage:
//   node --import tsx test/execution/processes/race-executor.ts <store-config-json>
// Prints "ready <name>" once connected; starts its loop on a line "go"; on a line "stop" stops
// the loop (finishing what it claimed), prints "stopped <name>" and exits.

import { createInterface } from 'node:readline';
import { WakeBus } from '../../../src/bus/wake-bus.ts';
import { CapabilityService } from '../../../src/capabilities/service.ts';
import { Executor } from '../../../src/execution/executor.ts';
import { openStore, type StoreConfig } from '../../../src/store/index.ts';
import { testImplementations, testRegistry } from '../../support/test-capabilities.ts';

const config = JSON.parse(process.argv[2]!) as StoreConfig;
const store = await openStore(config);
const bus = new WakeBus(store, config.kind === 'postgres' ? { postgres: config } : {});
const service = new CapabilityService(store, testRegistry, testImplementations({ calls: [] }));
const name = `racer-${process.pid}`;
const errors: string[] = [];
const executor = new Executor({
  store,
  capabilities: service,
  bus,
  name,
  intervalMs: 200,
  concurrency: 4,
  batch: 25,
  log: { debug() {}, warn() {}, error: (message, data) => errors.push(`${message} ${JSON.stringify(data)}`) },
});
await store.steps.get('00000000-0000-7000-8000-000000000000');
process.stdout.write(`ready ${name}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'go') executor.start();
  if (line.trim() === 'stop') {
    void (async () => {
      await executor.stop();
      await bus.close();
      await store.close();
      process.stdout.write(`stopped ${name} ${JSON.stringify({ errors })}\n`);
      lines.close();
    })();
  }
});
