// The story `praxis demo` plays on a simulated host, in real time: a mind is asked to restart
// atlas-worker.service; policy makes it ask an operator; the unit fails again after the restart,
// so verification refutes the expectation; the executor replans to a diagnosis, which asks for
// temporary journal access, reads and summarises the logs, and leaves the operator a note.
// The operator plan's expectation window is short (20 s) so the whole story fits in about a
// minute; everything else is exactly what the daemon does with any plan.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LogWalk } from '../bus/log-walk.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { SimulatedHost } from '../capabilities/host/simulated/host.ts';
import { builtinRegistry } from '../capabilities/registry.ts';
import { submitPlan } from '../drafting/submit-plan.ts';
import { formIntention } from '../mind/intentions.ts';
import type { EventRecord, Store } from '../store/index.ts';
import { AUTO_OPERATOR, DEMO_MIND, DEMO_UNIT } from './demo-names.ts';

export { AUTO_OPERATOR, DEMO_DB_PATH, DEMO_MIND, DEMO_UNIT } from './demo-names.ts';

/**
 * Holds the demo database for this process, through `<path>.lock` holding its pid, so that a
 * second `npm start` cannot delete the database under a demo that is running. A lock whose
 * process is gone (a demo killed without its exit handlers) is taken over. Returns the pid of
 * the running demo instead of a release when another one holds it.
 */
export function claimDemoDatabase(path: string): { release(): void } | { heldBy: number } {
  const lock = `${path}.lock`;
  // 0700 as the store makes it (store.ts): this is the directory the demo's store and secret go in.
  mkdirSync(dirname(resolve(lock)), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lock, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) return { heldBy: holder };
      rmSync(lock, { force: true });
      continue;
    }
    const release = () => {
      try {
        if (readFileSync(lock, 'utf8').trim() === String(process.pid)) rmSync(lock, { force: true });
      } catch {
        // Already gone.
      }
      process.off('exit', release);
    };
    process.on('exit', release);
    return { release };
  }
  throw new Error(`could not take ${lock}: another process keeps recreating it`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is only someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the previous run's database (with its WAL files), so each demo starts from nothing. */
export function removeDemoDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** The unit and its journal: failed now, and failed again two seconds after any restart. */
export function seedHost(host: SimulatedHost, now: Date): void {
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
  host.setClock(null); // the fixture programs follow the real clock, like the daemon
  host.setUnit(DEMO_UNIT, { active_state: 'failed', sub_state: 'failed', main_pid: 0, since: ago(90), restart: { outcome: 'failed', delay_seconds: 2 } });
  host.addJournal(DEMO_UNIT, [
    { time: ago(240), message: 'atlas-worker starting, 8 consumers', priority: 6 },
    { time: ago(150), message: 'job 4411 for bob@example.com from 198.51.100.23 retried', priority: 4 },
    { time: ago(120), message: 'db connect postgres://atlas:s3cret@10.0.4.12:5432/atlas slow (2.8 s)', priority: 4 },
    { time: ago(90), message: 'fatal: pool exhausted for bob@example.com', priority: 2 },
  ]);
}

function restartPlan() {
  const status = { capability: 'service.status', params: { unit: DEMO_UNIT } };
  return {
    objective: `Restart ${DEMO_UNIT} and confirm it is healthy`,
    strategy: 'direct',
    assumptions: [{ statement: 'atlas-worker recovers from a restart', min_confidence: 0.5 }],
    completion_criteria: `${DEMO_UNIT} is active after the restart`,
    abort_conditions: [
      { when: 'step_failed', step: 'P1', statement: 'the restart is denied or fails' },
      { when: 'expectation_refuted', step: 'V1', statement: 'atlas-worker is not active within 20 seconds' },
    ],
    risk: 'a restart drops in-flight jobs of atlas-worker for a few seconds',
    budget: { invocations: 10, approvals: 1, wall_seconds: 600 },
    steps: [
      {
        key: 'P1',
        title: 'Restart atlas-worker',
        kind: 'capability',
        capability: 'service.restart',
        params: { unit: DEMO_UNIT },
        precondition: { ...status, statement: 'atlas-worker is not already running', field: 'active_state', comparison: 'not_equals', value: 'active', fulfils_intention: true },
        expectation: {
          statement: 'atlas-worker is active',
          confidence: 0.8,
          within_seconds: 20,
          check: { ...status, field: 'active_state', comparison: 'equals', value: 'active' },
        },
      },
      { key: 'V1', title: 'Verify atlas-worker is active', kind: 'verify', depends_on: ['P1'], ...status, spec: { verifies: 'P1', interval_seconds: 5 } },
    ],
  };
}

export interface DemoStory {
  mindId: string;
  intentionId: string;
  planId: string;
}

/** Who the demo's intention and plan are recorded as written by. */
export const DEMO_AUTHOR = 'demo-story';

/** The mind, its policy and the intention with its first plan (I/O on the store only). */
export async function seedStory(store: Store): Promise<DemoStory> {
  const mind = await store.minds.create({ name: DEMO_MIND, host: null });
  // Restarting this unit asks an operator; the mind may not read host internals beyond the unit's
  // status, so the diagnosis after a failed restart goes through the journal, which needs a grant.
  await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: DEMO_UNIT, decision: 'ask', approvers: 1 });
  await store.policyRules.set({ mindId: mind.id, capability: 'host.*', targetPattern: '*', decision: 'deny', approvers: 1 });
  const formed = await formIntention(store, {
    mindId: mind.id,
    objective: `Restart ${DEMO_UNIT} and confirm it is healthy`,
    means: { capability: 'service.restart', target: DEMO_UNIT, params: { unit: DEMO_UNIT } },
    origin: 'operator',
    // The story is written by someone other than whoever approves it: an action with no author
    // could not be approved at all (four eyes), and the demo token speaks for "demo".
    authoredBy: DEMO_AUTHOR,
  });
  if (!formed.ok) throw new Error(`the demo intention was refused: ${formed.problems.map((p) => p.message).join('; ')}`);
  const submitted = await submitPlan(store, builtinRegistry(), { mindId: mind.id, intentionId: formed.intention.id, input: restartPlan(), origin: 'operator', authoredBy: DEMO_AUTHOR });
  if (!submitted.stored || submitted.plan.status !== 'validated') {
    const errors = submitted.assessment.errors.map((e) => `${e.path} ${e.message}`).join('; ');
    throw new Error(`the demo plan was refused: ${submitted.stored ? errors : submitted.reason}`);
  }
  return { mindId: mind.id, intentionId: formed.intention.id, planId: submitted.plan.id };
}

/** A moment of the story worth telling the person watching. */
export type Milestone = { kind: 'approval'; id: string; what: string } | { kind: 'request'; id: string; what: string } | { kind: 'event'; event: EventRecord } | { kind: 'note'; event: EventRecord };

const TOLD_EVENTS = new Set(['plan_started', 'tool_executed', 'prediction_error', 'plan_replanned', 'grant_created', 'approval_approved', 'plan_step_completed', 'plan_completed']);

export interface DemoWatch {
  /** Resolves with the escalation note once it is written, or rejects when `stop` is called first. */
  finished: Promise<EventRecord>;
  stop(): void;
}

/**
 * Follows the story by polling the store: tells each milestone once and, with `auto`, approves
 * and grants as AUTO_OPERATOR. Polling (not the wake bus) keeps it honest: it sees only what
 * another operator would see through the API.
 */
export function watchStory(store: Store, capabilities: CapabilityService, story: DemoStory, options: { auto: boolean; tell(milestone: Milestone): void; pollMs?: number }): DemoWatch {
  const seen = new Set<string>();
  // The story's events in log order, none skipped for committing after a later one (log-walk.ts).
  const storyEvents = new LogWalk(store, { mindId: story.mindId }, 0);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let settle!: (note: EventRecord) => void;
  let fail!: (error: Error) => void;
  const finished = new Promise<EventRecord>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });

  const look = async (): Promise<EventRecord | null> => {
    for (const approval of await store.approvals.list({ mindId: story.mindId, status: 'pending' })) {
      if (!seen.has(approval.id)) {
        seen.add(approval.id);
        options.tell({ kind: 'approval', id: approval.id, what: `${approval.capability} on ${approval.target}` });
      }
      if (options.auto) await capabilities.approve(approval.id, AUTO_OPERATOR, 'approved by praxis demo --auto');
    }
    for (const request of await store.capabilityRequests.list({ mindId: story.mindId, status: 'open' })) {
      if (!seen.has(request.id)) {
        seen.add(request.id);
        options.tell({ kind: 'request', id: request.id, what: `${request.capability} on ${request.targetPattern}: ${request.reason}` });
      }
      if (options.auto) await capabilities.grant(request.id, AUTO_OPERATOR, {});
    }
    for (;;) {
      const events = await storyEvents.next(200);
      for (const event of events) {
        if (event.type === 'operator_note') {
          options.tell({ kind: 'note', event });
          return event;
        }
        if (TOLD_EVENTS.has(event.type)) options.tell({ kind: 'event', event });
      }
      if (events.length < 200) return null;
    }
  };

  const loop = () => {
    if (stopped) return;
    look().then(
      (note) => {
        if (note) {
          stopped = true;
          settle(note);
        } else if (!stopped) timer = setTimeout(loop, options.pollMs ?? 300);
      },
      (error: unknown) => {
        stopped = true;
        fail(error instanceof Error ? error : new Error(String(error)));
      },
    );
  };
  loop();
  return {
    finished,
    stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      fail(new Error('stopped before the escalation note was written'));
    },
  };
}

/** Where the story stands, for a message when it did not finish in time. */
export async function describeProgress(store: Store, story: DemoStory): Promise<string> {
  const plans = await store.plans.listByIntention(story.intentionId);
  const parts: string[] = [];
  for (const p of plans) {
    const full = await store.plans.get(p.id);
    const steps = (full?.steps ?? []).map((s) => `${s.key} ${s.status}`).join(', ');
    parts.push(`plan r${p.revision} (${p.strategy}) ${p.status}${p.statusReason ? ` (${p.statusReason})` : ''}: ${steps}`);
  }
  const intention = await store.intentions.get(story.intentionId);
  return `intention ${intention?.status ?? 'missing'}${intention?.reason ? ` (${intention.reason})` : ''}; ${parts.join('; ') || 'no plans'}`;
}
