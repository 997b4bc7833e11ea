// Latencies an operator feels, each the median of several samples:
// - approval_to_executing_ms_p50 (in process): the executor loop runs, sleeping on the wake bus
//   with a 15 s interval; from an operator's approval returning to the approved step's claim
//   having committed (the executor's observer is told at that moment, before the act).
// - cross_process_wake_ms_p50 (PostgreSQL): the same, with the approval made in this process and
//   the step claimed by an executor in another process, woken by NOTIFY; that process reports
//   the moment of its claim on the shared wall clock (performance.timeOrigin + now()).
//   `cross_process_after_quiet` (in details, not a target): the same with the operator pausing
//   QUIET_PAUSE_MS before each approval, past the pool's idle timeout.
// - takeover_after_kill_ms_p50 (PostgreSQL): an executor process claims a non-idempotent write
//   and is killed (SIGKILL) mid-act; from the kill to another executor having resolved the step
//   (blocked: the outcome is unknown), long before the claim's 35 s lease would run out: the
//   survivor's loop sees the claimant's process gone within a second (Executor's claimant watch),
//   and its presence lock free for PRESENCE_GRACE_MS (2 s: on PostgreSQL a process of this host's
//   name is believed gone only with its lock, docs/executor.md).
//   `cross_host_takeover_after_kill_ms_p50`: the same with the claimant named as an executor of
//   another host, so that only its presence lock tells (src/store/presence.ts): it is judged gone
//   once the lock has been free for PRESENCE_GRACE_MS, at two of the survivor's looks.
//
// The claim is timed where it happens rather than by polling the step: the executor takes the
// step from awaiting_approval through executing to completed without yielding to a poller in
// the same process (SQLite is synchronous), so a poller would time the whole act and the pass
// after it.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CapabilityService } from '../src/capabilities/service.ts';
import { newId } from '../src/core/ids.ts';
import { Executor } from '../src/execution/executor.ts';
import { validate } from '../src/planning/validate.ts';
import type { MindRecord, StepRecord, Store, StoreKind } from '../src/store/index.ts';
import { IDLE_CONNECTION_MS } from '../src/store/store.ts';
import { benchImplementations, benchRegistry } from './capabilities.ts';
import { benchStore } from './stores.ts';
import { benchDraft, benchStep } from './throughput.ts';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

function spread(latencies: readonly number[]): { p50: number; p90: number; samples: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: round(median(latencies)), p90: round(sorted[Math.floor(sorted.length * 0.9)]!), samples: latencies.length };
}

async function writePlan(store: Store, mind: MindRecord): Promise<string> {
  const draft = benchDraft([benchStep('W', 'bench.write')]);
  const validation = validate(draft, benchRegistry);
  const intention = await store.intentions.create({ mindId: mind.id, objective: 'benchmark', origin: 'operator' });
  // An author, so another operator can approve its write (four eyes).
  const plan = await store.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft, validation, status: 'validated', authoredBy: 'bench-author' });
  // plan_validated wakes the executors, here and (over NOTIFY) elsewhere.
  await store.events.append({ type: 'plan_validated', mindId: mind.id, planId: plan.id });
  return plan.steps[0]!.id;
}

/** Polls the step (without sleeping between reads) until `done` holds; fails after `timeoutMs`. */
async function until(store: Store, stepId: string, done: (step: StepRecord) => boolean, timeoutMs = 60_000): Promise<StepRecord> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const step = (await store.steps.get(stepId))!;
    if (done(step)) return step;
    if (step.status === 'failed') throw new Error(`step failed: ${step.error}`);
    if (performance.now() > deadline) throw new Error(`timed out; the step is ${step.status}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The wall clock in ms, sub-millisecond and shared by the processes of this machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

/** When each approved step's claim committed (wallMs), as its executor reported it. */
class ClaimTimes {
  readonly #at = new Map<string, number>();
  readonly #waiting = new Map<string, (at: number) => void>();
  claimed(stepId: string, at: number): void {
    this.#at.set(stepId, at);
    this.#waiting.get(stepId)?.(at);
  }
  of(stepId: string, timeoutMs = 60_000): Promise<number> {
    const at = this.#at.get(stepId);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no claim reported for step ${stepId}`)), timeoutMs);
      this.#waiting.set(stepId, (when) => {
        clearTimeout(timer);
        resolve(when);
      });
    });
  }
}

/**
 * Waits as an operator would before approving: until the plan shows that it awaits approval
 * (the executor that raised the request has settled it), and a little longer, since nobody
 * approves within a millisecond of a request appearing. Approving earlier would time the
 * executor finishing the pass that raised the request, not the wake-up.
 */
async function settled(store: Store, planId: string, pauseMs: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  while ((await store.plans.get(planId))?.status !== 'awaiting_approval') {
    if (performance.now() > deadline) throw new Error('the plan never showed that it awaits approval');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
}

/** How long the benchmark's operator looks at a request before approving it. */
const OPERATOR_PAUSE_MS = 100;

/**
 * The pause before the approvals of `cross_process_after_quiet`: longer than the PostgreSQL
 * pool's idle timeout (IDLE_CONNECTION_MS, store.ts), as when an operator takes a while over a
 * request. Only the connections the pool keeps warm are still open then.
 */
export const QUIET_PAUSE_MS = IDLE_CONNECTION_MS + 1000;

/** From each approval returning to its step's claim by whichever executor serves the mind, in ms. */
async function sampleApprovals(store: Store, mind: MindRecord, service: CapabilityService, claims: ClaimTimes, samples: number, pauseMs = OPERATOR_PAUSE_MS): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const stepId = await writePlan(store, mind);
    const waiting = await until(store, stepId, (s) => s.status === 'awaiting_approval');
    await settled(store, waiting.planId, pauseMs);
    const answer = await service.approve(waiting.approvalId!, 'bench-operator');
    const approved = wallMs();
    if (answer.status !== 'approved') throw new Error(`approval answered ${answer.status}`);
    latencies.push((await claims.of(stepId)) - approved);
    await until(store, stepId, (s) => s.status === 'completed');
  }
  return latencies;
}

async function setUpAskingMind(store: Store, host: string | null): Promise<MindRecord> {
  const mind = await store.minds.create({ name: `bench-${newId()}`, host });
  await store.policyRules.set({ mindId: mind.id, capability: 'bench.write', targetPattern: '*', decision: 'ask', approvers: 1 });
  return mind;
}

export async function approvalToExecuting(kind: StoreKind, samples: number): Promise<{ p50: number; p90: number; samples: number }> {
  const bench = await benchStore(kind);
  try {
    const { store } = bench;
    const mind = await setUpAskingMind(store, null);
    const service = new CapabilityService(store, benchRegistry, benchImplementations);
    const claims = new ClaimTimes();
    const executor = new Executor({ store, capabilities: service, concurrency: 4, observer: { approvalClaimed: (_, step) => claims.claimed(step.id, wallMs()) } });
    executor.start();
    let latencies: number[];
    try {
      latencies = await sampleApprovals(store, mind, service, claims, samples);
    } finally {
      await executor.stop();
    }
    return spread(latencies);
  } finally {
    await bench.dispose();
  }
}

interface Remote {
  child: ChildProcessWithoutNullStreams;
  name: string;
}

async function startRemote(configJson: string, host: string, mode: 'serve' | 'stall', claims?: ClaimTimes, nameHost?: string): Promise<Remote> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/processes/executor.ts', configJson, host, mode, ...(nameHost ? [nameHost] : [])], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done || !String(first.value).startsWith('ready ')) throw new Error('the remote executor did not start');
  // Then `claimed <step id> <wallMs>` for each approved step it claims.
  void (async () => {
    for (let line = await lines.next(); !line.done; line = await lines.next()) {
      const [word, stepId, at] = String(line.value).split(' ');
      if (word === 'claimed' && stepId && at) claims?.claimed(stepId, Number(at));
    }
  })();
  return { child, name: String(first.value).slice('ready '.length) };
}

async function stopRemote(remote: Remote): Promise<void> {
  if (remote.child.exitCode !== null || remote.child.signalCode !== null) return;
  const exited = new Promise((resolve) => remote.child.once('exit', resolve));
  remote.child.stdin.write('stop\n');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (remote.child.exitCode === null) remote.child.kill('SIGKILL');
}

export async function crossProcessWake(samples: number, pauseMs = OPERATOR_PAUSE_MS): Promise<{ p50: number; p90: number; samples: number }> {
  const bench = await benchStore('postgres');
  try {
    const { store } = bench;
    const mind = await setUpAskingMind(store, 'bench-remote');
    const service = new CapabilityService(store, benchRegistry, benchImplementations);
    const claims = new ClaimTimes();
    const remote = await startRemote(JSON.stringify(bench.config), 'bench-remote', 'serve', claims);
    let latencies: number[];
    try {
      latencies = await sampleApprovals(store, mind, service, claims, samples, pauseMs);
    } finally {
      await stopRemote(remote);
    }
    return spread(latencies);
  } finally {
    await bench.dispose();
  }
}

/** `elsewhere`: the killed executor is named as one of another host, whose end only its presence tells. */
export async function takeoverAfterKill(samples: number, elsewhere = false): Promise<{ p50: number; samples: number; lease_seconds: number }> {
  const bench = await benchStore('postgres');
  try {
    const { store } = bench;
    const mind = await store.minds.create({ name: `bench-${newId()}`, host: 'bench-remote' });
    await store.policyRules.set({ mindId: mind.id, capability: 'bench.write', targetPattern: '*', decision: 'allow', approvers: 1 });
    const service = new CapabilityService(store, benchRegistry, benchImplementations);
    const latencies: number[] = [];
    let lease = 0;
    for (let i = 0; i < samples; i += 1) {
      const remote = await startRemote(JSON.stringify(bench.config), 'bench-remote', 'stall', undefined, elsewhere ? 'bench-other-host' : undefined);
      let survivor: Executor | undefined;
      try {
        const stepId = await writePlan(store, mind);
        const held = await until(store, stepId, (s) => s.status === 'executing' && s.claimedBy === remote.name);
        lease = Math.round((held.leaseUntil!.getTime() - Date.now()) / 1000);
        // The survivor runs the daemon's default loop (a pass every 15 s unless woken or something
        // falls due, watching the live claimant's process in between) and is already running,
        // leaving the live claim alone, when the claimant is killed.
        survivor = new Executor({ store, capabilities: service, host: 'bench-remote' });
        survivor.start();
        await new Promise((resolve) => setTimeout(resolve, 500));
        const killed = performance.now();
        remote.child.kill('SIGKILL');
        await until(store, stepId, (s) => s.status === 'blocked', 30_000);
        latencies.push(performance.now() - killed);
      } finally {
        await survivor?.stop();
        await stopRemote(remote);
      }
    }
    return { p50: round(median(latencies)), samples: latencies.length, lease_seconds: lease };
  } finally {
    await bench.dispose();
  }
}
