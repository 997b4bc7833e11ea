// Crash tests with real processes: an executor process is killed (SIGKILL: no cleanup, no
// finally) at a chosen moment of acting on a step; then a new executor in this process, on the
// same store, finds the step `executing` with an expired lease and resolves it by its origin.
// A side-effect file shared by both processes counts what really happened.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { CapabilityImplementation } from '../../src/capabilities/implementation.ts';
import type { StepDraft } from '../../src/core/plan.ts';
import type { StepStatus } from '../../src/core/vocabulary.ts';
import { OUTCOME_UNKNOWN } from '../../src/execution/recovery.ts';
import { PRESENCE_GRACE_MS } from '../../src/execution/claimants.ts';
import { PRESENCE_NAMESPACE, presenceKey } from '../../src/store/presence.ts';
import { sql } from 'kysely';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { until } from '../support/until.ts';
import { draftOf, makeWorld, step, type World } from './support.ts';
import { programArgs } from '../support/programs.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function sideEffectsIn(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

function runUntilKilled(configJson: string, mode: string, clockIso: string, file: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...programArgs(new URL('./processes/crash-executor.ts', import.meta.url)), configJson, mode, clockIso, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, output }));
  });
}

/**
 * An executor process that claims the world's write, acts (its side effect in `file`) and hangs
 * holding the claim until killed; `kill` kills it and waits for its end. `extra`: the program's
 * host and how it drives passes (crash-executor.ts).
 */
async function holdingWrite(w: World, file: string, ...extra: string[]): Promise<{ kill(): Promise<void> }> {
  const holder = spawn(
    process.execPath,
    [...programArgs(new URL('./processes/crash-executor.ts', import.meta.url)), JSON.stringify(w.ts.config), 'write-hangs-in-action', w.clock.now().toISOString(), file, ...extra],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => holder.once('exit', resolve));
  const kill = async () => {
    holder.kill('SIGKILL');
    await exited;
  };
  try {
    await until(async () => sideEffectsIn(file).length === 1, 'the other process to claim the write and act');
  } catch (error) {
    await kill();
    throw error;
  }
  return { kill };
}

const write = (over: Partial<StepDraft> = {}) => step('W', { kind: 'capability', capability: 'test.write', params: { name: 'target' }, ...over });

for (const kind of STORE_KINDS) {
  describe(`executor killed mid-action (${kind})`, () => {
    const current = useStore(kind);
    let n = 0;

    /** Kills an executor process at `mode`'s moment and checks what it left committed (`leaves`), then recovers. */
    async function crash(mode: string, only: StepDraft, leaves: StepStatus, options: { allowWrite?: boolean; advanceSeconds?: number } = {}) {
      const file = join(dir, `${kind}-${mode}-${n++}.log`);
      const effect =
        (capability: string): CapabilityImplementation =>
        async (params) => {
          appendFileSync(file, `${capability} ${String(params.name)}\n`);
          return { observation: { name: String(params.name), value: `${capability} done` }, summary: `${capability} on ${String(params.name)}` };
        };
      const w: World = await makeWorld(current(), { implementations: { 'test.write': effect('test.write'), 'test.read': effect('test.read') } });
      await w.allow('test.read');
      if (options.allowWrite ?? true) await w.allow('test.write');
      const { plan, intention } = await w.plan(draftOf([only]));
      const died = await runUntilKilled(JSON.stringify(w.ts.config), mode, w.clock.now().toISOString(), file);
      assert.equal(died.signal, 'SIGKILL', `the executor process was killed (${died.output})`);
      const left = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(left.status, leaves, `the kill left the step ${leaves}`);
      w.advance(options.advanceSeconds ?? 60);
      const executor = w.executor();
      await executor.drain();
      // On PostgreSQL a claimant's free lock is believed only at two looks a grace apart
      // (claimants.ts): a pass that late judges it gone.
      if (kind === 'postgres' && options.advanceSeconds === 0) {
        await new Promise((resolve) => setTimeout(resolve, PRESENCE_GRACE_MS));
        await executor.drain();
      }
      assert.deepEqual(w.errors, []);
      return { w, plan, intention, stepId: left.id, file, executor };
    }

    it('a non-idempotent write killed after its write-ahead record is blocked, never repeated', async () => {
      const { w, stepId, intention, file } = await crash('write-dies-in-action', write(), 'executing');
      const blocked = (await w.store.steps.get(stepId))!;
      assert.equal(blocked.status, 'blocked');
      assert.equal(blocked.error, OUTCOME_UNKNOWN);
      const [started] = await w.store.executions.listByOrigin(`plan_step:${stepId}`);
      assert.equal(started?.status, 'started');
      assert.equal(blocked.executionId, started?.id);
      assert.equal((await w.store.intentions.get(intention.id))?.reason, 'outcome_unverified');
      assert.deepEqual(sideEffectsIn(file), ['test.write target'], 'the write happened once and was not repeated');
    });

    it('a claim whose executor process is gone is taken over at once (on PostgreSQL once its lock has been free for the grace), before its lease runs out', async () => {
      const { w, stepId, file } = await crash('write-dies-in-action', write(), 'executing', { advanceSeconds: 0 });
      const blocked = (await w.store.steps.get(stepId))!;
      assert.equal(blocked.status, 'blocked', 'recovered while the lease still had its whole length to run');
      assert.equal(blocked.error, OUTCOME_UNKNOWN);
      assert.deepEqual(sideEffectsIn(file), ['test.write target'], 'the write happened once and was not repeated');
    });

    it('a loop in the middle of a long pass takes over a claim of a killed executor without waiting for the pass to end', async () => {
      const file = join(dir, `${kind}-busy-${n++}.log`);
      let reads = 0;
      let begun = 0;
      const slowRead: CapabilityImplementation = async (params) => {
        begun += 1;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        reads += 1;
        return { observation: { name: String(params.name), value: 'read' }, summary: 'read slowly' };
      };
      const w: World = await makeWorld(current(), { implementations: { 'test.read': slowRead } });
      await w.allow('test.write');
      await w.allow('test.read');
      const { plan } = await w.plan(draftOf([write()]));
      const stepId = plan.steps[0]!.id;
      const holder = await holdingWrite(w, file);
      const executor = w.executor({ intervalMs: 3_600_000 });
      try {
        // A backlog of slow reads: the survivor's first pass runs them one by one, about 9 s.
        for (let i = 0; i < 6; i += 1) await w.plan(draftOf([step('R', { kind: 'capability', capability: 'test.read', params: { name: `slow-${i}` } })]));
        executor.start();
        await until(async () => begun > 0, 'the pass to begin its reads');
        await holder.kill();
        await until(async () => (await w.store.steps.get(stepId))?.status === 'blocked', 'the claim to be taken over', 15_000);
        assert.ok(reads < 6, `taken over while the pass still ran its reads (${reads} of 6 done)`);
        // The reads finish before the executor stops, leaving nothing due for the next test's executors.
        await until(async () => reads === 6, 'the reads to finish', 30_000);
      } finally {
        await holder.kill();
        await executor.stop();
      }
      assert.equal((await w.store.steps.get(stepId))?.error, OUTCOME_UNKNOWN);
      assert.deepEqual(sideEffectsIn(file), ['test.write target'], 'the write happened once and was not repeated');
      assert.deepEqual(w.errors, []);
    });

    it('a sleeping loop takes over a claim as soon as its executor process is killed, long before the lease or the interval', async () => {
      const file = join(dir, `${kind}-watched-${n++}.log`);
      const w: World = await makeWorld(current());
      await w.allow('test.write');
      const { plan } = await w.plan(draftOf([write()]));
      const stepId = plan.steps[0]!.id;
      const holder = await holdingWrite(w, file);
      const executor = w.executor({ intervalMs: 3_600_000 });
      try {
        executor.start();
        // Its first pass leaves the live claim alone; it then sleeps (for the lease's remaining
        // length on the manual clock, which never moves here, so only the watch can wake it).
        await until(async () => executor.ticks >= 1, 'the first pass');
        const live = (await w.store.steps.get(stepId))!;
        assert.equal(live.status, 'executing', `a live claim is not taken: ${live.error} ${JSON.stringify(live.result)} ${w.errors.join(' ')}`);
        await holder.kill();
        await until(async () => (await w.store.steps.get(stepId))?.status === 'blocked', 'the claim to be taken over', 15_000);
      } finally {
        await holder.kill();
        await executor.stop();
      }
      assert.equal((await w.store.steps.get(stepId))?.error, OUTCOME_UNKNOWN);
      assert.deepEqual(sideEffectsIn(file), ['test.write target'], 'the write happened once and was not repeated');
      assert.deepEqual(w.errors, []);
    });

    for (const elsewhere of [false, true])
      it(`an approved one-off write whose executor ${elsewhere ? 'on another host ' : ''}is killed mid-act ends with an unknown outcome within seconds, never repeated`, {
        skip: elsewhere && kind === 'sqlite' && 'a SQLite file is shared on one host only',
      }, async () => {
        const file = join(dir, `${kind}-one-off-${n++}.log`);
        const w: World = await makeWorld(current());
        const asked = await w.service.invoke({ mindId: w.mind.id, capability: 'test.write', params: { name: 'target' }, origin: 'operator:bob', authoredBy: 'bob', requireApproval: true });
        const approvalId = asked.status === 'pending' ? asked.approvalId : assert.fail(`asked for approval: ${JSON.stringify(asked)}`);
        assert.equal((await w.service.approve(approvalId, 'alice')).status, 'approved');
        const holder = await holdingWrite(w, file, ...(elsewhere ? ['far-host'] : []));
        const executor = w.executor({ intervalMs: 3_600_000 });
        try {
          const claimed = (await w.store.approvals.get(approvalId))!;
          assert.match(claimed.claimedBy, elsewhere ? /^far-host:\d+:[0-9a-f]{8}$/ : /:\d+:[0-9a-f]{8}$/, 'the claim names the executor performing it');
          assert.equal((await w.store.executions.get(claimed.executionId!))?.status, 'started');
          executor.start();
          await until(async () => executor.ticks >= 1, 'the first pass');
          // The manual clock never moves: only the claimant's end, never the claim's age, can free it.
          await new Promise((resolve) => setTimeout(resolve, PRESENCE_GRACE_MS + 500));
          assert.equal((await w.store.approvals.get(approvalId))?.status, 'approved', 'a live claim is left alone');
          await holder.kill();
          await until(async () => (await w.store.approvals.get(approvalId))?.status === 'failed', 'the claim to be taken over', 15_000);
        } finally {
          await holder.kill();
          await executor.stop();
        }
        const told = (await w.store.events.list({ mindId: w.mind.id, limit: 100 })).filter((e) => e.type === 'tool_failed');
        assert.deepEqual(
          told.map((e) => [e.data.code, e.data.approval_id]),
          [['outcome_unknown', approvalId]],
        );
        assert.deepEqual(sideEffectsIn(file), ['test.write target'], 'the write happened once and was not repeated');
        assert.deepEqual(w.errors, []);
      });

    for (const drives of ['loop', 'passes'] as const)
      it(`a claim of an executor on another host (${drives}) is left while its presence holds, and taken over once it is killed`, {
        skip: kind === 'sqlite' && 'a SQLite file is shared on one host only',
      }, async () => {
        const file = join(dir, `${kind}-elsewhere-${n++}.log`);
        const w: World = await makeWorld(current());
        await w.allow('test.write');
        const { plan } = await w.plan(draftOf([write()]));
        const stepId = plan.steps[0]!.id;
        const holder = await holdingWrite(w, file, 'far-host', drives);
        const executor = w.executor({ intervalMs: 3_600_000 });
        const presenceOf = async (name: string) => {
          const { rows } = await sql<{
            pid: number;
          }>`select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 2 and classid::int8 = ${PRESENCE_NAMESPACE} and objid::int8 = ${presenceKey('public', name)}`.execute(
            w.store.db,
          );
          return rows[0]?.pid;
        };
        try {
          const claimant = (await w.store.steps.get(stepId))!.claimedBy!;
          assert.match(claimant, /^far-host:\d+:[0-9a-f]{8}$/);
          executor.start();
          await until(async () => executor.ticks >= 1, 'the first pass');
          // Its connection dropped (a server restart, a network blip): the lock is let go and taken
          // again within about a second, inside the grace, so the live claim is still not taken.
          const first = await presenceOf(claimant);
          assert.ok(first, 'the claimant holds its presence');
          await sql`select pg_terminate_backend(${first})`.execute(w.store.db);
          await until(async () => ((await presenceOf(claimant)) ?? first) !== first, 'the presence to be held again', 10_000);
          // The sleeping loop looks every second: well past the grace, the live claim is left.
          await new Promise((resolve) => setTimeout(resolve, PRESENCE_GRACE_MS + 1500));
          const live = (await w.store.steps.get(stepId))!;
          assert.equal(live.status, 'executing', `a live claim is not taken: ${live.error} ${JSON.stringify(live.result)} ${w.errors.join(' ')}`);
          const killed = Date.now();
          await holder.kill();
          await until(async () => (await w.store.steps.get(stepId))?.status === 'blocked', 'the claim to be taken over', 15_000);
          assert.ok(Date.now() - killed >= PRESENCE_GRACE_MS, 'not before the grace');
        } finally {
          await holder.kill();
          await executor.stop();
        }
        assert.equal((await w.store.steps.get(stepId))?.error, OUTCOME_UNKNOWN);
        assert.deepEqual(sideEffectsIn(file), ['test.write target'], 'the write happened once and was not repeated');
        assert.deepEqual(w.errors, []);
      });

    it('a write whose executor died in its precondition, before the claim, is simply run: once', async () => {
      const precondition = { capability: 'test.read', params: { name: 'probe' }, field: 'value', comparison: 'exists' as const };
      const { w, stepId, file } = await crash('dies-in-precondition', write({ precondition }), 'ready');
      assert.equal((await w.store.steps.get(stepId))?.status, 'completed');
      const records = await w.store.executions.listByOrigin(`plan_step:${stepId}`);
      assert.deepEqual(
        records.map((e) => e.status),
        ['succeeded'],
        'the dead executor left no record of the write',
      );
      assert.deepEqual(sideEffectsIn(file), ['test.read probe', 'test.read probe', 'test.write target'], 'the check was read twice, the write made once');
    });

    it('an outcome commits with the step’s move: killed after it, the write is not run again and the plan closes', async () => {
      const { w, stepId, plan, intention, file } = await crash('write-dies-after-record', write(), 'completed');
      const done = (await w.store.steps.get(stepId))!;
      const [execution] = await w.store.executions.listByOrigin(`plan_step:${stepId}`);
      assert.equal(execution?.status, 'succeeded');
      assert.equal(done.executionId, execution?.id);
      assert.equal((await w.store.plans.get(plan.id))?.status, 'completed');
      assert.equal((await w.store.intentions.get(intention.id))?.status, 'fulfilled');
      assert.deepEqual(sideEffectsIn(file), ['test.write target']);
    });

    it('a read-only step is read before it is moved: killed mid-read, it is still ready and simply read again', async () => {
      const { w, stepId, file } = await crash('read-dies-in-action', step('R', { kind: 'capability', capability: 'test.read', params: { name: 'r' } }), 'ready');
      assert.equal((await w.store.steps.get(stepId))?.status, 'completed');
      assert.deepEqual(sideEffectsIn(file), ['test.read r', 'test.read r'], 'read twice: harmless');
    });

    it('an approved write killed after its one-statement claim, before acting, is blocked for an operator and never run', async () => {
      const file = join(dir, `${kind}-approved-dies-before-act-${n++}.log`);
      const w: World = await makeWorld(current(), {
        implementations: {
          'test.write': async (params) => {
            appendFileSync(file, `test.write ${String(params.name)}\n`);
            return { observation: { name: String(params.name), value: 'done' }, summary: 'written' };
          },
        },
      });
      const { plan } = await w.plan(draftOf([write()]));
      await w.executor().drain();
      const waiting = (await w.store.plans.get(plan.id))!.steps[0]!;
      assert.equal(waiting.status, 'awaiting_approval');
      assert.equal((await w.service.approve(waiting.approvalId!, 'alice')).status, 'approved');

      const died = await runUntilKilled(JSON.stringify(w.ts.config), 'approved-dies-before-act', w.clock.now().toISOString(), file);
      assert.equal(died.signal, 'SIGKILL', `the executor process was killed (${died.output})`);
      const claimed = (await w.store.steps.get(waiting.id))!;
      assert.equal(claimed.status, 'executing', 'the claim committed before the act');
      const approval = await w.store.approvals.get(waiting.approvalId!);
      assert.ok(approval?.executionId, 'the request was claimed with the step');
      assert.equal((await w.store.executions.get(approval.executionId))?.status, 'started', 'and its write-ahead row with them');

      w.advance(60);
      await w.executor().drain();
      const blocked = (await w.store.steps.get(waiting.id))!;
      assert.equal(blocked.status, 'blocked');
      assert.equal(blocked.error, OUTCOME_UNKNOWN);
      assert.deepEqual(sideEffectsIn(file), [], 'never acted, and not acted on by the executor that recovered it');
      assert.deepEqual(w.errors, []);
    });

    it('an approval request commits with the step’s wait: killed after it, approving it runs the write once', async () => {
      const { w, stepId, executor, file } = await crash('dies-after-approval', write(), 'awaiting_approval', { allowWrite: false });
      const waiting = (await w.store.steps.get(stepId))!;
      assert.equal(waiting.status, 'awaiting_approval');
      const approvals = await w.store.approvals.listByOrigin(`plan_step:${stepId}`);
      assert.equal(approvals.length, 1, 'no second request was raised');
      assert.equal(waiting.approvalId, approvals[0]?.id);
      assert.equal((await w.service.approve(waiting.approvalId!, 'alice')).status, 'approved');
      await executor.drain();
      assert.equal((await w.store.steps.get(stepId))?.status, 'completed');
      assert.deepEqual(sideEffectsIn(file), ['test.write target']);
    });
  });
}
