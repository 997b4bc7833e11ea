// The step machine, stated once: every move a step's status may make, named by its verb and by
// who makes it. The steps repository refuses any other move (IllegalStepMove, a bug in the
// caller, never a lost race), so the table is the law and not a description of it; a test walks
// every row, and every pair left out, on both stores (test/store/step-moves.test.ts). A write
// that leaves the status as it is (linking a prediction, a subordinate intention) is not a move.
// There is no way back: nothing leaves completed, failed, skipped or cancelled, and nothing
// returns to pending.

import type { StepStatus } from './vocabulary.ts';

/** Who makes a move: the executor's passes, an operator's lever, or replanning and quiescing. */
export type StepMover = 'executor' | 'operator' | 'replan';

/** The verbs of the step machine: the steps repository's `move` takes one, never a bare status. */
export type StepVerb = 'promote' | 'claim' | 'take_over' | 'complete' | 'fail' | 'skip' | 'retry' | 'wait' | 'await_approval' | 'await_grant' | 'block' | 'release' | 'cancel';

export interface StepMoveRule {
  verb: StepVerb;
  from: readonly StepStatus[];
  to: StepStatus;
  by: readonly StepMover[];
  why: string;
}

/** A step the executor is working on: it may act, wait, ask, or finish from any of these. */
const WORKING: readonly StepStatus[] = ['ready', 'waiting', 'executing', 'awaiting_approval', 'awaiting_grant'];

export const STEP_MOVES: readonly StepMoveRule[] = [
  { verb: 'promote', from: ['pending'], to: 'ready', by: ['executor'], why: 'its dependencies are done' },
  { verb: 'claim', from: ['ready', 'waiting', 'awaiting_approval'], to: 'executing', by: ['executor'], why: 'an executor takes it, with a lease, before a write or a check that runs long' },
  {
    verb: 'take_over',
    from: ['executing'],
    to: 'executing',
    by: ['executor'],
    why: 'its claimant is gone or its lease ran out: another executor takes the claim under a new lease (one taker wins)',
  },
  { verb: 'complete', from: WORKING, to: 'completed', by: ['executor'], why: 'its action or check succeeded (a read completes without a claim)' },
  { verb: 'fail', from: WORKING, to: 'failed', by: ['executor'], why: 'its action failed, was denied, or its check refuted the expectation' },
  { verb: 'skip', from: WORKING, to: 'skipped', by: ['executor'], why: 'its precondition says the action is not needed' },
  { verb: 'retry', from: WORKING, to: 'ready', by: ['executor'], why: 'a repeatable failure: runs again after a backoff, or a claim no record proves began' },
  { verb: 'wait', from: WORKING, to: 'waiting', by: ['executor'], why: 'a wait, a monitor or a verify looks again later' },
  { verb: 'await_approval', from: WORKING, to: 'awaiting_approval', by: ['executor'], why: 'policy asks an operator first' },
  { verb: 'await_grant', from: WORKING, to: 'awaiting_grant', by: ['executor'], why: 'a capability request waits for a grant' },
  { verb: 'block', from: ['pending', ...WORKING], to: 'blocked', by: ['executor', 'replan'], why: 'an unknown outcome, a spent budget, repeated failures, or a quiesced mind: an operator decides' },
  { verb: 'release', from: ['blocked'], to: 'ready', by: ['operator'], why: 'an operator checked the world and lets it run again' },
  {
    verb: 'cancel',
    from: ['pending', 'ready', 'waiting', 'awaiting_approval', 'awaiting_grant', 'blocked'],
    to: 'cancelled',
    by: ['executor', 'replan', 'operator'],
    why: 'its plan was replaced, aborted or closed, or a dependency can no longer finish (an executing step finishes first)',
  },
];

const LEGAL = new Set(STEP_MOVES.flatMap((rule) => rule.from.map((from) => `${from}>${rule.to}`)));

/** True when a step may move from `from` to `to` (staying where it is is not a move, and is always allowed). */
export function isLegalStepMove(from: StepStatus, to: StepStatus): boolean {
  return from === to || LEGAL.has(`${from}>${to}`);
}

/** A caller asked for a move the table does not have: a bug, reported before anything is written. */
export class IllegalStepMove extends Error {
  constructor(
    readonly from: StepStatus,
    readonly to: StepStatus,
    readonly verb?: StepVerb,
  ) {
    super(verb ? `a step may not ${verb.replaceAll('_', ' ')} from ${from} (to ${to}; src/core/step-moves.ts)` : `a step may not move from ${from} to ${to} (src/core/step-moves.ts)`);
    this.name = 'IllegalStepMove';
  }
}

const RULES = new Map(STEP_MOVES.map((rule) => [rule.verb, rule]));

/**
 * Where `verb` takes a step from each of `from` (pure). Throws IllegalStepMove when the table
 * does not let the verb move a step from one of them: a bug in the caller, never a lost race.
 */
export function targetOf(verb: StepVerb, from: StepStatus | readonly StepStatus[]): StepStatus {
  const rule = RULES.get(verb);
  if (!rule) throw new TypeError(`no step verb "${String(verb)}" (src/core/step-moves.ts)`);
  for (const status of typeof from === 'string' ? [from] : from) {
    if (!rule.from.includes(status)) throw new IllegalStepMove(status, rule.to, verb);
  }
  return rule.to;
}
