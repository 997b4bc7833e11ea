// A plan stored for an intention is its next revision, whoever wrote it: the planner, a model
// asked by the planner, or a proposal submitted through the API, MCP or a file. One place numbers
// revisions and links them, so that the reconsideration rule, which counts the replans an
// intention has used from the revision of its failed plan (revision r has used r − 1), counts
// every plan the intention has had. A submitted proposal used to be stored as revision 1 with no
// link whatever the intention already had: the replan limit started again from nothing, the
// draft it followed stayed a draft, and the next replan asked for a revision that was taken.
//
// Runs inside the caller's transaction, with the intention already locked (or, on SQLite, all
// writers serialised), and `latest` read in that same transaction.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { JsonObject, PlanDraft, ValidationResult } from '../core/plan.ts';
import { CLOSED_PLAN_STATUSES, type PlanOrigin, type PlanStatus } from '../core/vocabulary.ts';
import { repeatedWrites, spentWrites, type PastRevision, type SpentWrite } from '../planning/repeated-writes.ts';
import type { IntentionRecord, PlanRecord, PlanWithSteps, Repositories } from '../store/index.ts';

/** Plan statuses a new revision may replace (marking them `superseded`). */
export const SUPERSEDABLE_PLAN_STATUSES: readonly PlanStatus[] = ['draft', 'validated', 'blocked', 'replanning', 'failed'];

/** The revision could not be stored; thrown inside the transaction so that nothing of it stays. */
export class RevisionRefused extends Error {
  constructor(
    readonly code: 'plan_in_progress' | 'planned_concurrently',
    message: string,
  ) {
    super(message);
    this.name = 'RevisionRefused';
  }
}

export interface NewRevision {
  registry: CapabilityRegistry;
  intention: IntentionRecord;
  /** The intention's newest plan, read in this transaction; null for its first. */
  latest: PlanRecord | null;
  origin: PlanOrigin;
  /** The strategy the plan is told by in its events. */
  strategy: string;
  draft: PlanDraft;
  validation: ValidationResult;
  authoredBy: string;
  llmCall?: string | null;
  /** More for the plan_created event (the planner's alternatives and considerations). */
  created?: JsonObject;
}

/** The next revision in one line: its number and the plan it follows (pure). */
export function nextRevision(latest: Pick<PlanRecord, 'id' | 'revision'> | null): { revision: number; supersedes: string | null } {
  return { revision: (latest?.revision ?? 0) + 1, supersedes: latest?.id ?? null };
}

/**
 * Stores `draft` as the intention's next revision (validated only when it passed), announces it,
 * and links it with the plan before it both ways: a plan that failed or has not started is marked
 * `superseded`; one that ended otherwise keeps its status and only gains the link. A plan still
 * running (executing, waiting, awaiting an approval) is never replaced under the executor:
 * RevisionRefused, `plan_in_progress`.
 */
export async function storeRevision(tx: Repositories, next: NewRevision): Promise<PlanWithSteps> {
  const { intention, latest, draft } = next;
  const supersedable = latest !== null && SUPERSEDABLE_PLAN_STATUSES.includes(latest.status);
  if (latest && !supersedable && !CLOSED_PLAN_STATUSES.includes(latest.status)) {
    throw new RevisionRefused('plan_in_progress', `plan ${latest.id} (revision ${latest.revision}) of this intention is ${latest.status}; wait until it ends, or cancel it`);
  }
  const { revision, supersedes } = nextRevision(latest);
  // Only an operator may retry a write that did not work (src/planning/repeated-writes.ts).
  const repeats = next.origin === 'operator' ? [] : repeatedWrites(draft, next.origin, await spentWritesOf(tx, intention.id, next.registry), next.registry);
  const validation: ValidationResult = repeats.length === 0 ? next.validation : { ...next.validation, valid: false, errors: [...next.validation.errors, ...repeats] };
  const plan = await tx.plans.create({
    mindId: intention.mindId,
    intentionId: intention.id,
    origin: next.origin,
    revision,
    supersedes,
    draft,
    validation,
    status: validation.valid ? 'validated' : 'draft',
    statusReason: validation.valid ? '' : `${validation.errors.length} validation error(s)`,
    // The intention's own requirement holds for every plan that serves it, however it was written.
    requireApproval: draft.require_approval === true || intention.requireApproval,
    authoredBy: next.authoredBy,
    llmCall: next.llmCall ?? null,
    // An operator who paused a plan paused its work: the revision replacing it waits for them too.
    pause: latest?.pause ?? null,
  });
  const where = { mindId: intention.mindId, intentionId: intention.id, planId: plan.id };
  await tx.events.append({
    type: 'plan_created',
    ...where,
    data: { origin: next.origin, strategy: next.strategy, revision, steps: plan.steps.length, supersedes, llm_call: next.llmCall ?? null, ...next.created },
  });
  await tx.events.append({
    type: validation.valid ? 'plan_validated' : 'plan_rejected',
    ...where,
    data: { errors: validation.errors.length, warnings: validation.warnings.length, codes: [...new Set(validation.errors.map((e) => e.code))] },
  });
  if (!latest) return plan;
  if (supersedable) {
    const old = await tx.plans.transition(latest.id, SUPERSEDABLE_PLAN_STATUSES, 'superseded', { supersededBy: plan.id });
    if (!old) throw new RevisionRefused('planned_concurrently', `revision ${latest.revision} moved on while its next revision was stored`);
    await tx.events.append({
      type: 'plan_replanned',
      ...where,
      data: { from: latest.id, to: plan.id, from_revision: latest.revision, revision, strategy: next.strategy },
    });
  } else if (latest.supersededBy === null) {
    // Ended (completed, abandoned): its status and closing time are its history; only the link is added.
    const linked = await tx.plans.transition(latest.id, latest.status, latest.status, { supersededBy: plan.id, closedAt: latest.closedAt });
    if (!linked) throw new RevisionRefused('planned_concurrently', `revision ${latest.revision} moved on while its next revision was stored`);
  }
  return plan;
}

/** The writes of the intention's revisions that failed or were refuted: what no plan not an operator's may repeat. */
export async function spentWritesOf(store: Repositories, intentionId: string, registry: CapabilityRegistry): Promise<SpentWrite[]> {
  return spentWrites(await historyOf(store, intentionId, registry), registry);
}

/** The intention's plans as the repeated-write rule reads them, with what each expectation came to. */
async function historyOf(tx: Repositories, intentionId: string, registry: CapabilityRegistry): Promise<PastRevision[]> {
  const plans = await tx.plans.listByIntention(intentionId);
  const full = await tx.plans.getMany(plans.map((p) => p.id));
  const predicted = [...full.values()].flatMap((p) => p.steps.flatMap((s) => (s.kind === 'capability' && s.predictionId ? [s.predictionId] : [])));
  const outcomes = new Map<string, string>();
  for (const id of predicted) {
    const prediction = await tx.predictions.get(id);
    if (prediction) outcomes.set(id, prediction.status);
  }
  return plans.map((p) => ({
    revision: p.revision,
    steps: (full.get(p.id)?.steps ?? []).map((s) => ({
      key: s.key,
      kind: s.kind,
      capability: s.capability,
      // A step stored without its target (a library caller's) names it by its parameters, as a proposal's is compared.
      target: s.target || (s.kind === 'capability' && registry.get(s.capability) ? registry.targetOf(s.capability, s.params) : ''),
      status: s.status,
      error: s.error,
      statusReason: s.statusReason,
      prediction: s.predictionId ? (outcomes.get(s.predictionId) ?? null) : null,
    })),
  }));
}
