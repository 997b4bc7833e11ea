// Procedural memory: when a plan completes, what it did is kept as a short recipe the mind can
// reuse: "To <objective>: run <capability> on <target>; then verify: <statement>. The outcome
// was confirmed by observation." A recipe whose outcome a verify or monitor step confirmed is
// held with more confidence than one nobody checked. A plan that came after earlier revisions
// says what became of each of them (failed, superseded, ...) as the store has it, and an
// escalation (a plan that only diagnoses and tells an operator) never claims it worked: it
// informed someone, it did not bring the objective about.

import type { JsonObject } from '../core/plan.ts';
import type { NewEvent, NewProceduralMemory, PlanWithSteps, ProceduralMemoryRecord, StepRecord, Store } from '../store/index.ts';

/** Confidence in a recipe whose outcome was observed, and in one whose outcome was not. */
export const VERIFIED_PROCEDURE_CONFIDENCE = 0.9;
export const UNVERIFIED_PROCEDURE_CONFIDENCE = 0.6;

export type ProcedureStep = Pick<StepRecord, 'key' | 'kind' | 'title' | 'capability' | 'target' | 'status' | 'spec' | 'expectation'>;

/** What became of an earlier revision of the same intention. */
export interface EarlierRevision {
  revision: number;
  strategy: string;
  /** `failed` when the plan or one of its steps failed; otherwise the plan's status (superseded, abandoned, ...). */
  outcome: string;
}

export interface ProcedureSource {
  objective: string;
  strategy: string;
  revision: number;
  /** In plan order. */
  steps: readonly ProcedureStep[];
  /** The intention's revisions before this one, oldest first; empty or absent for a first plan. */
  earlier?: readonly EarlierRevision[];
}

/**
 * A plan that only diagnoses and tells the operator: completing it informs, it does not bring
 * about the objective. The escalation strategy, or a plan whose only action is a note.
 */
export function isEscalation(plan: { strategy: string; steps: readonly Pick<StepRecord, 'kind' | 'spec'>[] }): boolean {
  if (plan.strategy === 'diagnose_then_escalate') return true;
  const notifies = plan.steps.some((s) => s.kind === 'internal' && s.spec.action === 'notify_operator');
  const acts = plan.steps.some((s) => s.kind === 'capability' || s.kind === 'request_capability');
  return notifies && !acts && plan.strategy !== 'diagnose';
}

function revisionsText(earlier: readonly EarlierRevision[]): string {
  const said = earlier.map((r) => `revision ${r.revision}${r.strategy ? ` (${storable(r.strategy)})` : ''} ${r.outcome === 'failed' ? 'failed' : `was ${storable(r.outcome)}`}`);
  return said.length <= 1 ? (said[0] ?? '') : `${said.slice(0, -1).join(', ')} and ${said.at(-1)!}`;
}

export interface Procedure {
  summary: string;
  confidence: number;
  verified: boolean;
  steps: JsonObject[];
}

/**
 * Stored text read back into a recipe: control characters (a NUL kept by a store that allowed
 * it, from before the input rule) and lone surrogate halves become U+FFFD, so the recipe and its
 * event can always be written, on either store.
 */
function storable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function objectiveText(objective: string): string {
  const text = storable(objective)
    .trim()
    .replace(/[.!]+$/, '');
  // "Restart atlas-worker" reads as "To restart atlas-worker"; "NGINX ..." keeps its capitals.
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

function text(value: unknown): string {
  return typeof value === 'string' ? storable(value) : '';
}

function phrase(step: ProcedureStep, all: readonly ProcedureStep[]): string {
  const spec = step.spec ?? {};
  switch (step.kind) {
    case 'capability':
      return step.target ? `run ${step.capability} on ${step.target}` : `run ${step.capability}`;
    case 'request_capability': {
      const request = (typeof spec.request === 'object' && spec.request !== null && !Array.isArray(spec.request) ? spec.request : {}) as JsonObject;
      return `obtain access to ${text(request.capability)} on ${text(request.target_pattern)}`;
    }
    case 'verify': {
      const verified = all.find((s) => s.key === spec.verifies);
      return `verify: ${verified?.expectation?.statement ?? step.title}`;
    }
    case 'monitor':
      return `monitor: ${step.title}`;
    case 'wait':
      return `wait ${typeof spec.seconds === 'number' ? spec.seconds : '?'} s`;
    case 'internal':
      return spec.action === 'notify_operator' ? 'notify the operator' : 'summarise the findings';
  }
}

/** The recipe a completed plan leaves (pure); null when no step completed. */
export function describeProcedure(source: ProcedureSource): Procedure | null {
  const done = source.steps.filter((s) => s.status === 'completed');
  if (done.length === 0) return null;
  const phrases = done.map((s) => storable(phrase(s, source.steps)));
  const verified = done.some((s) => s.kind === 'verify' || s.kind === 'monitor');
  let summary = `To ${objectiveText(source.objective)}: ${phrases.join('; then ')}.`;
  summary += verified ? ' The outcome was confirmed by observation.' : ' The outcome was not confirmed by observation.';
  const earlier = revisionsText(source.earlier ?? []);
  if (isEscalation(source)) {
    summary += ` It did not bring the objective about: it escalated to an operator at revision ${source.revision}${earlier ? `, after ${earlier}` : ''}.`;
  } else if (source.revision > 1) {
    summary += ` It worked at revision ${source.revision}${earlier ? `, after ${earlier}` : ''}.`;
  }
  return {
    summary,
    confidence: verified ? VERIFIED_PROCEDURE_CONFIDENCE : UNVERIFIED_PROCEDURE_CONFIDENCE,
    verified,
    steps: done.map((s, i) => ({ key: storable(s.key), kind: s.kind, capability: storable(s.capability), target: storable(s.target), does: phrases[i]! })),
  };
}

export type Recorded = { recorded: true; memory: ProceduralMemoryRecord; created: boolean } | { recorded: false; reason: 'unknown_plan' | 'plan_not_completed' | 'nothing_completed' };

/**
 * Records the procedural memory of a completed plan, with `procedural_memory_recorded`. Recording
 * the same plan again returns the memory already kept and appends nothing.
 */
export async function recordProcedure(store: Store, planId: string, completed?: PlanWithSteps): Promise<Recorded> {
  // The executor closing a plan hands it over as it just completed it, rather than have it read again.
  const plan: PlanWithSteps | undefined = completed?.id === planId && completed.status === 'completed' ? completed : await store.plans.get(planId);
  if (!plan) return { recorded: false, reason: 'unknown_plan' };
  if (plan.status !== 'completed') return { recorded: false, reason: 'plan_not_completed' };
  const memory = await procedureOf(store, plan);
  if (!memory) return { recorded: false, reason: 'nothing_completed' };
  return store.transaction(async (tx) => {
    const { memory: kept, created } = await tx.proceduralMemories.record(memory);
    if (created) await tx.events.append(recordedEvent(kept));
    return { recorded: true, memory: kept, created };
  });
}

/**
 * Records the procedures of several plans the caller has just completed, in one insert with one
 * insert of their events, on the store given (the executor's unit of work closing a batch of
 * plans). A plan with nothing completed, or whose memory is kept already, records nothing.
 */
export async function recordProcedures(store: Store, completed: readonly PlanWithSteps[]): Promise<ProceduralMemoryRecord[]> {
  const memories: NewProceduralMemory[] = [];
  for (const plan of completed) {
    const memory = await procedureOf(store, { ...plan, status: 'completed' });
    if (memory) memories.push(memory);
  }
  const created = await store.proceduralMemories.recordMany(memories);
  await store.events.appendMany(created.map(recordedEvent));
  return created;
}

/** The memory a completed plan leaves, with what its earlier revisions came to; null when nothing completed. */
async function procedureOf(store: Store, plan: PlanWithSteps): Promise<NewProceduralMemory | null> {
  const earlier: EarlierRevision[] = [];
  // A first revision has no earlier one to look for.
  for (const prior of plan.revision > 1 ? await store.plans.listByIntention(plan.intentionId) : []) {
    if (prior.revision >= plan.revision) continue;
    const steps = (await store.plans.get(prior.id))?.steps ?? [];
    const failed = prior.status === 'failed' || steps.some((s) => s.status === 'failed');
    earlier.push({ revision: prior.revision, strategy: prior.strategy, outcome: failed ? 'failed' : prior.status });
  }
  const procedure = describeProcedure({ objective: plan.objective, strategy: plan.strategy, revision: plan.revision, steps: plan.steps, earlier });
  if (!procedure) return null;
  return { mindId: plan.mindId, intentionId: plan.intentionId, planId: plan.id, objective: storable(plan.objective), strategy: plan.strategy, revision: plan.revision, ...procedure };
}

function recordedEvent(memory: ProceduralMemoryRecord): NewEvent {
  return {
    type: 'procedural_memory_recorded',
    mindId: memory.mindId,
    intentionId: memory.intentionId,
    planId: memory.planId,
    data: { memory_id: memory.id, summary: memory.summary, confidence: memory.confidence, verified: memory.verified, revision: memory.revision },
  };
}
