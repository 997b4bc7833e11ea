// Stopping the daemon while a step's action is in flight, on both stores: the daemon stops being
// ready at once, the executor claims nothing new, and the claimed step finishes (completed, its
// write-ahead execution row succeeded) instead of being left executing under a lease. The action
// runs exactly once, on a simulated host whose `systemctl` is slowed down to keep it in flight.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import type { DaemonConfig } from '../../src/daemon/config.ts';
import { startDaemon, type Daemon } from '../../src/daemon/serve.ts';
import { stepOrigin } from '../../src/execution/context.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import type { ExecutionRecord, StepRecord, Store } from '../../src/store/index.ts';
import { STORE_KINDS, openTestStore } from '../support/stores.ts';
import { exampleRestart } from './process.ts';

const UNIT = 'atlas-worker.service';
/** How long each `systemctl` call sleeps before doing its work (the status check and the restart alike). */
const SLOW_SECONDS = 1.5;
const STOP_WITHIN_MS = 15_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface InFlight {
  step: StepRecord;
  execution: ExecutionRecord;
}

/** Polls (bounded) until the restart step is claimed and its write-ahead execution row is written. */
async function restartInFlight(store: Store, planId: string, timeoutMs = 20_000): Promise<InFlight> {
  const deadline = Date.now() + timeoutMs;
  let seen = 'nothing yet';
  while (Date.now() < deadline) {
    const plan = await store.plans.get(planId);
    const step = plan?.steps.find((s) => s.key === 'P1');
    if (step) {
      const rows = (await store.executions.listByOrigin(stepOrigin(step.id))).filter((e) => e.capability === 'service.restart');
      seen = `plan ${plan!.status}, P1 ${step.status}, restart rows [${rows.map((r) => r.status).join(', ')}]`;
      const started = rows.find((r) => r.status === 'started');
      if (step.status === 'executing' && started) return { step, execution: started };
      assert.ok(
        rows.every((r) => r.status === 'started'),
        `the restart finished before the daemon was stopped (${seen}); slow systemctl down more`,
      );
    }
    await sleep(25);
  }
  throw new Error(`the restart never came in flight within ${timeoutMs} ms (${seen})`);
}

/** What /readyz says: its status code, or the error that stood in for an answer. */
async function readiness(url: string): Promise<number | string> {
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return error instanceof Error ? error.name : String(error);
  }
}

for (const kind of STORE_KINDS) {
  describe(`stopping the daemon mid-action (${kind})`, () => {
    it('finishes the claimed step, runs the action once and stops being ready at once', { timeout: 60_000 }, async () => {
      // The test's own store only reads (the daemon writes with the real clock through its own).
      const reader = await openTestStore(kind);
      const host = SimulatedHost.create();
      let daemon: Daemon | undefined;
      let stopping: Promise<void> | undefined;
      try {
        host.setClock(null);
        host.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', main_pid: 0, restart: { outcome: 'active', delay_seconds: 0 } });
        host.setBehaviour('systemctl', { sleep_seconds: SLOW_SECONDS });

        const config: DaemonConfig = {
          host: '127.0.0.1',
          port: 0,
          store: reader.config,
          anonymousRole: null,
          logLevel: 'silent',
          tickMs: 200,
          executorHost: 'shutdown-test',
          consoleDir: null,
        };
        let planId = '';
        daemon = await startDaemon({
          config,
          implementations: builtinImplementations({ runner: host.runner() }),
          prepare: async (store) => {
            const mind = await store.minds.create({ name: 'shutdown', host: null });
            await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: UNIT, decision: 'allow', approvers: 1 });
            const submitted = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: exampleRestart(), origin: 'operator' });
            assert.ok(submitted.stored && submitted.plan.status === 'validated', 'the restart plan is accepted');
            planId = submitted.plan.id;
          },
        });
        assert.equal(await readiness(daemon.url), 200, 'ready before stopping');

        const inFlight = await restartInFlight(reader.store, planId);
        assert.ok(inFlight.step.leaseUntil, 'the claimed step holds a lease');

        const started = Date.now();
        stopping = daemon.stop('test');
        assert.equal(daemon.ready(), false, 'not ready the moment stopping begins');
        const probe = await readiness(daemon.url);
        assert.notEqual(probe, 200, `/readyz does not answer ready once stopping began (answered ${probe})`);

        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([stopping.then(() => 'stopped' as const), new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), STOP_WITHIN_MS)))]);
        clearTimeout(timer);
        const ms = Date.now() - started;
        assert.equal(outcome, 'stopped', `stop resolved within ${STOP_WITHIN_MS} ms`);
        // The stop waited for the action rather than cutting it off.
        assert.ok(ms >= 200, `stop waited for the action in flight (${ms} ms)`);

        const plan = await reader.store.plans.get(planId);
        const p1 = plan!.steps.find((s) => s.key === 'P1')!;
        assert.equal(p1.status, 'completed', `the claimed step finished instead of being left ${p1.status}`);
        const execution = await reader.store.executions.get(inFlight.execution.id);
        assert.equal(execution?.status, 'succeeded', 'the write-ahead execution row was finished');
        const restartRows = (await reader.store.executions.listByOrigin(stepOrigin(p1.id))).filter((e) => e.capability === 'service.restart');
        assert.deepEqual(
          restartRows.map((r) => r.id),
          [inFlight.execution.id],
          'one restart execution row',
        );
        assert.deepEqual((await reader.store.steps.get(p1.id))?.status, 'completed', 'read back directly, the step is completed');

        const restarts = host.calls().filter((c) => c.program === 'systemctl' && c.argv[0] === 'restart');
        assert.equal(restarts.length, 1, `exactly one restart reached the host: ${JSON.stringify(host.calls())}`);
        assert.equal(host.unit(UNIT)?.restarts, 1);
        // Nothing of this plan is left executing (the verify step was never claimed after the stop).
        assert.ok(
          plan!.steps.every((s) => s.status !== 'executing'),
          plan!.steps.map((s) => `${s.key} ${s.status}`).join(', '),
        );
      } finally {
        if (daemon) await (stopping ?? daemon.stop('test cleanup')).catch(() => {});
        host.remove();
        await reader.dispose();
      }
    });
  });
}
