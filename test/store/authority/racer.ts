// One contender in the authority races: its own process, its own connection. Usage:
//   node --import tsx test/store/authority/racer.ts <store-config-json> <clock-iso> <actions-json>
// Connects, prints "ready", then for each action waits for a line "go" on stdin, performs it
// and prints its outcome as one JSON line. SQLite needs real processes for this: better-sqlite3
// is synchronous, so two connections in one process never overlap (see docs/store.md).

import { createInterface } from 'node:readline';
import { ManualClock } from '../../../src/core/clock.ts';
import type { StoreConfig } from '../../../src/store/config.ts';
import { openStore } from '../../../src/store/store.ts';
import { perform, type RaceAction } from './actions.ts';

const [configJson, clockIso, actionsJson] = process.argv.slice(2);
if (!configJson || !clockIso || !actionsJson) {
  console.error('usage: authority/racer.ts <store-config-json> <clock-iso> <actions-json>');
  process.exit(2);
}
const actions = JSON.parse(actionsJson) as RaceAction[];
const store = await openStore(JSON.parse(configJson) as StoreConfig, { clock: new ManualClock(clockIso) });
const lines = createInterface({ input: process.stdin });
const waiting: (() => void)[] = [];
let released = 0;
lines.on('line', (line) => {
  if (line.trim() !== 'go') return;
  released++;
  waiting.shift()?.();
});
const nextGo = (taken: number) => new Promise<void>((resolve) => (released > taken ? resolve() : waiting.push(resolve)));

try {
  // Connect before the first race, so it is between statements, not between connection setups.
  await store.minds.list();
  process.stdout.write('ready\n');
  for (const [i, action] of actions.entries()) {
    await nextGo(i);
    process.stdout.write(`${JSON.stringify(await perform(store, action))}\n`);
  }
} finally {
  lines.close();
  await store.close();
}
