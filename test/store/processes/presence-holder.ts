// Holds an executor's presence until killed. Usage:
//   node --import tsx test/store/processes/presence-holder.ts <store-config-json> <executor name>
// Prints "held" once the lock is held.

import { openStore, type StoreConfig } from '../../../src/store/index.ts';

const [configJson, name] = process.argv.slice(2) as [string, string];
const store = await openStore(JSON.parse(configJson) as StoreConfig);
await store.presence.hold(name).whenHeld();
process.stdout.write('held\n');
await new Promise(() => {});
