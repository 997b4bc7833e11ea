// One contender in the claim race: its own process, its own connection. Usage:
//   node --import tsx test/support/claim-racer.ts <store-config-json> <stepId> <startAtMs>
// Connects, prints "ready", then claims at startAtMs, or as soon as a line "go" arrives on
// stdin if that comes first (starting Node with tsx takes seconds on a busy machine, so the
// parent releases everyone once all are connected instead of guessing a start time).
// Finally prints {"won": boolean, "lateMs": number, "released": "go" | "clock"} on one line.

import { createInterface } from 'node:readline';
import type { StoreConfig } from '../../src/store/config.ts';
import { openStore } from '../../src/store/store.ts';

const [configJson, stepId, startAtArg] = process.argv.slice(2);
if (!configJson || !stepId || !startAtArg) {
  console.error('usage: claim-racer.ts <store-config-json> <stepId> <startAtMs>');
  process.exit(2);
}
const config = JSON.parse(configJson) as StoreConfig;
const startAt = Number(startAtArg);

function startSignal(): Promise<'go' | 'clock'> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    const timer = setTimeout(() => finish('clock'), Math.max(0, startAt - Date.now()));
    lines.on('line', (line) => {
      if (line.trim() === 'go') finish('go');
    });
    function finish(how: 'go' | 'clock') {
      clearTimeout(timer);
      lines.close();
      resolve(how);
    }
  });
}

const store = await openStore(config);
try {
  // Connect before the start, so the race is between UPDATEs, not between connection setups.
  await store.steps.get(stepId);
  const signal = startSignal();
  process.stdout.write('ready\n');
  const released = await signal;
  const lateMs = Math.max(0, Date.now() - startAt);
  const claimed = await store.steps.claim(stepId, { leaseSeconds: 60 });
  process.stdout.write(`${JSON.stringify({ won: claimed !== undefined, lateMs, released })}\n`);
} finally {
  await store.close();
}
