// Duplicate executors in separate processes on one PostgreSQL database: three processes race
// over many plans, each with its own connection pool and LISTEN connection. Every step is moved
// to completed by exactly one of them and every write runs exactly once (one execution record
// per write step's origin); a read may be read twice by racing processes, never completed twice.

import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { useStore } from '../support/stores.ts';
import { draftOf, makeWorld, readStep, step, untilPlansClose } from './support.ts';
import { programArgs } from '../support/programs.ts';

const PROCESSES = 3;
const PLANS = 60;

interface Racer {
  child: ChildProcessWithoutNullStreams;
  lines: AsyncIterator<string>;
}

function startRacer(configJson: string): Racer {
  const child = spawn(process.execPath, [...programArgs(new URL('./processes/race-executor.ts', import.meta.url)), configJson], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  return { child, lines: createInterface({ input: child.stdout })[Symbol.asyncIterator]() };
}

async function nextLine(racer: Racer): Promise<string> {
  const { value, done } = await racer.lines.next();
  if (done) throw new Error('the racer exited early');
  return value;
}

describe('executors in separate processes (postgres)', () => {
  const current = useStore('postgres');

  it(`${PROCESSES} processes run each step of ${PLANS} plans exactly once`, { timeout: 180_000 }, async () => {
    const ts = current();
    const w = await makeWorld(ts);
    // The racers run on the system clock: give the store's rows times that are not in the future.
    ts.clock.set(new Date(Date.now() - 60_000));
    await w.allow('test.read');
    await w.allow('test.write');
    const plans = [];
    for (let i = 0; i < PLANS; i += 1) {
      const { plan } = await w.plan(
        draftOf([
          readStep('A', 'test.read', { name: `a${i}` }),
          step('B', { kind: 'capability', capability: 'test.write', params: { name: `b${i}` }, depends_on: ['A'] }),
          readStep('C', 'test.read', { name: `c${i}` }, { depends_on: ['B'] }),
        ]),
      );
      plans.push(plan);
    }
    const racers = Array.from({ length: PROCESSES }, () => startRacer(JSON.stringify(ts.config)));
    try {
      const names = await Promise.all(racers.map(async (r) => (await nextLine(r)).replace(/^ready /, '')));
      for (const r of racers) r.child.stdin.write('go\n');
      await untilPlansClose(w, { minutes: 2, everyMs: 100 });
      for (const r of racers) r.child.stdin.write('stop\n');
      const reports = await Promise.all(racers.map(async (r) => JSON.parse((await nextLine(r)).replace(/^stopped \S+ /, '')) as { errors: string[] }));
      assert.deepEqual(
        reports.flatMap((r) => r.errors),
        [],
      );

      const events = await w.store.events.list({ mindId: w.mind.id, limit: 10_000 });
      for (const plan of plans) {
        const stored = await w.store.plans.get(plan.id);
        assert.equal(stored?.status, 'completed');
        for (const s of stored!.steps) {
          const executions = await w.store.executions.listByOrigin(`plan_step:${s.id}`);
          if (s.key === 'B') assert.equal(executions.length, 1, `the write of ${plan.id} ran exactly once`);
          else assert.ok(executions.length >= 1 && executions.length <= PROCESSES, `read ${s.key} of ${plan.id} was read at most once per racer`);
          const completions = events.filter((e) => e.type === 'plan_step_completed' && e.stepId === s.id);
          assert.equal(completions.length, 1, `step ${s.key} of ${plan.id} was completed once`);
        }
      }
      const claims = events.filter((e) => e.type === 'plan_step_started');
      assert.equal(claims.length, PLANS, 'each write was claimed once');
      const byRacer = new Map<string, number>();
      for (const e of events.filter((e) => e.type === 'plan_step_completed')) byRacer.set(String(e.data.executor), (byRacer.get(String(e.data.executor)) ?? 0) + 1);
      assert.ok([...byRacer.keys()].every((n) => names.includes(n)));
      assert.ok(byRacer.size >= 2, `more than one process did work: ${JSON.stringify([...byRacer])}`);
    } finally {
      for (const r of racers) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    }
  });
});
