// Run as a separate process: migrates a store and is killed (SIGKILL) right after the statement
// whose SQL matches the given pattern ran, i.e. a crash in the middle of a migration.
// Usage: node --import tsx test/support/migration-killer.ts <store-config-json> <sql-pattern>

import { openStore, type StoreConfig } from '../../src/store/index.ts';

const [configJson, pattern] = process.argv.slice(2);
const killAfter = new RegExp(pattern!, 'i');
const store = await openStore(JSON.parse(configJson!) as StoreConfig, {
  observeQuery: (sql) => {
    if (killAfter.test(sql)) process.kill(process.pid, 'SIGKILL');
  },
});
await store.migrate();
process.stdout.write(`no statement matched ${pattern}\n`);
process.exit(3);
