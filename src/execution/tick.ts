// One pass of the executor over the store. It keeps nothing between passes: each one reads what
// is due now, through indexes whose size follows the live work, and moves it by conditional
// updates. Any order would be correct; the one chosen is about fairness (work under way before
// new plans, checks due by their time before ready work: docs/executor.md, "The order of due
// work") and speed (plans settled in the pass that moved their steps, whose later rounds run
// what settling promoted).

import { resolvePrediction } from '../mind/predictions.ts';
import type { ApprovalRecord, StepRecord } from '../store/index.ts';
import { STALLED_REPLAN_SECONDS, type ExecutorContext } from './context.ts';
import { replanUnderNewCommitments } from './commitments.ts';
import { cancelOrphanedWaits, resumeStalledReplans } from './replan.ts';
import { applyMoves, type Move, type SettleWithMoves } from './apply.ts';
import { runDueStep } from './run-step.ts';
import { ClaimantWatch, type ClaimantsJudged } from './claimants.ts';
import { Pass } from './pass.ts';
import type { InFlight } from './in-flight.ts';
import { recoverStep } from './recovery.ts';
import { recoverStrandedApprovals, takeOverActionsFromGone } from './stranded-approvals.ts';
import { settlePlans, settlePlansTogether, settleWithMoves, startPlans, type OnPromoted, type SettledWithMoves } from './settle.ts';

export interface TickOptions {
  /** Most plans and steps looked at per phase. */
  batch: number;
  /** Most validated plans started by the pass (default `batch`). */
  startBatch?: number;
  /** Due steps handled side by side. */
  concurrency: number;
  /**
   * Most rounds a pass runs (default MAX_ROUNDS). Its first round runs the steps the due query
   * found and the first steps of the plans it started; each later one runs the steps settling
   * the round before promoted in those plans, as the pass knows them (no due query, no read), so
   * a plan whose steps act at once runs several of its levels in one pass. 1: the first round only.
   */
  rounds?: number;
  /** Stops claiming new work once aborted; work already claimed is finished. */
  signal?: AbortSignal;
  /** Told about lost claims and verification outcomes, e.g. for metrics. */
  observer?: ExecutorObserver;
  /**
   * Also sweep every executing plan with something to settle. A pass settles the plans whose
   * steps it moved, in the same pass; the sweep repairs what a crash between a step's commit and
   * its plan's settling left behind, so it runs on an executor's first pass and then now and
   * then (Executor: SETTLE_SWEEP_SECONDS), not on every pass.
   */
  sweep?: boolean;
  /**
   * Also do the pass's housekeeping: expire approvals and forgotten predictions, perform one-off
   * approved actions, resume stalled replans, withdraw the waits of closed plans and take over
   * claims of executors known to be gone. Default true; the loop skips it on a pass that follows
   * a busy one at once, at most for HOUSEKEEPING_MS (Executor), since none of it is urgent to the
   * millisecond and a busy loop would otherwise pay for it on every pass.
   */
  housekeeping?: boolean;
  /**
   * Also start validated plans. Default true; the extra passes an executor runs beside its loop
   * (Executor: passes) leave it to the loop, since two passes starting the same plans at once
   * only collide.
   */
  startPlans?: boolean;
  /**
   * The steps this executor's other passes are handling right now: this pass leaves them, and
   * the other due steps of their plans, alone (in-flight.ts). Without it, a pass takes every due
   * step it finds.
   */
  inFlight?: InFlight;
  /**
   * What the executor has seen of other executors' presence, from pass to pass (claimants.ts):
   * a claimant judged by its presence lock is gone only once the lock has been free for a grace.
   * A new one each pass when not given, so such a claimant is never judged gone by a lone pass.
   */
  claimants?: ClaimantWatch;
}

/** How a verify step's run ended: its prediction's fate, or still looking. */
export type VerifyOutcome = 'confirmed' | 'refuted' | 'unverified' | 'skipped' | 'pending';

/**
 * What the executor reports as it works, for counters outside the execution layer (the daemon's
 * metrics). Calls are synchronous and must not throw: observing never changes what a tick does.
 */
export interface ExecutorObserver {
  /** A pass ended; `seconds` is its wall time. */
  tick?(report: TickReport, seconds: number): void;
  /** A due step this executor went for was moved by someone else first, or its claim ran out before its outcome was written. */
  claimLost?(step: StepRecord): void;
  verified?(outcome: VerifyOutcome, step: StepRecord): void;
  /**
   * An approved step has been claimed (the claim committed; the action runs next), on its
   * approval's wake-up or found by a pass: how long operators wait between deciding and the act.
   */
  approvalClaimed?(approval: ApprovalRecord, step: StepRecord): void;
  /**
   * A part of a pass ended, and took `seconds` of wall time since the part before it ended (or
   * since the pass began): the parts of one pass follow each other, so they add up to the pass.
   * With several passes side by side (Executor: passes) their parts overlap in time.
   */
  phase?(phase: PassPhase, seconds: number): void;
}

/**
 * The parts of a pass, in their order: its housekeeping (expiring approvals and predictions,
 * performing approved actions, the settling sweep, taking over claims), finding the due steps,
 * starting plans with their first steps (and replanning under new commitments), reading the
 * plans of the steps taken, and then, in each round, acting (running the due steps), moving them
 * (their moves' commit) and settling their plans.
 */
export const PASS_PHASES = ['housekeeping', 'finding due steps', 'starting plans', 'reading plans', 'acting', 'moving', 'settling'] as const;
export type PassPhase = (typeof PASS_PHASES)[number];

/** Reports each part of a pass to the observer as it ends (ExecutorObserver.phase). */
type Lap = (phase: PassPhase) => void;

function lapsFor(ctx: ExecutorContext, observer: ExecutorObserver | undefined): Lap {
  if (!observer?.phase) return () => {};
  let since = performance.now();
  return (phase) => {
    const now = performance.now();
    try {
      observer.phase?.(phase, (now - since) / 1000);
    } catch (error) {
      ctx.log.warn('observing a part of a pass failed', { error: error instanceof Error ? error.message : String(error) });
    }
    since = now;
  };
}

export interface TickReport {
  expiredApprovals: number;
  /** Active grants past their expiry moved to `expired`. */
  expiredGrants: number;
  /** Approved one-off actions (not raised by a plan step) this executor performed. */
  performedApprovals: number;
  /** Approved one-off actions whose executor stopped mid-act: released to run again, or ended with an unknown outcome (stranded-approvals.ts). */
  recoveredApprovals: number;
  expiredPredictions: number;
  startedPlans: number;
  resumedReplans: number;
  settled: number;
  replannedForCommitments: number;
  cancelledOrphans: number;
  /** Claims (of steps, and of approved one-off actions) taken over early, because their executor is known to be gone. */
  takenOver: number;
  /**
   * Other executors (by name) holding live claims whose end this one would see: on this host by
   * their process, on other hosts sharing PostgreSQL by their presence lock (claimants.ts). The
   * loop watches them between passes, so a claim is taken over as soon as its executor is known
   * to be gone. Null when the pass skipped its housekeeping and did not look.
   */
  liveClaimants: string[] | null;
  dueSteps: number;
  /** More steps were due than the pass took: another pass, at once or beside this one, finds work. */
  backlog: boolean;
  movedSteps: number;
  errors: number;
  /** True when the pass found a full batch or moved something: another pass may find more at once. */
  busy: boolean;
}

/**
 * Most rounds of a pass (TickOptions.rounds): a plan deeper than that goes on in the next pass,
 * so a pass over deep plans still ends soon enough for the loop's other work.
 */
export const MAX_ROUNDS = 8;

/** A prediction nobody verified is expired this long after its window closed (a verify step gets there first). */
export const FORGOTTEN_PREDICTION_SECONDS = 3600;

/** The report of a pass that did nothing (yet). */
export function emptyReport(): TickReport {
  return {
    expiredApprovals: 0,
    expiredGrants: 0,
    performedApprovals: 0,
    recoveredApprovals: 0,
    expiredPredictions: 0,
    startedPlans: 0,
    resumedReplans: 0,
    settled: 0,
    replannedForCommitments: 0,
    cancelledOrphans: 0,
    takenOver: 0,
    liveClaimants: null,
    dueSteps: 0,
    backlog: false,
    movedSteps: 0,
    errors: 0,
    busy: false,
  };
}

export async function tick(ctx: ExecutorContext, options: TickOptions): Promise<TickReport> {
  const { store } = ctx;
  const report = emptyReport();
  const guarded = async <T>(what: string, work: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      report.errors += 1;
      ctx.log.error(`${what} failed`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error), executor: ctx.name });
      return fallback;
    }
  };

  const lap = lapsFor(ctx, options.observer);
  const housekeeping = options.housekeeping ?? true;
  if (housekeeping) {
    report.expiredApprovals = await guarded('expiring approvals', () => ctx.capabilities.expireApprovals(), 0);
    report.expiredGrants = await guarded('expiring grants', () => ctx.capabilities.expireGrants(), 0);
    report.recoveredApprovals = await guarded('recovering approved actions whose executor stopped', () => recoverStrandedApprovals(ctx, options.batch), 0);
    report.performedApprovals = await guarded('performing approved actions', () => performApprovedActions(ctx, options.batch, options.signal), 0);
    report.expiredPredictions = await guarded('expiring forgotten predictions', () => expireForgottenPredictions(ctx, options.batch), 0);
  }
  if (options.signal?.aborted) return report;
  const pass = new Pass(options.observer);
  if (housekeeping) report.resumedReplans = await guarded('resuming stalled replans', () => resumeStalledReplans(ctx, STALLED_REPLAN_SECONDS, options.batch), 0);
  if (options.sweep ?? true) report.settled = await guarded('settling plans', () => settlePlans(ctx, options.batch), 0);
  if (housekeeping) report.cancelledOrphans = await guarded('cancelling waits of closed plans', () => cancelOrphanedWaits(ctx, options.batch), 0);
  if (options.signal?.aborted) return report;

  if (housekeeping) {
    const takeOver = await guarded('taking over from stopped executors', () => takeOverFromGone(ctx, pass, options.batch, options.claimants ?? new ClaimantWatch()), {
      moved: 0,
      live: [],
      released: [],
    });
    report.takenOver = takeOver.moved;
    report.liveClaimants = takeOver.live;
    // Released reads and idempotent actions are performed again now, not a housekeeping later.
    if (takeOver.released.length > 0) report.performedApprovals += await guarded('performing approved actions', () => performApprovedActions(ctx, options.batch, options.signal), 0);
  }
  const { inFlight } = options;
  lap('housekeeping');
  // Work under way first (docs/executor.md, "The order of due work"): the due steps, in the
  // store's order, past the steps other passes hold, so that a full batch of free ones can still
  // be found.
  const limit = options.batch + (inFlight?.size ?? 0);
  const found = await guarded('finding due steps', () => store.executorQueries.dueSteps({ now: ctx.clock.now(), host: ctx.host, limit }), []);
  const taken = inFlight ? inFlight.take(found, options.batch) : found.slice(0, options.batch);
  lap('finding due steps');
  // New plans start in the room that work leaves: with a backlog, none start until it drains,
  // and a plan waits as validated rather than started with nothing run. The room is what every
  // pass together takes (startBatch) less all the due work found, the steps other passes hold
  // included; a read that came back full may have left more unseen, so it leaves none. The
  // first steps of the plans started, as the start read them, run after the due work, without a
  // read of their own.
  const firstSteps: StepRecord[] = [];
  const room = found.length >= limit ? 0 : (options.startBatch ?? options.batch) - found.length;
  if ((options.startPlans ?? true) && room > 0) {
    const adoptFirstSteps: OnPromoted = (loaded, ready) => {
      pass.adopt(loaded, true);
      firstSteps.push(...ready);
    };
    report.startedPlans = await guarded('starting plans', () => startPlans(ctx, room, adoptFirstSteps), 0);
  }
  // Before any step runs: a step bound by a commitment taken since its plan was made (the plans
  // just started included) must not start under the old plan.
  const replanned = await guarded('replanning under new commitments', () => replanUnderNewCommitments(ctx, options.batch), new Set<string>());
  report.replannedForCommitments = replanned.size;
  lap('starting plans');
  const takenFirst = inFlight ? inFlight.take(firstSteps, options.batch - taken.length) : firstSteps.slice(0, options.batch - taken.length);
  // Every step this pass holds, for the other passes to leave alone until it is done.
  const held = [...taken, ...takenFirst];
  const due = replanned.size === 0 ? held : held.filter((step) => !replanned.has(step.planId));
  report.dueSteps = due.length;
  // More may be due than the pass took; or its due work left no room for new plans.
  report.backlog = found.length >= limit || takenFirst.length < firstSteps.length || room <= 0;
  try {
    // Every plan the due steps belong to, with its intention and its budget's counts, in a few statements.
    await guarded('reading the plans of the due steps', () => pass.preload(store, due), undefined);
    lap('reading plans');
    let round: StepRecord[] = due;
    for (let rounds = 1; round.length > 0; rounds += 1) {
      // Steps that settling this round promotes in plans the pass read: due now, and known as
      // the store has them, so the next round runs them without a due query or a read.
      const next: StepRecord[] = [];
      const onPromoted = rounds < (options.rounds ?? MAX_ROUNDS) && !options.signal?.aborted ? (_: unknown, ready: StepRecord[]) => void next.push(...ready) : undefined;
      await runRound(ctx, pass, round, options, report, guarded, onPromoted, lap);
      if (next.length === 0 || options.signal?.aborted) break;
      inFlight?.hold(next);
      held.push(...next);
      report.dueSteps += next.length;
      round = next;
    }
  } finally {
    inFlight?.release(held);
  }

  report.busy =
    report.backlog ||
    report.performedApprovals > 0 ||
    report.recoveredApprovals > 0 ||
    report.takenOver > 0 ||
    report.startedPlans > 0 ||
    report.settled > 0 ||
    report.replannedForCommitments > 0 ||
    report.movedSteps > 0 ||
    report.resumedReplans > 0;
  return report;
}

type Guarded = <T>(what: string, work: () => Promise<T>, fallback: T) => Promise<T>;

/**
 * One round of a pass: runs `due` (their plans read already), commits the moves of the steps
 * that acted first together, and settles each plan whose steps moved once, after all of them.
 */
async function runRound(
  ctx: ExecutorContext,
  pass: Pass,
  due: readonly StepRecord[],
  options: TickOptions,
  report: TickReport,
  guarded: Guarded,
  onPromoted: OnPromoted | undefined,
  lap: Lap,
): Promise<void> {
  // Steps that acted before moving hand their moves back; they commit together, in one
  // transaction per round, once every worker is done.
  const moves: { due: StepRecord; move: Move }[] = [];
  const finished: { due: StepRecord; moved: boolean }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < due.length && !options.signal?.aborted) {
      const step = due[next++]!;
      // null: the step failed (already counted as an error) or had nothing to claim; neither is a lost claim.
      const outcome = await guarded<boolean | null | Move>(`step ${step.id} (${step.kind}, ${step.status})`, () => runDueStep(ctx, pass, step), null);
      if (outcome === null) continue;
      if (typeof outcome === 'boolean') finished.push({ due: step, moved: outcome });
      else moves.push({ due: step, move: outcome });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, due.length)) }, worker));
  lap('acting');
  const withMoves = ctx.store.kind === 'sqlite' ? settlingWithMoves(ctx, pass, report, onPromoted) : undefined;
  const applied = await guarded(
    'moving the steps of the pass',
    () =>
      applyMoves(
        ctx,
        moves.map((m) => m.move),
        withMoves,
      ),
    [] as (StepRecord | undefined)[],
  );
  moves.forEach((m, i) => finished.push({ due: m.due, moved: applied[i] !== undefined }));
  for (const { due: step, moved } of finished) {
    if (moved) report.movedSteps += 1;
    if (options.observer) await observeStep(ctx, options.observer, step, moved);
  }
  lap('moving');
  // Each plan whose steps finished is settled once, after all of them (promoting what became
  // ready): on SQLite most were settled with the moves, and what is left is settled here.
  const { planIds, known } = pass.takePlansToSettle();
  report.settled += await guarded('settling the plans whose steps finished', () => settlePlansTogether(ctx, planIds, known, onPromoted), 0);
  lap('settling');
}

/**
 * On SQLite a round's settling commits with its moves: the plans the moves settle are settled
 * inside the moves' transaction (settleWithMoves), so each step's page, its plan's and its
 * events' index pages are written to the WAL once a round rather than once by the moves and
 * again by the settling (7.8 KB a step to 6.6 in the throughput workload, 70 commits a run to
 * 40). A commit costs the bytes it writes. SQLite serialises writers, and the settling held the
 * write lock in a transaction of its own right after the moves', so no one waits longer. PostgreSQL
 * keeps two transactions: passes run side by side there, and a settling inside the moves'
 * transaction would hold their steps' row locks through it.
 */
function settlingWithMoves(ctx: ExecutorContext, pass: Pass, report: TickReport, onPromoted: OnPromoted | undefined): SettleWithMoves {
  let taken: string[] = [];
  let settled: SettledWithMoves | undefined;
  return {
    async settle(scoped) {
      const { planIds, known } = pass.takePlansToSettle();
      taken = planIds;
      settled = await settleWithMoves({ ...ctx, store: scoped }, planIds, known, onPromoted);
    },
    committed() {
      if (!settled) return;
      report.settled += settled.moved;
      settled.committed();
      pass.settleAgain(settled.left);
    },
    rolledBack() {
      settled = undefined;
      pass.settleAgain(taken);
    },
  };
}

/**
 * Tells the observer what became of a due step. A claimable step that did not move lost its claim
 * (another executor won it, or took it over after the lease ran out). A verify step that moved is
 * read back once, because its outcome lives in the prediction it resolved.
 */
async function observeStep(ctx: ExecutorContext, observer: ExecutorObserver, due: StepRecord, moved: boolean): Promise<void> {
  try {
    if (moved === false && (due.status === 'ready' || due.status === 'waiting')) observer.claimLost?.(due);
    if (!moved || due.kind !== 'verify' || !observer.verified) return;
    const now = await ctx.store.steps.get(due.id);
    if (!now) return;
    const outcome = await verifyOutcomeOf(ctx, now);
    if (outcome) observer.verified(outcome, now);
  } catch (error) {
    ctx.log.warn('observing a step failed', { step: due.id, error: error instanceof Error ? error.message : String(error) });
  }
}

async function verifyOutcomeOf(ctx: ExecutorContext, step: StepRecord): Promise<VerifyOutcome | null> {
  switch (step.status) {
    case 'completed':
      return 'confirmed';
    case 'skipped':
      return 'skipped';
    case 'waiting':
      return 'pending';
    case 'failed': {
      const observation = step.observation as { prediction_id?: unknown } | null;
      const predictionId = typeof observation?.prediction_id === 'string' ? observation.prediction_id : null;
      const prediction = predictionId ? await ctx.store.predictions.get(predictionId) : undefined;
      return prediction?.status === 'refuted' ? 'refuted' : 'unverified';
    }
    default:
      return null;
  }
}

/**
 * Recovers, at once, the claims whose executor is known to be gone (claimants.ts): steps, and
 * approved one-off actions (stranded-approvals.ts). Returns how many moved, the other executors
 * holding live claims whose end is worth watching, and the approved actions released to be
 * performed again.
 */
export async function takeOverFromGone(ctx: ExecutorContext, pass: Pass, limit: number, watch: ClaimantWatch): Promise<{ moved: number; live: string[]; released: string[] }> {
  const query = { now: ctx.clock.now(), host: ctx.host, limit };
  const [steps, actions] = await forgettingOnFailure(watch, () => Promise.all([ctx.store.executorQueries.heldClaims(query), ctx.store.executorQueries.claimedApprovedActions(query)]));
  const held = steps.filter((step) => step.claimedBy !== ctx.name);
  const claimed = actions.filter(({ approval }) => approval.claimedBy !== '' && approval.claimedBy !== ctx.name);
  const { gone, watched } = await judgeClaimants(ctx, watch, [...held.map((step) => step.claimedBy), ...claimed.map(({ approval }) => approval.claimedBy)]);
  let moved = 0;
  for (const step of held) {
    if (!gone.includes(step.claimedBy)) continue;
    ctx.log.warn('taking over a claim whose executor is gone', { step: step.id, claimant: step.claimedBy, executor: ctx.name });
    if (await recoverStep(ctx, pass, step, true)) moved += 1;
  }
  const actionsTaken = await takeOverActionsFromGone(ctx, claimed, gone);
  return { moved: moved + actionsTaken.moved, live: watched, released: actionsTaken.released };
}

/** Which of `names`, other executors holding live claims, are known to be gone, asking the store for the presence the judgement needs. */
export async function judgeClaimants(ctx: ExecutorContext, watch: ClaimantWatch, names: readonly string[]): Promise<ClaimantsJudged> {
  const { presence } = ctx.store;
  const ask = presence.kept ? watch.toAsk(names) : [];
  const absent = ask.length > 0 ? await forgettingOnFailure(watch, () => presence.absent(ask)) : [];
  return watch.judge(names, presence.kept ? absent : null);
}

/**
 * A look that fails (a server restarting, say) ends every absence the watch was timing: the
 * looks on either side of it say nothing of the time between, when a claimant may have been
 * back, and a claimant still reconnecting after the restart would otherwise look gone at once.
 */
async function forgettingOnFailure<T>(watch: ClaimantWatch, look: () => Promise<T>): Promise<T> {
  try {
    return await look();
  } catch (error) {
    watch.forget();
    throw error;
  }
}

/** Performs the one-off actions operators approved for minds this daemon serves; returns how many it performed. */
async function performApprovedActions(ctx: ExecutorContext, limit: number, signal: AbortSignal | undefined): Promise<number> {
  let performed = 0;
  for (const id of await ctx.store.executorQueries.approvedActionIds({ host: ctx.host, limit })) {
    if (signal?.aborted) break;
    if (await ctx.capabilities.performApproved(id, ctx.name)) performed += 1;
  }
  return performed;
}

async function expireForgottenPredictions(ctx: ExecutorContext, limit: number): Promise<number> {
  const before = new Date(ctx.clock.now().getTime() - FORGOTTEN_PREDICTION_SECONDS * 1000);
  let expired = 0;
  for (const prediction of await ctx.store.predictions.listOverdue(before, limit)) {
    const resolution = await resolvePrediction(ctx.store, prediction.id, { status: 'expired', note: 'the window closed long ago and nothing observed it' });
    if (resolution.resolved) expired += 1;
  }
  return expired;
}
