// Run as a separate process: invokes test.write through the capability service with an
// implementation that kills the process before doing anything, i.e. a crash between the
// write-ahead `started` record and the side effect.
// Usage: node --import tsx test/support/crash-invoker.ts <store-config-json> <mind-id> <origin>

import { CapabilityService } from '../../src/capabilities/service.ts';
import { openStore, type StoreConfig } from '../../src/store/index.ts';
import { testRegistry } from './test-capabilities.ts';

const [configJson, mindId, origin] = process.argv.slice(2);
const store = await openStore(JSON.parse(configJson!) as StoreConfig);
const service = new CapabilityService(store, testRegistry, {
  'test.write': async () => {
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => {});
    throw new Error('unreachable');
  },
});
await service.invoke({ mindId: mindId!, capability: 'test.write', params: { name: 'crash-target' }, origin: origin! });
process.stdout.write('the side effect ran without a crash\n');
process.exit(3);
