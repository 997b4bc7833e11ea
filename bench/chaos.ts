// `npm run bench:chaos`: a chaos run of executors sharing one PostgreSQL, each named for a host of
// its own, so that only presence (src/store/presence.ts) tells one that another has gone. Three
// executor processes (bench/processes/chaos-worker.ts) run restart → verify plans, read-only
// plans and one-off restarts an operator approves (outside any plan, performed by whichever
// executor the approval wakes first) on one simulated host while one of them is SIGKILLed every
// 1–3 s and replaced, and now and then a live one's presence connection is cut
// (pg_terminate_backend). Then the survivors drain, and the run checks what must never happen:
// - a restart reaching the host twice for one step or one approval, or more host restarts than
//   write-ahead rows;
// - a step blocked, or an approved restart failed, for an operator without a `started` record
//   whose outcome is unknown;
// - a claim (of a step or of an approved action) taken over from an executor still running;
// - a step still executing, a plan never started, an approved action never ended, a plan step
//   that raised more than one approval request or whose approved request was never performed,
//   an error or crash in a worker.
// It prints what it found and the takeover latency after each kill, and exits 1 on a violation.
// Minutes of CPU: a script, not a test. CHAOS_SECONDS (default 90), CHAOS_PLANS (180),
// CHAOS_APPROVALS (60), CHAOS_BLIPS (4) set its size. CHAOS_STORE=sqlite runs the same on one
// SQLite file instead: the executors are then of this host (as a daemon and the processes
// beside it, or the daemon after its own crash, are), judged gone by their process alone, and
// no presence is cut (SQLite keeps none).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { SimulatedHost } from '../src/capabilities/host/simulated/host.ts';
import { builtinImplementations } from '../src/capabilities/builtin-implementations.ts';
import { builtinRegistry } from '../src/capabilities/registry.ts';
import { CapabilityService } from '../src/capabilities/service.ts';
import type { PlanDraft, StepDraft } from '../src/core/plan.ts';
import { OUTCOME_UNKNOWN } from '../src/execution/recovery.ts';
import { validate } from '../src/planning/validate.ts';
import { PRESENCE_NAMESPACE, presenceKey } from '../src/store/presence.ts';
import { median } from './latency.ts';
import { benchStore } from './stores.ts';
import { benchDraft, benchStep } from './throughput.ts';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 90);
const PLANS = Number(process.env.CHAOS_PLANS ?? 180);
const APPROVALS = Number(process.env.CHAOS_APPROVALS ?? 60);
const BLIPS = Number(process.env.CHAOS_BLIPS ?? 4);
const WORKERS = 3;
const STORE = process.env.CHAOS_STORE ?? 'postgres';
if (STORE !== 'postgres' && STORE !== 'sqlite') throw new Error(`CHAOS_STORE must be postgres or sqlite, not ${STORE}`);
// SQLite keeps no presence to cut.
const CUTS = STORE === 'postgres' ? BLIPS : 0;

interface Line {
  at: number;
  kind: string;
  message: string;
  data?: Record<string, unknown>;
}

interface Worker {
  child: ChildProcess;
  name: string;
  lines: Line[];
  /** When it was SIGKILLed; null while it runs. */
  killedAt: number | null;
  /** Not to be killed before this (it was just cut off its presence, to see it come back). */
  spareUntil: number;
}

/** A step of the benchmark's shape (throughput.ts) with the parts a chaos plan sets. */
function step(key: string, over: Partial<StepDraft>): StepDraft {
  return { ...benchStep(key, ''), params: {}, ...over };
}

function draft(objective: string, steps: StepDraft[]): PlanDraft {
  return { ...benchDraft(steps), objective, budget: { invocations: 10, wall_seconds: 600 } };
}

/** Restart a failed unit if it is not running, expecting it active within a minute, then verify. */
function restartPlan(unit: string): PlanDraft {
  const status = { capability: 'service.status', params: { unit } };
  return draft(`Restart ${unit} and confirm`, [
    step('P1', {
      capability: 'service.restart',
      params: { unit },
      expectation: { statement: `${unit} is active`, confidence: 0.8, within_seconds: 60, check: { ...status, field: 'active_state', comparison: 'equals', value: 'active' } },
      precondition: { ...status, statement: `${unit} is not running`, field: 'active_state', comparison: 'not_equals', value: 'active', fulfils_intention: true },
    }),
    step('V1', { kind: 'verify', depends_on: ['P1'], capability: 'service.status', params: { unit }, spec: { verifies: 'P1', interval_seconds: 10 } }),
  ]);
}

function readPlan(unit: string): PlanDraft {
  return draft(`Read ${unit}`, [step('R1', { capability: 'service.status', params: { unit } }), step('R2', { capability: 'service.status', params: { unit }, depends_on: ['R1'] })]);
}

const bench = await benchStore(STORE);
const { store, config } = bench;
const hostDir = mkdtempSync(join(tmpdir(), 'praxis-chaos-'));
const host = SimulatedHost.create(hostDir);
const registry = builtinRegistry();
const mind = await store.minds.create({ name: 'chaos', host: null });
for (const capability of ['service.restart', 'service.status']) await store.policyRules.set({ mindId: mind.id, capability, targetPattern: '*', decision: 'allow', approvers: 1 });
// A quarter of the restarts are of units an operator must approve (chaos-ask-*): their steps wait
// for an approval that the sweep below gives within a quarter second, and are then claimed with
// the request (steps.claimApproved) by whichever executor the approval wakes first.
const units = Array.from({ length: PLANS }, (_, i) => ({ restart: i % 3 !== 2, unit: `chaos-${i % 6 === 1 ? 'ask-' : ''}${String(i).padStart(3, '0')}.service` }));
for (const [i, { restart, unit }] of units.entries()) {
  host.setUnit(unit, restart ? { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 0 } } : { active_state: 'active', sub_state: 'running', main_pid: 100 + i });
}
// One-off restarts: raised by an operator, approved by another, each of a unit of its own.
const service = new CapabilityService(store, registry, builtinImplementations({ runner: host.runner() }));
const onceUnits = Array.from({ length: APPROVALS }, (_, i) => `chaos-once-${String(i).padStart(3, '0')}.service`);
for (const unit of onceUnits) host.setUnit(unit, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active', delay_seconds: 0 } });
for (const targetPattern of ['chaos-once-*', 'chaos-ask-*']) await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern, decision: 'ask', approvers: 1 });

const workers: Worker[] = [];
let hosts = 0;
async function startWorker(): Promise<void> {
  hosts += 1;
  // On PostgreSQL each is named for a host of its own, so that only its presence tells the others it has gone.
  const nameHost = STORE === 'postgres' ? `chaos-host-${hosts}` : hostname();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/processes/chaos-worker.ts', JSON.stringify(config), hostDir, nameHost], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Line[] = [];
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      const line = JSON.parse(text) as Line;
      lines.push(line);
      if (line.kind === 'ready') resolve(line.message);
    });
    child.once('exit', () => reject(new Error('a chaos worker exited before it was ready')));
  });
  workers.push({ child, name: await ready, lines, killedAt: null, spareUntil: 0 });
}
const running = () => workers.filter((w) => w.killedAt === null);

// Should this script fail, its workers go with it rather than run on against the store.
process.on('exit', () => {
  for (const w of running()) w.child.kill('SIGKILL');
});
for (let i = 0; i < WORKERS; i += 1) await startWorker();
process.stdout.write(`${WORKERS} executors ready on ${STORE}; ${PLANS} plans and ${APPROVALS} approved restarts over ${SECONDS} s, a SIGKILL every 1-3 s, ${CUTS} presence cuts\n`);
const started = Date.now();
const end = started + SECONDS * 1000;
const kills: { name: string; at: number }[] = [];
const blips: { name: string; at: number }[] = [];

const feeding = (async () => {
  for (const [i, { restart, unit }] of units.entries()) {
    const due = started + (i * (SECONDS - 10) * 1000) / PLANS;
    if (due > Date.now()) await sleep(due - Date.now());
    const planned = restart ? restartPlan(unit) : readPlan(unit);
    const validation = validate(planned, registry);
    if (!validation.valid) throw new Error(`a chaos plan does not validate: ${JSON.stringify(validation.errors)}`);
    const intention = await store.intentions.create({ mindId: mind.id, objective: planned.objective, origin: 'operator', authoredBy: 'chaos' });
    await store.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft: planned, validation, status: 'validated', authoredBy: 'chaos' });
  }
})();

const approving = (async () => {
  for (const [i, unit] of onceUnits.entries()) {
    const due = started + 2000 + (i * (SECONDS - 12) * 1000) / Math.max(1, APPROVALS);
    if (due > Date.now()) await sleep(due - Date.now());
    const asked = await service.invoke({ mindId: mind.id, capability: 'service.restart', params: { unit }, origin: 'operator:bob', authoredBy: 'bob' });
    if (asked.status !== 'pending') throw new Error(`a one-off restart was not put to an operator: ${JSON.stringify(asked)}`);
    const approved = await service.approve(asked.approvalId, 'alice');
    if (approved.status !== 'approved') throw new Error(`approving a one-off restart failed: ${JSON.stringify(approved)}`);
  }
})();

// The operator on call: approves what plan steps ask for, until the run has drained.
let sweeping = true;
const approvedSteps = new Set<string>();
const sweep = (async () => {
  while (sweeping) {
    for (const pending of await store.approvals.list({ mindId: mind.id, status: 'pending' })) {
      if (!pending.origin.startsWith('plan_step:')) continue;
      if ((await service.approve(pending.id, 'alice')).status === 'approved') approvedSteps.add(pending.id);
    }
    await sleep(250);
  }
})();

const killing = (async () => {
  await sleep(3000);
  while (Date.now() < end) {
    const candidates = running().filter((w) => w.spareUntil < Date.now());
    const victim = candidates[Math.floor(Math.random() * candidates.length)];
    if (victim) {
      victim.killedAt = Date.now();
      victim.child.kill('SIGKILL');
      kills.push({ name: victim.name, at: victim.killedAt });
      await startWorker();
    }
    await sleep(1000 + Math.random() * 2000);
  }
})();

const cutting = (async () => {
  for (let i = 0; i < CUTS && Date.now() < end - 10_000; i += 1) {
    await sleep(((SECONDS - 15) * 1000) / Math.max(1, CUTS));
    const victim = running()[0];
    if (!victim) continue;
    victim.spareUntil = Date.now() + 10_000;
    // Its presence connection: the session holding its lock (the store's schema is public here).
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_locks
      where locktype = 'advisory' and granted and objsubid = 2 and classid::int8 = ${PRESENCE_NAMESPACE} and objid::int8 = ${presenceKey('public', victim.name)}`.execute(store.db);
    if (rows[0]?.ended) blips.push({ name: victim.name, at: Date.now() });
  }
})();

await Promise.all([feeding, approving, killing, cutting]);
process.stdout.write(`chaos over after ${kills.length} kills and ${blips.length} presence cuts; draining\n`);
const drainEnd = Date.now() + 180_000;
for (;;) {
  const { rows } = await sql<{ open: number }>`
    select cast(count(*) as integer) as open from plan_steps s join plans p on p.id = s.plan_id
    where p.status = 'validated' or (s.status in ('ready', 'executing', 'awaiting_approval', 'awaiting_grant', 'waiting') and p.status not in ('completed', 'failed', 'abandoned', 'superseded'))`.execute(
    store.db,
  );
  const approved = await store.approvals.list({ status: 'approved' });
  if ((rows[0]!.open === 0 && approved.length === 0) || Date.now() > drainEnd) break;
  await sleep(1000);
}
sweeping = false;
await sweep;

// What happened, from the store, the host's call log and the workers' logs.
const violations: string[] = [];
const lines = workers.flatMap((w) => w.lines.map((line) => ({ ...line, worker: w.name })));
const TAKEOVERS = ['taking over a claim whose executor is gone', 'taking over the claim of an approved action whose executor is gone'];
const takeovers = lines.filter((l) => TAKEOVERS.includes(l.message)).map((l) => ({ at: l.at, claimant: String(l.data?.claimant), action: l.message === TAKEOVERS[1] }));
const killedAt = new Map(kills.map((k) => [k.name, k.at]));
for (const t of takeovers) {
  const killed = killedAt.get(t.claimant);
  if (killed === undefined || killed > t.at) violations.push(`a claim of ${t.claimant} was taken over while it still ran`);
}
const latencies = kills.flatMap((k) => {
  const first = takeovers.filter((t) => t.claimant === k.name).map((t) => t.at - k.at);
  return first.length > 0 ? [Math.min(...first)] : [];
});
const restartsByUnit = new Map<string, number>();
for (const call of host.calls()) if (call.program === 'systemctl' && call.argv[0] === 'restart') restartsByUnit.set(call.argv.at(-1)!, (restartsByUnit.get(call.argv.at(-1)!) ?? 0) + 1);
const restarts = await store.db.selectFrom('plan_steps').select(['id', 'status', 'error', 'params']).where('key', '=', 'P1').execute();
let blocked = 0;
let blockedBeforeTheHost = 0;
for (const restart of restarts) {
  const unit = String((typeof restart.params === 'string' ? JSON.parse(restart.params) : restart.params).unit);
  const rows = (await store.executions.listByOrigin(`plan_step:${restart.id}`)).filter((e) => e.capability === 'service.restart');
  const calls = restartsByUnit.get(unit) ?? 0;
  if (calls > 1) violations.push(`${unit} was restarted ${calls} times`);
  if (calls > rows.length) violations.push(`${unit}: ${calls} host restarts for ${rows.length} write-ahead records`);
  if (restart.status === 'blocked') {
    blocked += 1;
    if (calls === 0) blockedBeforeTheHost += 1;
    if (restart.error !== OUTCOME_UNKNOWN || !rows.some((e) => e.status === 'started')) violations.push(`${unit} blocked without a started record of unknown outcome (${restart.error})`);
  }
}
// The one-off restarts: each ended, reached the host at most once and never more often than
// written ahead, and failed for an unknown outcome only with a `started` record.
const onceEnded = { executed: 0, unknown: 0, beforeTheHost: 0 };
// The plan steps' requests: one for each step that asked, and none approved that its step never took up.
const stepRequests = (await store.approvals.list({ mindId: mind.id })).filter((a) => a.origin.startsWith('plan_step:'));
const requestsByStep = new Map<string, number>();
for (const request of stepRequests) requestsByStep.set(request.origin, (requestsByStep.get(request.origin) ?? 0) + 1);
for (const [origin, n] of requestsByStep) if (n > 1) violations.push(`${origin} raised ${n} approval requests`);
for (const request of stepRequests) if (request.status === 'approved' && request.executionId === null) violations.push(`${request.origin}: request ${request.id} approved and never performed`);
const executions = await store.executions.listByMind(mind.id);
for (const approval of (await store.approvals.list({ mindId: mind.id })).filter((a) => !a.origin.startsWith('plan_step:'))) {
  const unit = String(approval.params.unit);
  const rows = executions.filter((e) => e.approvalId === approval.id && e.capability === 'service.restart');
  const calls = restartsByUnit.get(unit) ?? 0;
  if (calls > 1) violations.push(`${unit} (approved once) was restarted ${calls} times`);
  if (calls > rows.length) violations.push(`${unit}: ${calls} host restarts for ${rows.length} write-ahead records`);
  if (approval.status === 'executed') onceEnded.executed += 1;
  else if (approval.status === 'failed') {
    const unknown = rows.find((e) => e.id === approval.executionId)?.status === 'started';
    if (!unknown) violations.push(`${unit}: approved restart failed without a started record (${approval.executionId})`);
    onceEnded.unknown += 1;
    if (calls === 0) onceEnded.beforeTheHost += 1;
  } else violations.push(`${unit}: approved restart left ${approval.status}`);
}
const { rows: left } = await sql<{ executing: number; validated: number }>`
  select (select cast(count(*) as integer) from plan_steps where status = 'executing') as executing, (select cast(count(*) as integer) from plans where status = 'validated') as validated`.execute(
  store.db,
);
if (left[0]!.executing > 0) violations.push(`${left[0]!.executing} steps still executing after the drain`);
if (left[0]!.validated > 0) violations.push(`${left[0]!.validated} plans never started`);
for (const l of lines) if (l.kind === 'error' || l.kind === 'crash') violations.push(`${l.worker}: ${l.message} ${JSON.stringify(l.data ?? {})}`);
const reheld = blips.map((b) => {
  const back = lines.find((l) => l.worker === b.name && l.at >= b.at && l.message.startsWith("holding this executor's presence again"));
  return back ? back.at - b.at : null;
});

const sorted = [...latencies].sort((a, b) => a - b);
process.stdout.write(
  [
    `restart steps ${restarts.length}: ${restarts.filter((r) => r.status === 'completed').length} completed, ${blocked} blocked for an operator (outcome unknown; ${blockedBeforeTheHost} of them never reached the host)`,
    `plan steps approved by the operator on call ${approvedSteps.size}`,
    `approved one-off restarts ${onceUnits.length}: ${onceEnded.executed} executed, ${onceEnded.unknown} failed with an unknown outcome (${onceEnded.beforeTheHost} of them never reached the host)`,
    `host restarts ${[...restartsByUnit.values()].reduce((a, b) => a + b, 0)}; claims taken over from killed executors ${takeovers.length} (${takeovers.filter((t) => t.action).length} of approved actions)`,
    `takeover after a kill, ms: p50 ${latencies.length ? Math.round(median(latencies)) : '-'}, p90 ${sorted.length ? sorted[Math.floor(0.9 * (sorted.length - 1))] : '-'}, max ${sorted.at(-1) ?? '-'} over ${latencies.length} kills that held claims (the lease of a restart: 150 s)`,
    `presence cut ${blips.length} times; held again after ms: ${reheld.map((ms) => ms ?? 'never').join(', ') || '-'}`,
    violations.length === 0 ? 'no violation' : `VIOLATIONS (${violations.length}):\n  ${violations.join('\n  ')}`,
    '',
  ].join('\n'),
);

for (const w of running()) w.child.kill('SIGTERM');
await sleep(3000);
for (const w of running()) w.child.kill('SIGKILL');
await bench.dispose();
rmSync(hostDir, { recursive: true, force: true });
process.exit(violations.length === 0 ? 0 : 1);
