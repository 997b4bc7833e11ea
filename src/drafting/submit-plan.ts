// Storing a plan someone else wrote (an operator's file, a model's proposal). It passes the
// same gates as every plan: parsed, validated, and stored `validated` only when it passed;
// otherwise it is kept as a `draft` with its errors, which the executor never runs. For an
// intention that already has plans it is the next revision, superseding the latest
// (revisions.ts), exactly as one the planner makes.

import { CLOSED_PLAN_STATUSES, type PlanOrigin } from '../core/vocabulary.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { assessProposal, type Assessment } from '../planning/assess.ts';
import { assumedBeliefIds } from '../planning/assumptions.ts';
import { heldBeliefs } from '../mind/beliefs.ts';
import type { PlanDraft } from '../core/plan.ts';
import type { IntentionRecord, MindRecord, PlanWithSteps, Store } from '../store/index.ts';
import { RevisionRefused, storeRevision } from './revisions.ts';

export interface Submission {
  mindId: string;
  /** Untrusted plan input (parsed JSON or YAML). */
  input: unknown;
  origin: Extract<PlanOrigin, 'operator' | 'model'>;
  /** The intention the plan serves; when absent one is formed from the plan's objective. */
  intentionId?: string;
  /** Who submitted it (the token's operator); their name can never approve its actions. */
  authoredBy?: string;
  /**
   * With `intentionId`: store the plan only while the intention is open, not a dream's, and has no
   * runnable plan (a model's proposal: a second one would run beside the first). Checked inside the storing
   * transaction, with the intention locked, so two proposals at once cannot both pass.
   */
  onlyPlan?: boolean;
}

export type SubmissionResult =
  | { stored: true; assessment: Assessment; plan: PlanWithSteps; intention: IntentionRecord }
  /** Input that is not a plan at all is refused and nothing is stored. */
  | { stored: false; assessment: Assessment; reason: string }
  /** `onlyPlan`: the intention closed, is a dream's, or has a runnable plan by the time it was stored; nothing is stored. */
  | { stored: false; assessment: Assessment; reason: string; conflict: 'intention_closed' | 'intention_dreamt' | 'plan_in_progress' };

export async function submitPlan(store: Store, registry: CapabilityRegistry, submission: Submission): Promise<SubmissionResult> {
  // Assumptions that name a belief are checked against the mind's beliefs as they are now.
  const beliefs = await heldBeliefs(store, submission.mindId, assumedBeliefIds(submission.input));
  // A model's or an agent's plan is the `model` strategy's, whatever it calls itself: a failure then
  // marks that strategy failed, not none (an empty name) or a planner's own (a borrowed one).
  const assessment = assessProposal(submission.input, registry, { beliefs, ...(submission.origin === 'model' ? { strategy: 'model' } : {}) });
  const draft = assessment.draft;
  if (!draft || !assessment.estimate) return { stored: false, assessment, reason: assessment.refusal ?? 'the input is not a plan' };
  const mind = await store.minds.get(submission.mindId);
  if (!mind) return { stored: false, assessment, reason: `no mind with id ${submission.mindId}` };
  if (submission.intentionId) {
    const intention = await store.intentions.get(submission.intentionId);
    if (!intention || intention.mindId !== mind.id) {
      return { stored: false, assessment, reason: `mind ${mind.name} has no intention ${submission.intentionId}` };
    }
  }

  try {
    return await storeSubmission(store, registry, submission, assessment, draft, mind);
  } catch (error) {
    // The transaction rolled back, so nothing of it stayed: a plan still running is not replaced.
    if (error instanceof RevisionRefused) return { stored: false, assessment, reason: error.message, conflict: 'plan_in_progress' };
    throw error;
  }
}

async function storeSubmission(store: Store, registry: CapabilityRegistry, submission: Submission, assessment: Assessment, draft: PlanDraft, mind: MindRecord): Promise<SubmissionResult> {
  return store.transaction(async (tx): Promise<SubmissionResult> => {
    const intention = submission.intentionId
      ? (await tx.intentions.getForUpdate(submission.intentionId))!
      : await tx.intentions.create({
          mindId: mind.id,
          objective: draft.objective || '(plan without an objective)',
          origin: submission.origin,
          requireApproval: draft.require_approval ?? false,
          authoredBy: submission.authoredBy ?? '',
        });
    const plans = submission.intentionId ? await tx.plans.listByIntention(intention.id) : [];
    if (submission.onlyPlan && submission.intentionId) {
      if (intention.status === 'fulfilled' || intention.status === 'abandoned') {
        return { stored: false, assessment, reason: `the intention is ${intention.status}: form a new one`, conflict: 'intention_closed' };
      }
      // A dream's intention waits suspended for good: a plan stored for it would never start,
      // and, never ending, would refuse every later proposal as one in progress.
      if (intention.origin === 'dream') {
        return { stored: false, assessment, reason: "the intention is a dream's, and nothing planned for it runs: form an intention for its want", conflict: 'intention_dreamt' };
      }
      const live = plans.find((p) => p.status !== 'draft' && !CLOSED_PLAN_STATUSES.includes(p.status));
      if (live) return { stored: false, assessment, reason: `plan ${live.id} of this intention is ${live.status}; wait until it ends`, conflict: 'plan_in_progress' };
    }
    const validation = { valid: assessment.valid, errors: assessment.errors, warnings: assessment.warnings, estimate: assessment.estimate! };
    // The next revision of an intention that already has plans, linked to the latest (revisions.ts).
    const plan = await storeRevision(tx, {
      registry,
      intention,
      latest: plans.at(-1) ?? null,
      origin: submission.origin,
      strategy: draft.strategy,
      draft,
      validation,
      authoredBy: submission.authoredBy ?? '',
    });
    // What was stored, which may say more than the assessment: a write repeated (revisions.ts).
    const { valid, errors } = plan.validation;
    return { stored: true, assessment: { ...assessment, valid, errors }, plan, intention };
  });
}
