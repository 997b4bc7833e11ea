// Intentions as surfaces handle them: lists, the detail view (plans and subordinates), forming
// one from an objective or a concrete means and asking the planner at once, and cancelling.

import type { Principal } from '../access/permissions.ts';
import { mask } from '../capabilities/host/masking.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import { InputError, type Problem } from '../core/errors.ts';
import type { JsonObject } from '../core/plan.ts';
import type { IntentionStatus } from '../core/vocabulary.ts';
import { planIntention, type PlanIntentionResult, type PlanningServices } from '../drafting/plan-intention.ts';
import { didYouMean } from '../planning/did-you-mean.ts';
import { abandonIntention, formIntention } from '../mind/intentions.ts';
import type { IntentionMeans, IntentionRecord, Store } from '../store/index.ts';
import { Conflict } from './errors.ts';
import { findIntention, resolveMind } from './minds.ts';
import { decodeCursor, pageOf, pageSize, type Page, type PageRequest } from './pages.ts';
import { cancelPlan, summarise, type PlanSummary } from './plans.ts';

export async function listIntentions(store: Store, principal: Principal, mindRef: string, input: PageRequest & { status?: IntentionStatus | undefined }): Promise<Page<IntentionRecord>> {
  const limit = pageSize(input);
  const beforeId = input.cursor === undefined ? undefined : decodeCursor('id', input.cursor);
  const mind = await resolveMind(store, principal, mindRef);
  const rows = await store.intentions.listPage(mind.id, {
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(beforeId !== undefined ? { beforeId } : {}),
    limit: limit + 1,
  });
  return pageOf(rows, limit, (i) => i.id, 'id');
}

export interface IntentionDetail {
  intention: IntentionRecord;
  plans: PlanSummary[];
  subordinates: IntentionRecord[];
}

export async function intentionDetail(store: Store, principal: Principal, id: string): Promise<IntentionDetail> {
  const intention = await findIntention(store, principal, id);
  const plans = await summarise(store, await store.plans.listByIntention(intention.id));
  return { intention, plans, subordinates: await store.intentions.listSubordinates(intention.id) };
}

export interface IntentionProposal {
  objective?: string | undefined;
  means?: { capability: string; target?: string | undefined; params: JsonObject } | undefined;
  require_approval?: boolean | undefined;
}

export interface Proposed {
  intention: IntentionRecord;
  planning: { status: string; plan_id: string | null; reason: string };
}

/** A means checked against the registry: its parameters pass the schema and its target follows from them. */
function checkMeans(registry: CapabilityRegistry, means: NonNullable<IntentionProposal['means']>): IntentionMeans {
  const problems: Problem[] = registry.checkParams(means.capability, means.params).map((p) => ({
    code: p.code,
    message:
      p.code === 'unknown_capability'
        ? `${p.message}${didYouMean(
            means.capability,
            registry.list().map((d) => d.name),
          )}`
        : p.message,
    path: `means.${p.path}`,
  }));
  if (problems.length > 0) throw new InputError(problems);
  const target = registry.targetOf(means.capability, means.params);
  if (means.target !== undefined && means.target !== target) {
    throw new InputError([{ code: 'target_mismatch', path: 'means.target', message: `the parameters act on "${target}", not "${means.target}"; leave the target out or make it match` }]);
  }
  return { capability: means.capability, target, params: means.params };
}

/**
 * Forms the intention on the caller's word without planning it. Its origin is the caller's
 * (`agent:<name>`, `operator:<name>`) unless a surface names its own (MCP says `mcp`).
 */
export async function formProposedIntention(
  store: Store,
  registry: CapabilityRegistry,
  principal: Principal,
  mindRef: string,
  proposal: IntentionProposal,
  origin = principal.role === 'agent' ? `agent:${principal.operator}` : `operator:${principal.operator}`,
): Promise<IntentionRecord> {
  const mind = await resolveMind(store, principal, mindRef);
  const means = proposal.means ? checkMeans(registry, proposal.means) : null;
  const formed = await formIntention(store, {
    mindId: mind.id,
    ...(proposal.objective !== undefined ? { objective: proposal.objective } : {}),
    means,
    origin,
    requireApproval: proposal.require_approval ?? false,
    authoredBy: principal.operator,
  });
  if (!formed.ok) throw new InputError(formed.problems);
  return formed.intention;
}

/** What planning answered, in the words every surface reports it with. */
function planningSummary(result: PlanIntentionResult): Proposed['planning'] {
  switch (result.status) {
    case 'planned':
      return { status: 'planned', plan_id: result.plan.id, reason: `planned with ${result.strategy}` };
    case 'draft':
      return { status: 'draft', plan_id: result.plan.id, reason: `the proposal failed validation (${result.errors.length} error(s)) and is kept as a draft` };
    case 'no_possible_plan':
      return { status: 'no_possible_plan', plan_id: null, reason: 'no strategy applies: the intention was abandoned' };
    case 'model_failed':
      // The model server's own words may echo what was sent to it (the API key, a password in a
      // prompt): masked before any caller, agent or operator, reads them.
      return { status: 'model_failed', plan_id: null, reason: mask(`${result.outcome}: ${result.message}`) };
    case 'refused':
      return { status: 'refused', plan_id: null, reason: `${result.code}: ${result.message}` };
  }
}

/** Proposed, with the planner's whole answer (alternatives scored, a draft's errors) for a surface that shows it. */
export interface ProposedInDetail extends Proposed {
  result: PlanIntentionResult;
}

/** Asks the planner for a formed intention straight away; the intention is read again, as planning may close it. */
export async function planFormedIntentionInDetail(store: Store, planning: PlanningServices, intention: IntentionRecord): Promise<ProposedInDetail> {
  const result = await planIntention(store, planning, intention.id);
  const planned = (await store.intentions.get(intention.id)) ?? intention;
  return { intention: planned, planning: planningSummary(result), result };
}

/** planFormedIntentionInDetail, answering what the API and MCP return. */
export async function planFormedIntention(store: Store, planning: PlanningServices, intention: IntentionRecord): Promise<Proposed> {
  const { intention: planned, planning: summary } = await planFormedIntentionInDetail(store, planning, intention);
  return { intention: planned, planning: summary };
}

/** Forms the intention, then asks the planner for it straight away. */
export async function proposeIntention(store: Store, planning: PlanningServices, principal: Principal, mindRef: string, proposal: IntentionProposal): Promise<Proposed> {
  const intention = await formProposedIntention(store, planning.registry, principal, mindRef, proposal);
  return planFormedIntention(store, planning, intention);
}

/**
 * Abandons an open intention (with its open subordinates) on an operator's word, then cancels
 * its plans that are still open. The intention closes first, so nothing resumes it while its
 * plans are being cancelled.
 */
export async function cancelIntention(store: Store, registry: CapabilityRegistry, capabilities: CapabilityService, principal: Principal, id: string, reason: string): Promise<IntentionRecord> {
  const intention = await findIntention(store, principal, id);
  const abandoned = await abandonIntention(store, intention.id, 'cancelled', { operator: principal.operator, note: reason });
  if (!abandoned) {
    const now = (await store.intentions.get(intention.id))?.status ?? intention.status;
    throw new Conflict('id', `intention ${intention.id} is already ${now}`, 'intention_closed');
  }
  for (const plan of await store.plans.listByIntention(intention.id)) {
    try {
      await cancelPlan(store, registry, capabilities, principal, plan.id, reason);
    } catch (error) {
      // A plan that closed already (or closes meanwhile) needs nothing more.
      if (!(error instanceof Conflict)) throw error;
    }
  }
  return abandoned;
}
