// The executor loop: one per daemon. It ticks, then sleeps on the wake bus until an event that
// can unblock work arrives (in this process, or from another one through LISTEN/NOTIFY on
// PostgreSQL) or the interval passes. It holds no plan state: stopping it and starting another
// (here or elsewhere) loses nothing, and running several at once runs no step twice.

import { WakeBus } from '../bus/wake-bus.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import { policyInputsOf } from '../capabilities/policy-inputs.ts';
import type { ApprovalRecord, ApprovalScene, MindRecord, PresenceHold, Store } from '../store/index.ts';
import { Pass } from './pass.ts';
import { ClaimantWatch, newExecutorName } from './claimants.ts';
import { performApprovedStep } from './polling.ts';
import { isRunning, settlePlansTogether } from './settle.ts';
import { silentLog, type ExecutorContext, type ExecutorLog } from './context.ts';
import type { PlanningServices } from '../drafting/plan-intention.ts';
import { releaseStep, type Release } from './recovery.ts';
import { emptyReport, judgeClaimants, MAX_ROUNDS, takeOverFromGone, tick, type ExecutorObserver, type TickReport } from './tick.ts';
import { FailureTally } from './stuck.ts';
import { InFlight } from './in-flight.ts';

export const DEFAULT_TICK_INTERVAL_MS = 15_000;
/** How often, by the store's clock, a pass also sweeps every executing plan for settling to repair (see TickOptions.sweep). */
export const SETTLE_SWEEP_SECONDS = 30;

/** How far past a step's due time the loop wakes for it, so the step is due when the pass looks. */
const DUE_MARGIN_MS = 5;

/** How long a busy loop may go without its passes' housekeeping (see TickOptions.housekeeping). */
export const HOUSEKEEPING_MS = 1000;

/** Most passes an executor runs side by side (ExecutorOptions.passes). */
export const MAX_PASSES = 8;

/** How long an executor driven pass by pass (tick, drain, performApproval) keeps its presence after the last of them. */
export const PRESENCE_LINGER_MS = 1000;

/** How often a sleeping loop looks whether watched claimants still run (their process on this host, their presence elsewhere). */
export const CLAIMANT_WATCH_MS = 1000;

/**
 * The wake-up an approval sends (events.ts wakeReason): `approval_approved:<approval id>`, with
 * `:<mind id>:<origin>` when the event names them.
 */
const APPROVED_WAKE = /^approval_approved:([^:]+)(?::([^:]+):(.+))?$/;

/** What an approval's wake-up says beyond its id: the mind and origin to read beside it. */
export interface ApprovalHint {
  mindId: string;
  origin: string;
}

/** The step id in a plan step's origin, `plan_step:<id>`; null for any other origin. */
function stepOfOrigin(origin: string): string | null {
  const match = /^plan_step:([^:]+)$/.exec(origin);
  return match ? match[1]! : null;
}

/** The daemon's executor advances this mind: active, and bound to its host or (for any daemon) to none. */
function serves(host: string | null, mind: MindRecord): boolean {
  return mind.status === 'active' && (mind.host === null || mind.host === host);
}

export interface ExecutorOptions {
  store: Store;
  /** The only way the executor acts. */
  capabilities: CapabilityService;
  /** Defaults to the capability service's registry. */
  registry?: CapabilityRegistry;
  /** The daemon's host: it advances only minds bound to it or to none. Null (default): only unbound minds. */
  host?: string | null;
  /** Planning for replans; without it a failed plan's intention is abandoned instead of replanned. */
  planning?: PlanningServices | null;
  /** Wake-ups; by default an in-process bus on the store (the daemon passes one that also listens on PostgreSQL). */
  bus?: WakeBus;
  intervalMs?: number;
  /** Most plans and steps looked at per phase of a tick. */
  batch?: number;
  /** Due steps handled side by side within a tick. */
  concurrency?: number;
  /**
   * Passes run side by side, each over different due steps, while more is due than one pass
   * takes (default 1, at most MAX_PASSES). A pass spends much of its time waiting on the store's
   * server; on PostgreSQL a second pass works in that time (the daemon runs two there). The
   * extra passes only run steps and settle their plans; starting plans, sweeping and the
   * housekeeping stay with the loop.
   */
  passes?: number;
  /**
   * Most rounds of a pass (default MAX_ROUNDS, at least 1): after the steps it found due, a pass
   * runs the steps their settling promoted in the same plans, without reading them again, so a
   * plan whose steps act at once finishes several levels in one pass (TickOptions.rounds).
   */
  rounds?: number;
  name?: string;
  log?: ExecutorLog;
  /** Told about each pass, lost claims and verification outcomes (the daemon feeds its metrics from it). */
  observer?: ExecutorObserver;
}

export class Executor {
  readonly #ctx: ExecutorContext;
  readonly #bus: WakeBus;
  readonly #ownsBus: boolean;
  readonly #intervalMs: number;
  readonly #batch: number;
  readonly #concurrency: number;
  readonly #passes: number;
  readonly #rounds: number;
  /** The steps the passes hold while several run side by side; none with one pass. */
  readonly #inFlight: InFlight | undefined;
  /** Extra passes waiting for a backlog to share (see #assist). */
  readonly #idleAssistants: (() => void)[] = [];
  readonly #observer: ExecutorObserver | undefined;
  #abort: AbortController | null = null;
  #loop: Promise<void> | null = null;
  #assistants: Promise<void>[] = [];
  #ticks = 0;
  /** When (performance.now) this executor's last pass did its housekeeping. */
  #housekeptAt = Number.NEGATIVE_INFINITY;
  /** When this executor last swept every plan for settling; null before its first pass. */
  #sweptAt: number | null = null;
  /** Approved requests this executor was woken for and has yet to perform (see #performApprovals). */
  readonly #approved = new Map<string, ApprovalHint | undefined>();
  /** The round of approvals in progress, if any. */
  #performing: Promise<void> | null = null;
  /** Other executors holding live claims whose end would be seen, as the last look found them. */
  #watched: string[] = [];
  /** What this executor has seen of the others' presence, from look to look (claimants.ts). */
  readonly #claimants = new ClaimantWatch();
  /** This executor's presence (store/presence.ts; always held on SQLite): held by the loop for its life, and by passes driven one by one while they run (#using). */
  #presence: PresenceHold | null = null;
  /** The passes under way, each aborted when this executor loses its presence: they stop claiming (#tick). */
  readonly #guards = new Set<AbortController>();
  /** Its presence being let go (#letGo), which `stop` waits for. */
  #releasing: Promise<void> | null = null;
  /** Passes, drains and approvals under way outside the loop's own (#using). */
  #users = 0;
  /** Lets the presence go a while after the last of them ended (#using). */
  #linger: NodeJS.Timeout | undefined;
  /** The last look of the sleeping loop's watch failed (its warning is not repeated). */
  #watchFailing = false;
  #stopListening: (() => void) | null = null;
  /** The store readying its approval connection as the loop starts (executorQueries.readyForApprovals). */
  #readying: Promise<void> | null = null;

  constructor(options: ExecutorOptions) {
    const registry = options.registry ?? options.capabilities.context.registry;
    this.#ctx = {
      store: options.store,
      capabilities: options.capabilities,
      registry,
      clock: options.store.clock,
      host: options.host ?? null,
      planning: options.planning ?? null,
      name: options.name ?? newExecutorName(),
      log: options.log ?? silentLog,
      failures: new FailureTally(),
    };
    this.#ownsBus = !options.bus;
    this.#bus = options.bus ?? new WakeBus(options.store);
    this.#intervalMs = options.intervalMs ?? DEFAULT_TICK_INTERVAL_MS;
    this.#batch = options.batch ?? 100;
    this.#concurrency = options.concurrency ?? 4;
    const passes = options.passes ?? 1;
    if (!Number.isInteger(passes) || passes < 1 || passes > MAX_PASSES) throw new RangeError(`passes must be a whole number from 1 to ${MAX_PASSES}, not ${passes}`);
    this.#passes = passes;
    const rounds = options.rounds ?? MAX_ROUNDS;
    if (!Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUNDS) throw new RangeError(`rounds must be a whole number from 1 to ${MAX_ROUNDS}, not ${rounds}`);
    this.#rounds = rounds;
    this.#inFlight = passes > 1 ? new InFlight() : undefined;
    this.#observer = options.observer;
  }

  get name(): string {
    return this.#ctx.name;
  }

  get running(): boolean {
    return this.#loop !== null;
  }

  /** Ticks completed by the loop since it started. */
  get ticks(): number {
    return this.#ticks;
  }

  /**
   * One pass over the store. Usable without the loop, e.g. by tests driving a manual clock; a
   * pass called this way always does its housekeeping. Like the loop, it claims nothing before
   * this executor holds its presence (#using).
   */
  tick(signal?: AbortSignal): Promise<TickReport> {
    return this.#using(signal, async (present) => (present ? this.#tick(signal, true) : emptyReport()));
  }

  /** A pass: the loop's own (`assisting` false), or one of the extra passes beside it, which only runs steps and settles their plans. */
  async #tick(stopping: AbortSignal | undefined, housekeeping: boolean, assisting = false): Promise<TickReport> {
    // The pass claims nothing new once this executor is stopping or has lost its presence
    // (claimants.ts: others may then judge it gone); what it has claimed it finishes. A guard of
    // its own rather than AbortSignal.any, which leaks a signal per call on a long-lived source.
    const guard = new AbortController();
    const stop = () => guard.abort();
    stopping?.addEventListener('abort', stop, { once: true });
    this.#guards.add(guard);
    if (stopping?.aborted || !this.#presence?.held) guard.abort();
    try {
      return await this.#tickGuarded(guard.signal, housekeeping, assisting);
    } finally {
      stopping?.removeEventListener('abort', stop);
      this.#guards.delete(guard);
    }
  }

  async #tickGuarded(signal: AbortSignal, housekeeping: boolean, assisting: boolean): Promise<TickReport> {
    const observer = this.#observer;
    const started = performance.now();
    if (housekeeping) this.#housekeptAt = started;
    const now = this.#ctx.clock.now().getTime();
    const sweep = !assisting && (this.#sweptAt === null || now - this.#sweptAt >= SETTLE_SWEEP_SECONDS * 1000 || now < this.#sweptAt);
    if (sweep) this.#sweptAt = now;
    const report = await tick(this.#ctx, {
      batch: this.#batch,
      // Plans enough for every pass: the loop's pass runs the plans it starts through their
      // levels (rounds), and the first steps of the rest are the other passes' share.
      startBatch: this.#batch * this.#passes,
      rounds: this.#rounds,
      concurrency: this.#concurrency,
      sweep,
      housekeeping,
      startPlans: !assisting,
      claimants: this.#claimants,
      ...(this.#inFlight ? { inFlight: this.#inFlight } : {}),
      signal,
      ...(observer ? { observer } : {}),
    });
    // More is due than this pass took: an idle extra pass takes its share beside it.
    if (report.backlog) for (const wake of this.#idleAssistants.splice(0)) wake();
    if (observer?.tick) {
      try {
        observer.tick(report, (performance.now() - started) / 1000);
      } catch (error) {
        this.#ctx.log.warn('observing a tick failed', { error: error instanceof Error ? error.message : String(error) });
      }
    }
    return report;
  }

  /** Ticks until a pass moves nothing (or `maxPasses` is reached); returns the passes made. */
  drain(maxPasses = 100): Promise<TickReport[]> {
    return this.#using(undefined, async () => {
      const reports: TickReport[] = [];
      for (let i = 0; i < maxPasses; i += 1) {
        const report = await this.tick();
        reports.push(report);
        if (!report.busy) break;
      }
      return reports;
    });
  }

  /**
   * Performs one approved request now, if it is this executor's to perform: its mind is active
   * and served here, and it is still approved with nobody performing it. A plan step's request
   * is performed through its step. True when the action was performed (or refused at the last
   * moment and its request failed). With the wake-up's `hint` (mind and origin), everything is
   * read at once (executorQueries.approvalScene: one statement on PostgreSQL); without it, or
   * when the hint does not match the request, the request is read first and the rest after.
   */
  performApproval(approvalId: string, hint?: ApprovalHint): Promise<boolean> {
    return this.#using(this.#abort?.signal, (present) => (present ? this.#performApproval(approvalId, hint) : Promise.resolve(false)));
  }

  async #performApproval(approvalId: string, hint: ApprovalHint | undefined): Promise<boolean> {
    const { store } = this.#ctx;
    const hintedStep = hint ? stepOfOrigin(hint.origin) : null;
    if (hint && hintedStep) {
      const scene = await store.executorQueries.approvalScene(approvalId, hint.mindId, hintedStep);
      const { approval } = scene;
      if (approval && approval.mindId === hint.mindId && approval.origin === hint.origin) return this.#performStepApproval(approval, hintedStep, scene);
    }
    const approval = await store.approvals.get(approvalId);
    if (!approval || approval.status !== 'approved' || approval.executionId) return false;
    const stepId = stepOfOrigin(approval.origin);
    if (!stepId) {
      const mind = await store.minds.get(approval.mindId);
      if (!mind || !serves(this.#ctx.host, mind)) return false;
      return (await this.#ctx.capabilities.performApproved(approvalId, this.#ctx.name)) !== undefined;
    }
    return this.#performStepApproval(approval, stepId, await store.executorQueries.approvalScene(approvalId, approval.mindId, stepId));
  }

  /** An approved plan step's request, with the scene read for it: performed through its step when everything still holds. */
  async #performStepApproval(approval: ApprovalRecord, stepId: string, read: ApprovalScene): Promise<boolean> {
    const { mind, plan } = read;
    const step = plan?.steps.find((s) => s.id === stepId);
    if (approval.status !== 'approved' || approval.executionId) return false;
    if (!mind || !serves(this.#ctx.host, mind)) return false;
    if (!step || step.status !== 'awaiting_approval' || step.approvalId !== approval.id) return false;
    // As the due-step query would have it: a live plan's step (a closed plan's waits are withdrawn
    // instead), and not while the plan is paused (its step runs once the plan is resumed).
    if (!plan || plan.id !== step.planId || plan.origin === 'dream' || plan.pause || (!isRunning(plan.status) && plan.status !== 'blocked')) return false;
    const pass = new Pass(this.#observer);
    const intention = read.intention ?? null;
    pass.adopt({ plan, intention });
    // The approval, its mind and policy inputs and the scene just read are handed on, not read again.
    const inputs = policyInputsOf(read.rules, read.commitments, []);
    const moved = await performApprovedStep(this.#ctx, pass, { step, plan, intention }, approval, { mind, inputs });
    // The step's plan is settled now (its next steps promoted), as a pass would after its steps.
    const { planIds, known } = pass.takePlansToSettle();
    await settlePlansTogether(this.#ctx, planIds, known);
    return moved;
  }

  /**
   * Performs the approvals this executor was woken for, at once and beside the loop: an approval
   * does not wait for a pass in progress to end. Both may reach the same step; its claim is
   * conditional, so one of them wins and the other moves nothing.
   */
  #performApprovals(signal: AbortSignal): void {
    if (this.#performing || signal.aborted) return;
    this.#performing = (async () => {
      while (this.#approved.size > 0 && !signal.aborted) {
        for (const [id, hint] of [...this.#approved]) {
          this.#approved.delete(id);
          if (signal.aborted) break;
          try {
            await this.performApproval(id, hint);
          } catch (error) {
            this.#ctx.log.error('performing an approved action failed', { approval: id, error: error instanceof Error ? error.message : String(error), executor: this.#ctx.name });
          }
        }
      }
    })().finally(() => {
      this.#performing = null;
      // One that arrived as the last round ended.
      if (this.#approved.size > 0) this.#performApprovals(signal);
    });
  }

  /** Starts the loop; a second call while it runs does nothing. */
  start(): void {
    if (this.#loop) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#readying = this.#ctx.store.executorQueries.readyForApprovals().catch((error: unknown) => {
      // Only a head start: the first approval opens the connection itself.
      this.#ctx.log.warn('readying the approval connection failed', { error: error instanceof Error ? error.message : String(error), executor: this.#ctx.name });
    });
    // Presence first: the loop claims nothing until it is held (#present), and holds it for its life.
    clearTimeout(this.#linger);
    this.#presence ??= this.#holdPresence();
    this.#stopListening = this.#bus.onWake((reason) => {
      const approved = APPROVED_WAKE.exec(reason);
      if (!approved) return;
      const [, id, mindId, origin] = approved;
      this.#approved.set(id!, mindId && origin ? { mindId, origin } : undefined);
      this.#performApprovals(abort.signal);
    });
    this.#loop = this.#run(abort.signal);
    this.#assistants = Array.from({ length: this.#passes - 1 }, () => this.#assist(abort.signal));
  }

  /**
   * Stops the loop: no new step is claimed, and a step already claimed finishes (so none is left
   * executing under a live lease). Even if the process dies instead, an unfinished claim's lease
   * runs out and recovery resolves it.
   */
  async stop(): Promise<void> {
    const loop = this.#loop;
    if (loop) await this.#stopLoop(loop);
    // Only now that no claim of this executor is being acted on: a lock let go earlier would let
    // another executor take over a claim still in hand. A pass driven by `tick` still running
    // lets it go as it ends.
    if (this.#users === 0) await this.#letGo();
    else await this.#releasing;
  }

  async #stopLoop(loop: Promise<void>): Promise<void> {
    this.#abort?.abort();
    for (const wake of this.#idleAssistants.splice(0)) wake();
    await Promise.all([loop, ...this.#assistants]);
    this.#assistants = [];
    await Promise.all([this.#performing, this.#readying]);
    this.#readying = null;
    this.#stopListening?.();
    this.#stopListening = null;
    this.#loop = null;
    this.#abort = null;
    if (this.#ownsBus) await this.#bus.close();
  }

  /** An operator lets a blocked step run again. */
  releaseStep(stepId: string, operator: string): Promise<Release> {
    return releaseStep(this.#ctx.store, stepId, operator);
  }

  /** A pass of the loop or beside it, its failure logged; null when it failed. */
  async #pass(signal: AbortSignal, housekeeping: boolean, assisting: boolean): Promise<TickReport | null> {
    try {
      return await this.#tick(signal, housekeeping, assisting);
    } catch (error) {
      this.#ctx.log.error('tick failed', { error: error instanceof Error ? error.message : String(error), executor: this.#ctx.name });
      return null;
    } finally {
      this.#ticks += 1;
    }
  }

  async #run(signal: AbortSignal): Promise<void> {
    // A pass that follows a busy one at once skips the housekeeping for up to HOUSEKEEPING_MS.
    let following = false;
    while (!signal.aborted) {
      // Approvals being performed go first: the pass their wake-up started would only compete with them.
      if (this.#performing) await this.#performing;
      await this.#present(signal);
      if (signal.aborted) break;
      const report = await this.#watchingWhile(this.#pass(signal, !following || performance.now() - this.#housekeptAt >= HOUSEKEEPING_MS, false), signal);
      const busy = report?.busy ?? false;
      if (signal.aborted) break;
      following = busy;
      if (busy) {
        // Let timers and I/O callbacks run between back-to-back passes.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      await this.#sleep(await this.#sleepMs(), signal);
    }
  }

  /**
   * Awaits a pass of the loop, and every CLAIMANT_WATCH_MS while it lasts takes over the claims
   * of executors known to be gone, as the pass's housekeeping does. A long pass (a backlog of
   * slow steps: 8-15 s a pass in a chaos run) otherwise postponed every takeover until the
   * backlog drained, up to two minutes, and kept the looks at a claimant's presence too far apart
   * for its absence to count (PRESENCE_LOOK_GAP_MS).
   */
  async #watchingWhile(pass: Promise<TickReport | null>, signal: AbortSignal): Promise<TickReport | null> {
    let ended = false;
    let looked = false;
    const done = pass.finally(() => {
      ended = true;
    });
    while (!ended && !signal.aborted) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, CLAIMANT_WATCH_MS)))]);
      clearTimeout(timer);
      if (!ended && !signal.aborted) looked = (await this.#takeOverFromGone(signal)) || looked;
    }
    const report = await done;
    // The claimants to watch next: as the pass's housekeeping found them at its start, unless a
    // look beside it found them later.
    if (report?.liveClaimants && !looked) this.#watched = report.liveClaimants;
    return report;
  }

  /**
   * Takes over, now, the claims of executors known to be gone, and settles their plans; true when
   * it looked. Not while this executor's own presence is not held (its takeovers are claims too).
   * Approved actions released to be performed again are performed beside the pass, as woken ones
   * are. Failures are logged once until a look succeeds.
   */
  async #takeOverFromGone(signal: AbortSignal): Promise<boolean> {
    if (!this.#presence?.held) return false;
    try {
      const pass = new Pass(this.#observer);
      const { moved, live, released } = await takeOverFromGone(this.#ctx, pass, this.#batch, this.#claimants);
      this.#watchFailing = false;
      this.#watched = live;
      for (const id of released) this.#approved.set(id, undefined);
      if (released.length > 0) this.#performApprovals(signal);
      if (moved > 0) {
        const { planIds, known } = pass.takePlansToSettle();
        await settlePlansTogether(this.#ctx, planIds, known);
      }
      return true;
    } catch (error) {
      if (!this.#watchFailing) this.#ctx.log.warn('taking over from stopped executors failed', { error: error instanceof Error ? error.message : String(error), executor: this.#ctx.name });
      this.#watchFailing = true;
      return false;
    }
  }

  /**
   * An extra pass beside the loop (ExecutorOptions.passes): it waits until a pass finds more due
   * than it took, then runs passes over the steps the others do not hold until one finds nothing
   * to do. An idle daemon thus runs one pass per wake-up, as with a single pass.
   */
  async #assist(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await new Promise<void>((resolve) => this.#idleAssistants.push(resolve));
      while (!signal.aborted) {
        await this.#present(signal);
        if (signal.aborted) break;
        const report = await this.#pass(signal, false, true);
        if (!report?.busy) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /**
   * Runs `work` (a pass, a drain, an approval) once this executor holds its presence, told
   * whether it does (false: `signal` aborted first). Outside the loop, which holds it for its
   * life, the presence is let go PRESENCE_LINGER_MS after the last such work ends: passes driven
   * one after another keep one connection, and an executor left unused holds none.
   */
  async #using<T>(signal: AbortSignal | undefined, work: (present: boolean) => Promise<T>): Promise<T> {
    this.#users += 1;
    clearTimeout(this.#linger);
    try {
      return await work(await this.#present(signal));
    } finally {
      this.#users -= 1;
      if (this.#users === 0 && !this.#loop) {
        this.#linger = setTimeout(() => {
          if (this.#users === 0 && !this.#loop) void this.#letGo();
        }, PRESENCE_LINGER_MS);
        this.#linger.unref();
      }
    }
  }

  async #letGo(): Promise<void> {
    clearTimeout(this.#linger);
    const hold = this.#presence;
    this.#presence = null;
    if (hold) this.#releasing = hold.release();
    await this.#releasing;
  }

  /**
   * Until this executor holds its presence, taking it up if it does not yet: claims made without
   * it could be taken over by an executor that finds the lock free (claimants.ts). At once on
   * SQLite, and whenever the lock is held. False when `signal` aborted first.
   */
  async #present(signal?: AbortSignal): Promise<boolean> {
    const hold = (this.#presence ??= this.#holdPresence());
    if (!hold.held) await hold.whenHeld(signal);
    return hold.held;
  }

  /** Takes up this executor's presence, telling the log when it is lost, failing, and held again. */
  #holdPresence(): PresenceHold {
    let quiet = false;
    const { log, name } = this.#ctx;
    return this.#ctx.store.presence.hold(name, {
      onHeld: () => {
        if (quiet) log.warn("holding this executor's presence again; claiming again", { executor: name });
        quiet = false;
      },
      onLost: (error) => {
        quiet = true;
        for (const guard of this.#guards) guard.abort();
        log.warn('this executor lost its presence lock; claiming nothing until it holds it again', { error: error?.message, executor: name });
      },
      onError: (error) => {
        // Once until it is held again: a store that is down would otherwise log every second.
        if (quiet) return;
        quiet = true;
        log.warn("holding this executor's presence failed; claiming nothing until it does, trying again", { error: error.message, executor: name });
      },
    });
  }

  /**
   * Sleeps until woken or `ms` pass. While other executors hold live claims whose end it would
   * see, it looks every CLAIMANT_WATCH_MS whether they still run (on this host a signal-0 kill,
   * no query; on another host their presence, one read of pg_locks) and ends the sleep once one
   * is known to be gone, so the pass that follows takes its claims over at once instead of an
   * interval (or a lease) later.
   */
  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    let left = ms;
    while (this.#watched.length > 0) {
      const slice = Math.min(left, CLAIMANT_WATCH_MS);
      if ((await this.#bus.next(slice, signal)) !== 'timeout') return;
      left -= slice;
      if (left <= 0) return;
      if (await this.#watchedGone()) {
        this.#watched = [];
        return;
      }
    }
    await this.#bus.next(left, signal);
  }

  /** Whether a watched claimant is now known to be gone; those still running stay watched. */
  async #watchedGone(): Promise<boolean> {
    try {
      const { gone, watched } = await judgeClaimants(this.#ctx, this.#claimants, this.#watched);
      this.#watchFailing = false;
      this.#watched = watched;
      return gone.length > 0;
    } catch (error) {
      // Once until a look succeeds: a store that is down would otherwise log every second.
      if (!this.#watchFailing) this.#ctx.log.warn('looking whether other executors still run failed', { error: error instanceof Error ? error.message : String(error), executor: this.#ctx.name });
      this.#watchFailing = true;
      return false;
    }
  }

  /**
   * How long the loop may sleep when nothing wakes it: the interval, or less when a step falls due
   * sooner (a wait, a monitor's next check, a retry's backoff, a lease) or a pending approval
   * expires. Work that only time makes due is thus acted on when it is due, not up to an interval
   * late; everything else that makes work due wakes the loop through the bus.
   */
  async #sleepMs(): Promise<number> {
    try {
      const now = this.#ctx.clock.now();
      const due = await this.#ctx.store.executorQueries.nextDueAt({ now, host: this.#ctx.host });
      if (!due) return this.#intervalMs;
      // A few milliseconds past the due time, so the pass that wakes finds the step due.
      return Math.min(this.#intervalMs, Math.max(0, due.getTime() - now.getTime()) + DUE_MARGIN_MS);
    } catch (error) {
      this.#ctx.log.warn('reading the next due time failed; sleeping the whole interval', { error: error instanceof Error ? error.message : String(error), executor: this.#ctx.name });
      return this.#intervalMs;
    }
  }
}
