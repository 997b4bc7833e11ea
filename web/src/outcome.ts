// What became of an intention, in words, from the records the API returns: the first thing the
// plan page says. A plan can be `completed` while its intention was not brought about (an
// escalation plan completes by telling the operator), so the intention's own status leads and
// the plan's steps say what is waited for. Pure: tested without a browser.

import type { IntentionRecord, PlanRecord, PlanSummary, StepView } from './api/types.ts';

export type OutcomeKind = 'fulfilled' | 'escalated' | 'waiting_for_you' | 'blocked' | 'abandoned' | 'failed' | 'superseded' | 'draft' | 'in_progress' | 'unknown';

export interface Outcome {
  kind: OutcomeKind;
  /** One line: "Escalated to you", "Waiting for you: approve service.restart on atlas-worker.service". */
  headline: string;
  /** The note left for the operator, a reason, or what happens next. */
  detail: string;
  /** Where the operator acts, when something waits for them. */
  act: 'approvals' | 'release' | null;
  /** The step to open for more, if one matters. */
  stepKey: string | null;
}

/** Statuses a step waits for a person in. */
const WAITS_FOR_PERSON = new Set(['awaiting_approval', 'awaiting_grant']);

/**
 * The message of the note an escalation step left: the note as left (its observation, which
 * carries the findings of the summary it followed), else as planned (spec.message).
 */
export function escalationNote(steps: readonly (Pick<StepView, 'key' | 'kind' | 'spec'> & { observation?: unknown })[]): { key: string; message: string } | null {
  for (const step of steps) {
    const spec = step.spec ?? {};
    if (step.kind === 'internal' && spec.action === 'notify_operator' && typeof spec.message === 'string') {
      const left = (step.observation as { message?: unknown } | null | undefined)?.message;
      return { key: step.key, message: typeof left === 'string' && left !== '' ? left : spec.message };
    }
  }
  return null;
}

/**
 * The status to show for a plan. An executing plan whose steps wait for a person reads as
 * waiting for them (the engine may name that status itself: `awaiting_approval`, `waiting`); a
 * completed escalation reads as escalated, never as a green success.
 */
export function displayStatus(plan: Pick<PlanRecord, 'status'>, steps: readonly Pick<StepView, 'key' | 'status' | 'kind' | 'spec'>[]): { status: string; label: string } {
  if (plan.status === 'executing' || plan.status === 'waiting' || plan.status === 'awaiting_approval') {
    const waiting = steps.find((s) => WAITS_FOR_PERSON.has(s.status));
    if (waiting) return { status: waiting.status, label: waiting.status === 'awaiting_grant' ? 'waiting for a grant' : 'waiting for an approval' };
    if (plan.status === 'awaiting_approval') return { status: 'awaiting_approval', label: 'waiting for an approval' };
  }
  if (plan.status === 'completed' && escalationNote(steps)) return ESCALATED;
  return { status: plan.status, label: plan.status.replace(/_/g, ' ') };
}

const ESCALATED = { status: 'escalated', label: 'escalated to you' } as const;

/**
 * The status to show for a plan known only by its summary (the plans list, the revisions of an
 * intention): a completed escalation, which the API marks, reads as escalated to you.
 */
export function summaryStatus(plan: Pick<PlanSummary, 'status' | 'escalated'>): { status: string; label: string } {
  if (plan.status === 'completed' && plan.escalated) return ESCALATED;
  return { status: plan.status, label: plan.status.replace(/_/g, ' ') };
}

function what(step: StepView): string {
  const action = step.approval ? `${step.approval.capability} on ${step.approval.target}` : step.capability ? `${step.capability}${step.target ? ` on ${step.target}` : ''}` : step.title;
  return step.status === 'awaiting_grant' ? `grant ${step.request ? `${step.request.capability} on ${step.request.targetPattern}` : action}` : `approve ${action}`;
}

const REASONS: Record<string, string> = {
  awaiting_approval: 'it waits for an approval',
  awaiting_grant: 'it waits for a capability grant',
  awaiting_subordinate: 'it waits for a subordinate intention',
  outcome_unverified: 'the outcome of an action could not be verified',
  budget_exhausted: 'its budget ran out',
  no_possible_plan: 'no plan could be made for it',
  replan_limit: 'it was replanned as often as allowed',
  capability_denied: 'a capability it needs was denied',
  expectation_failed: 'an action did not bring about what was expected',
  cancelled: 'it was cancelled',
  precondition_met: 'it already held, so nothing had to be done',
  completed: 'its plan completed and was verified',
  quiesced: 'its mind was quiesced',
};

export function reasonText(reason: string): string {
  return REASONS[reason] ?? reason.replace(/_/g, ' ');
}

/**
 * `intention` is null while it is not known (not loaded yet, or its load failed): then only what
 * the plan and its steps show is said, and a plan that no longer runs has an unknown outcome
 * (a completed plan may have fulfilled its intention or escalated it), never "nothing waits".
 */
export function outcomeOf(intention: Pick<IntentionRecord, 'status' | 'reason' | 'objective'> | null, plan: PlanRecord, steps: readonly StepView[]): Outcome {
  const note = escalationNote(steps);
  const waiting = steps.find((s) => WAITS_FOR_PERSON.has(s.status));
  const blockedStep = steps.find((s) => s.status === 'blocked');
  const none = { act: null, stepKey: null } as const;

  if (waiting) {
    return { kind: 'waiting_for_you', headline: `Waiting for you: ${what(waiting)}`, detail: waiting.title, act: 'approvals', stepKey: waiting.key };
  }
  if (blockedStep) {
    const detail = blockedStep.statusReason || blockedStep.error || 'Praxis will not guess whether its action happened: check, then release the step.';
    return { kind: 'blocked', headline: `Blocked, waiting for you: step ${blockedStep.key} (${blockedStep.title})`, detail, act: 'release', stepKey: blockedStep.key };
  }
  if (plan.status === 'superseded') {
    return {
      ...none,
      kind: 'superseded',
      headline: 'Replaced by a later revision',
      detail: plan.statusReason || 'This revision was replanned; the latest revision says what became of the intention.',
    };
  }
  if (plan.status === 'draft') {
    // Kept to be read (an invalid plan, a dream), never run: nothing is in progress.
    return { ...none, kind: 'draft', headline: 'A draft: it never runs', detail: plan.statusReason || 'This plan is kept to be read; a draft never runs.' };
  }
  if (plan.status === 'blocked') {
    // Blocked as a whole with no step blocked: a spent budget, or a plan the executor found it
    // could not move (its reason says which), for an operator to look at.
    const why = plan.statusReason || (intention ? reasonText(intention.reason) : '');
    return { ...none, kind: 'blocked', headline: 'Blocked, waiting for you', detail: why ? `The plan is blocked: ${why}.` : 'The plan is blocked.' };
  }
  if (intention?.status === 'blocked' && note) {
    return { ...none, kind: 'escalated', headline: 'Escalated to you', detail: note.message, stepKey: note.key };
  }
  if (intention?.status === 'fulfilled') {
    return { ...none, kind: 'fulfilled', headline: 'Fulfilled', detail: `${intention.objective}: ${reasonText(intention.reason || 'completed')}.` };
  }
  if (intention?.status === 'abandoned' || plan.status === 'abandoned') {
    const why = plan.statusReason || (intention ? reasonText(intention.reason) : '');
    return { ...none, kind: 'abandoned', headline: 'Abandoned', detail: why ? `Why: ${why}.` : 'No reason was recorded.' };
  }
  if (plan.status === 'failed') {
    return { ...none, kind: 'failed', headline: 'Failed', detail: plan.statusReason || 'The plan failed.' };
  }
  if (intention?.status === 'blocked') {
    return { ...none, kind: 'blocked', headline: 'Blocked, waiting for you', detail: `The intention is blocked: ${reasonText(intention.reason)}.` };
  }
  const running = steps.find((s) => s.status === 'executing' || s.status === 'waiting' || s.status === 'ready');
  if (!intention && !running) {
    return {
      ...none,
      kind: 'unknown',
      headline: 'What became of the intention is not known',
      detail:
        plan.status === 'completed'
          ? 'The plan completed, but its intention could not be read: it may have been fulfilled, or escalated to you.'
          : 'The intention could not be read, so whether anything waits for you is not known.',
    };
  }
  return {
    ...none,
    kind: 'in_progress',
    headline: plan.status === 'completed' ? 'Completed' : 'In progress',
    detail: running ? `Step ${running.key} (${running.title}) is ${running.status.replace(/_/g, ' ')}.` : plan.statusReason || 'Nothing waits for you.',
    stepKey: running?.key ?? null,
  };
}
