// An approval only records the decision; the approved action runs in the executor serving the
// mind's host, whoever approved and wherever. Two daemons share one PostgreSQL, each with its
// own simulated host (alpha and beta); the mind is bound to alpha. Everything is approved
// through beta's daemon, yet every restart lands on alpha's host, for a plan step and for a
// one-off invoke alike, and beta's host is never touched.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { loadDaemonConfig } from '../../src/daemon/config.ts';
import { startDaemon, type Daemon } from '../../src/daemon/serve.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import type { MindRecord } from '../../src/store/index.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { exampleRestart } from './process.ts';

const UNIT = 'atlas-worker.service';

async function until<T>(what: string, read: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('approved actions run on the mind’s host (postgres, two daemons)', () => {
  let place: TestStore;
  const hosts = { alpha: SimulatedHost.create(), beta: SimulatedHost.create() };
  const daemons: Partial<Record<keyof typeof hosts, Daemon>> = {};
  let mind: MindRecord;

  before(async () => {
    place = await openTestStore('postgres');
    // The daemons run on the system clock: this store writes with it too (a plan's wall-time budget counts from its creation).
    place.clock.set(new Date());
    for (const host of Object.values(hosts)) {
      host.setClock(null);
      host.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', main_pid: 0, restart: { outcome: 'active', delay_seconds: 0 } });
    }
    const url = place.config.kind === 'postgres' ? place.config.url : '';
    for (const name of ['alpha', 'beta'] as const) {
      // A long tick: only wake-ups (approval_approved over NOTIFY) make these executors act promptly.
      const config = loadDaemonConfig({ db: url, port: '0', logLevel: 'silent', console: 'none', executorHost: name, tickMs: '60000' }, {});
      daemons[name] = await startDaemon({ config, implementations: builtinImplementations({ runner: hosts[name].runner() }) });
    }
    mind = await place.store.minds.create({ name: 'bound-to-alpha', host: 'alpha' });
    await place.store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: UNIT, decision: 'ask', approvers: 1 });
    await place.store.policyRules.set({ mindId: mind.id, capability: 'service.status', targetPattern: '*', decision: 'allow', approvers: 1 });
  });

  after(async () => {
    for (const daemon of Object.values(daemons)) await daemon?.stop('test');
    await place?.dispose();
    for (const host of Object.values(hosts)) host.remove();
  });

  it('a plan step approved through the other host’s daemon restarts the unit on the mind’s host', { timeout: 60_000 }, async () => {
    const submitted = await submitPlan(place.store, builtinRegistry(), { mindId: mind.id, input: exampleRestart(), origin: 'operator', authoredBy: 'alice' });
    assert.ok(submitted.stored && submitted.plan.status === 'validated');
    const planId = submitted.plan.id;
    // Nothing wakes the executors for a plan stored behind their backs: alpha finds it on a pass.
    await daemons.alpha!.executor.tick();
    const waiting = await until('the restart to wait for approval', async () => (await place.store.plans.get(planId))?.steps.find((s) => s.key === 'P1' && s.status === 'awaiting_approval'));
    const answer = await daemons.beta!.capabilities.approve(waiting.approvalId!, 'bob');
    assert.equal(answer.status, 'approved');
    const done = await until('the restart to complete', async () => (await place.store.plans.get(planId))?.steps.find((s) => s.key === 'P1' && s.status === 'completed'));
    // Performed at once on alpha's wake-up, and its plan settled with it: the verify step is next.
    await until('the verify step to be promoted', async () => (await place.store.plans.get(planId))?.steps.find((s) => s.key === 'V1' && s.status !== 'pending'));
    assert.equal(hosts.alpha.unit(UNIT)?.restarts, 1, 'restarted on alpha');
    assert.equal(hosts.beta.unit(UNIT)?.restarts ?? 0, 0, 'never on beta');
    const approval = (await place.store.approvals.get(waiting.approvalId!))!;
    assert.equal(approval.status, 'executed');
    assert.equal(approval.executionId, done.executionId);
    const started = (await place.store.events.list({ planId, limit: 100 })).find((e) => e.type === 'plan_step_started' && e.stepId === done.id);
    assert.match(String(started?.data.executor), /./);
    assert.equal(started?.data.executor, daemons.alpha!.executor.name, 'claimed by alpha’s executor');
  });

  it('a one-off invoke raised and approved through the other daemon runs on the mind’s host', { timeout: 60_000 }, async () => {
    const before = hosts.alpha.unit(UNIT)?.restarts ?? 0;
    const pending = await daemons.beta!.capabilities.invoke({ mindId: mind.id, capability: 'service.restart', params: { unit: UNIT }, origin: 'operator:bob', authoredBy: 'bob' });
    assert.equal(pending.status, 'pending');
    const id = pending.status === 'pending' ? pending.approvalId : '';
    assert.equal((await daemons.beta!.capabilities.approve(id, 'carol')).status, 'approved');
    const executed = await until('the approved restart to run', async () => {
      const approval = await place.store.approvals.get(id);
      return approval?.status === 'executed' ? approval : undefined;
    });
    assert.equal(hosts.alpha.unit(UNIT)?.restarts, before + 1, 'restarted on alpha');
    assert.equal(hosts.beta.unit(UNIT)?.restarts ?? 0, 0, 'never on beta');
    const execution = await place.store.executions.get(executed.executionId!);
    assert.equal(execution?.status, 'succeeded');
    assert.equal(execution?.approvalId, id);
  });
});
