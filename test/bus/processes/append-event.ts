// Another process writing to the same store, for the wake bus test across processes: opens the
// store, appends one event of the given type, closes and exits 0. Usage (see programArgs):
//   node test/bus/processes/append-event.ts <store-config-json> <event-type>

import type { EventType } from '../../../src/core/vocabulary.ts';
import { openStore, type StoreConfig } from '../../../src/store/index.ts';

const [configJson, type] = process.argv.slice(2) as [string, EventType];
const store = await openStore(JSON.parse(configJson) as StoreConfig);
await store.events.append({ type });
await store.close();
