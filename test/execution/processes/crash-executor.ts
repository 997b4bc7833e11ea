// An executor that dies (SIGKILL, no cleanup) at a chosen moment of acting on a step. Usage:
//   node --import tsx test/execution/processes/crash-executor.ts <store-config-json> <mode> <clock-iso> <side-effect-file> [<host> [loop|passes]]
// Every side effect its implementations perform is first appended to the side-effect file, so
// the test can count what really happened across processes. Modes:
//   write-dies-in-action     test.write is written ahead (`started`), performs its effect, then the process dies
//   write-dies-after-record  test.write finishes and its outcome commits (with the step's move), then the process dies
//   read-dies-in-action      test.read performs its effect and the process dies before anything is recorded
//   dies-in-precondition     the precondition read kills the process before the write is attempted
//   dies-after-approval      the approval request commits (with the step's wait), then the process dies
//   approved-dies-before-act an approved test.write's claim commits (steps.claimApproved: step, request,
//                            `started` row), then the process dies as the act begins, before any effect
//   write-hangs-in-action    test.write is written ahead (`started`), performs its effect and never returns:
//                            the process lives on holding the claim until the test kills it (a plan
//                            step's, or an approved one-off call's, which its passes perform)
// If the process survives, it prints "survived" and exits with 3. With <host>, the executor is named as
// one of that host (an executor elsewhere sharing the store) and runs its loop (`loop`, the default),
// holding its presence on PostgreSQL as a daemon's does, or drives passes itself (`passes`), which
// hold it while they run.

import { appendFileSync } from 'node:fs';
import type { CapabilityImplementation } from '../../../src/capabilities/implementation.ts';
import { CapabilityService } from '../../../src/capabilities/service.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { Executor } from '../../../src/execution/executor.ts';
import { newExecutorName } from '../../../src/execution/claimants.ts';
import { openStore, type StoreConfig } from '../../../src/store/index.ts';
import { testRegistry } from '../../support/test-capabilities.ts';
import { createRegistry } from '../../../src/capabilities/registry.ts';

const [configJson, mode, clockIso, sideEffects, host, drives] = process.argv.slice(2) as [string, string, string, string, string | undefined, 'loop' | 'passes' | undefined];
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};
const store = await openStore(JSON.parse(configJson) as StoreConfig, { clock: new ManualClock(clockIso) });

const effect =
  (capability: string, diesHere: boolean): CapabilityImplementation =>
  async (params) => {
    appendFileSync(sideEffects, `${capability} ${String(params.name)}\n`);
    if (diesHere) {
      die();
      await new Promise(() => {});
    }
    return { observation: { name: String(params.name), value: `${capability} done` }, summary: `${capability} on ${String(params.name)}` };
  };
const hangs: CapabilityImplementation = async (params) => {
  appendFileSync(sideEffects, `test.write ${String(params.name)}\n`);
  return new Promise(() => {});
};
const diesAtOnce: CapabilityImplementation = () => die();
// An executor that hangs, or one elsewhere, holds its claim for many seconds while the test looks: its write may take a minute.
const registry = host || mode === 'write-hangs-in-action' ? createRegistry(testRegistry.list().map((d) => (d.name === 'test.write' ? { ...d, timeoutSeconds: 60 } : d))) : testRegistry;
const service = new CapabilityService(store, registry, {
  'test.write': mode === 'write-hangs-in-action' ? hangs : mode === 'approved-dies-before-act' ? diesAtOnce : effect('test.write', mode === 'write-dies-in-action'),
  'test.read': effect('test.read', mode === 'read-dies-in-action' || mode === 'dies-in-precondition'),
});
if (mode === 'write-dies-after-record') {
  store.wakeups.on((type) => {
    if (type === 'tool_executed') die();
  });
}
if (mode === 'dies-after-approval') {
  // Dies right after the commit that raised the approval request, before anything else runs.
  const transaction = store.transaction.bind(store);
  (store as { transaction: typeof store.transaction }).transaction = async (work) => {
    const result = await transaction(work);
    if ((await store.approvals.list({ status: 'pending' })).length > 0) die();
    return result;
  };
}
if (host) {
  const executor = new Executor({ store, capabilities: service, name: newExecutorName(host), intervalMs: 3_600_000 });
  if (drives === 'passes') await executor.drain();
  else executor.start();
  await new Promise(() => {});
}
// The default name (host:pid:suffix) lets a survivor on this host see that this process is gone.
await new Executor({ store, capabilities: service }).drain();
process.stdout.write('survived\n');
await store.close();
process.exit(3);
