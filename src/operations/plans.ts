// Plans as surfaces show them: summaries for lists, the detail view (steps with every record
// they link to, actual use against the budget, the intention's revision chain), operator- or
// agent-authored submissions, and cancelling a plan.

import type { Principal } from '../access/permissions.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { Budget, Resources, ValidationIssue } from '../core/plan.ts';
import { CLOSED_PLAN_STATUSES, PLAN_STATUSES, type PlanOrigin, type PlanStatus } from '../core/vocabulary.ts';
import { originsOf, usage } from '../execution/budget.ts';
import { silentLog } from '../execution/context.ts';
import { FailureTally } from '../execution/stuck.ts';
import { cancelOpenSteps } from '../execution/replan.ts';
import { submitPlan } from '../drafting/submit-plan.ts';
import { budgetLimits } from '../planning/resources.ts';
import type { ApprovalRecord, CapabilityRequestRecord, ExecutionRecord, IntentionRecord, PlanRecord, PredictionRecord, StepRecord, Store } from '../store/index.ts';
import { Conflict, NotStored } from './errors.ts';
import { findIntention, inReach, mindFilter, resolveMind } from './minds.ts';
import { decodeCursor, pageOf, pageSize, type Page, type PageRequest } from './pages.ts';

export interface PlanSummary {
  id: string;
  mindId: string;
  mindName: string;
  intentionId: string;
  objective: string;
  status: PlanStatus;
  revision: number;
  origin: string;
  strategy: string;
  createdAt: Date;
  updatedAt: Date;
  /**
   * The plan completed by leaving a note for the operator (a `notify_operator` step): it told a
   * person instead of bringing the objective about, so it reads "escalated to you", not a success.
   */
  escalated: boolean;
}

export interface StepView extends StepRecord {
  execution: ExecutionRecord | null;
  approval: ApprovalRecord | null;
  request: CapabilityRequestRecord | null;
  prediction: PredictionRecord | null;
  subordinate: IntentionRecord | null;
}

export interface PlanRevision {
  id: string;
  revision: number;
  status: PlanStatus;
  supersedes: string | null;
  supersededBy: string | null;
  createdAt: Date;
}

export interface PlanDetail {
  plan: PlanRecord;
  steps: StepView[];
  usage: { used: Resources; budget: Budget; estimate: Partial<Resources> };
  revisions: PlanRevision[];
}

/** A completed plan that left a note for the operator: an escalation, not a success. */
export function completedEscalation(plan: Pick<PlanRecord, 'status'> & { steps: readonly Pick<StepRecord, 'kind' | 'spec'>[] }): boolean {
  return plan.status === 'completed' && plan.steps.some((s) => s.kind === 'internal' && s.spec.action === 'notify_operator');
}

/**
 * Summaries of plans with their minds' names, looked up once per distinct mind; the steps of the
 * completed ones are read (in one go) to tell an escalation from a success.
 */
export async function summarise(store: Store, plans: readonly PlanRecord[]): Promise<PlanSummary[]> {
  const names = new Map<string, string>();
  for (const mindId of new Set(plans.map((p) => p.mindId))) {
    names.set(mindId, (await store.minds.get(mindId))?.name ?? '');
  }
  const completed = plans.filter((p) => p.status === 'completed').map((p) => p.id);
  const withSteps = completed.length > 0 ? await store.plans.getMany(completed) : new Map<string, never>();
  const escalated = new Set([...withSteps.values()].filter(completedEscalation).map((p) => p.id));
  return plans.map((p) => ({
    id: p.id,
    mindId: p.mindId,
    mindName: names.get(p.mindId) ?? '',
    intentionId: p.intentionId,
    objective: p.objective,
    status: p.status,
    revision: p.revision,
    origin: p.origin,
    strategy: p.strategy,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    escalated: escalated.has(p.id),
  }));
}

export interface PlanListInput extends PageRequest {
  mind?: string | undefined;
  status?: PlanStatus | undefined;
  intention?: string | undefined;
}

export async function listPlans(store: Store, principal: Principal, input: PlanListInput): Promise<Page<PlanSummary>> {
  const limit = pageSize(input);
  const beforeId = input.cursor === undefined ? undefined : decodeCursor('id', input.cursor);
  const mindId = await mindFilter(store, principal, input.mind);
  if (input.intention !== undefined) await findIntention(store, principal, input.intention, 'intention');
  const rows = await store.plans.listPage({
    ...(mindId !== undefined ? { mindId } : {}),
    ...(input.intention !== undefined ? { intentionId: input.intention } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(beforeId !== undefined ? { beforeId } : {}),
    limit: limit + 1,
  });
  const page = pageOf(rows, limit, (p) => p.id, 'id');
  return { items: await summarise(store, page.items), next_cursor: page.next_cursor };
}

/** The plan, if it exists and the principal may see its mind. */
export async function findPlan(store: Store, principal: Principal, planId: string, path = 'id') {
  return inReach(principal, await store.plans.get(planId), path, `no plan ${planId}`);
}

async function linked<T>(id: string | null, get: (id: string) => Promise<T | undefined>): Promise<T | null> {
  return id ? ((await get(id)) ?? null) : null;
}

export async function planDetail(store: Store, registry: CapabilityRegistry, principal: Principal, planId: string): Promise<PlanDetail> {
  const { steps, ...plan } = await findPlan(store, principal, planId);
  const views = await Promise.all(
    steps.map(
      async (step): Promise<StepView> => ({
        ...step,
        execution: await linked(step.executionId, (id) => store.executions.get(id)),
        approval: await linked(step.approvalId, (id) => store.approvals.get(id)),
        request: await linked(step.requestId, (id) => store.capabilityRequests.get(id)),
        prediction: await linked(step.predictionId, (id) => store.predictions.get(id)),
        subordinate: await linked(step.intentionId, (id) => store.intentions.get(id)),
      }),
    ),
  );
  // Use is counted from the records the steps left, like the executor's budget check does.
  const counts = await store.executorQueries.countByOrigin(originsOf(steps));
  const end = plan.closedAt ?? store.clock.now();
  const used = usage(plan, steps, counts, registry, end);
  const revisions = (await store.plans.listByIntention(plan.intentionId)).map((p) => ({
    id: p.id,
    revision: p.revision,
    status: p.status,
    supersedes: p.supersedes,
    supersededBy: p.supersededBy,
    createdAt: p.createdAt,
  }));
  // The caps the executor enforces, defaults included: a plan that stated no budget is still held
  // to 20 invocations, and shows that rather than an empty budget.
  const budget = budgetLimits(plan.budget);
  return { plan: { ...plan, budget }, steps: views, usage: { used, budget, estimate: plan.estimate }, revisions };
}

export interface Submitted {
  stored: true;
  plan_id: string;
  intention_id: string;
  status: PlanStatus;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

export interface SubmitOptions {
  /** The open intention the plan serves; by default one is formed from the plan's objective. */
  intentionId?: string | undefined;
  /** Who wrote it, when the surface knows better than the token's role (MCP: always a model). */
  origin?: Extract<PlanOrigin, 'operator' | 'model'> | undefined;
  /** Only while the intention is open and has no runnable plan (submit-plan.ts, `onlyPlan`); refused as a Conflict at `path`. */
  onlyPlan?: boolean | undefined;
  path?: string | undefined;
}

/**
 * Stores a plan draft for a mind. Operators author with origin `operator`; an agent's plan is a
 * model's proposal (origin `model`) and passes exactly the same gates.
 */
export async function submitPlanDraft(store: Store, registry: CapabilityRegistry, principal: Principal, mindRef: string, draft: unknown, options: SubmitOptions = {}): Promise<Submitted> {
  const mind = await resolveMind(store, principal, mindRef);
  const origin = options.origin ?? (principal.role === 'agent' ? 'model' : 'operator');
  const result = await submitPlan(store, registry, {
    mindId: mind.id,
    input: draft,
    origin,
    authoredBy: principal.operator,
    ...(options.intentionId !== undefined ? { intentionId: options.intentionId } : {}),
    ...(options.onlyPlan ? { onlyPlan: true } : {}),
  });
  if (!result.stored && 'conflict' in result) throw new Conflict(options.path ?? 'intention_id', result.reason, result.conflict);
  if (!result.stored) {
    const problems = result.assessment.errors.length
      ? result.assessment.errors.map((e) => ({ code: e.code, message: e.message, path: e.path }))
      : [{ code: 'not_a_plan' as const, message: result.reason, path: '' }];
    throw new NotStored(problems, result.reason);
  }
  return {
    stored: true,
    plan_id: result.plan.id,
    intention_id: result.intention.id,
    status: result.plan.status,
    errors: result.assessment.errors,
    warnings: result.assessment.warnings,
  };
}

/**
 * A model's proposal for one open intention (MCP's propose_plan): the intention must be open and
 * have no runnable plan, since a second one would run beside the first; only a plan that failed
 * validation or has ended may be followed by another proposal. Then it is submitted as every
 * proposal is, with origin `model`.
 */
export async function proposePlanForIntention(store: Store, registry: CapabilityRegistry, principal: Principal, intentionId: string, draft: unknown, path = 'intention_id'): Promise<Submitted> {
  const intention = await findIntention(store, principal, intentionId, path);
  // Checked where the plan is stored, with the intention locked: two proposals at once both
  // passed a check made before, and both plans ran.
  return submitPlanDraft(store, registry, principal, intention.mindId, draft, { intentionId: intention.id, origin: 'model', onlyPlan: true, path });
}

/**
 * Abandons an open plan on an operator's word: the plan closes first (so no executor starts
 * another of its steps), then its waiting steps are cancelled and what they waited for is
 * withdrawn. A step mid-invocation is left to finish; its outcome is still recorded.
 */
export async function cancelPlan(store: Store, registry: CapabilityRegistry, capabilities: CapabilityService, principal: Principal, planId: string, reason: string): Promise<PlanRecord> {
  const plan = await findPlan(store, principal, planId);
  const open = PLAN_STATUSES.filter((s) => !CLOSED_PLAN_STATUSES.includes(s));
  const why = `cancelled by ${principal.operator}: ${reason}`;
  const closed = await store.transaction(async (tx) => {
    const moved = await tx.plans.transition(plan.id, open, 'abandoned', { statusReason: why });
    if (moved) {
      await tx.events.append({
        type: 'plan_abandoned',
        mindId: plan.mindId,
        intentionId: plan.intentionId,
        planId: plan.id,
        data: { reason, operator: principal.operator },
      });
    }
    return moved;
  });
  if (!closed) throw new Conflict('id', `plan ${plan.id} is already ${(await store.plans.get(plan.id))?.status ?? plan.status}`, 'plan_closed');
  await cancelOpenSteps({ store, capabilities, registry, clock: store.clock, host: null, planning: null, name: `api:${principal.operator}`, log: silentLog, failures: new FailureTally() }, plan, why);
  return closed;
}
