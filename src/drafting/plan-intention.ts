// Planning an intention, the I/O around the pure planner: read the intention, its earlier
// revisions, the strategies that already failed and a view of policy; run the planner (asking
// the model role when it says so, and recording that call); then store the plan with its
// alternatives and link it to the revision it supersedes, or, when nothing can be planned,
// abandon the intention. See docs/planner.md.
//
// Storing is one transaction that first touches the intention row with a conditional update
// (active → active). On PostgreSQL that row lock makes a second planner of the same intention
// wait and then see the first one's plan; on SQLite `BEGIN IMMEDIATE` serialises writers. So an
// intention never gets two plans for one revision, and a revision supersedes exactly one plan.

import { maskCredentials } from '../capabilities/host/masking.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { Alternative, Budget, JsonObject, PlanDraft, ValidationIssue, ValidationResult } from '../core/plan.ts';
import { CLOSED_PLAN_STATUSES, type LlmCallOutcome, type PlanOrigin } from '../core/vocabulary.ts';
import { heldBeliefs } from '../mind/beliefs.ts';
import { abandonIntentionIn } from '../mind/intentions.ts';
import { mayAdvance } from '../mind/minds.ts';
import { failedStrategiesOf } from '../mind/reconsideration.ts';
import { assumedBeliefIds, checkAssumptions } from '../planning/assumptions.ts';
import { Planner } from '../planning/planner.ts';
import type { Considered, PlanRequest, PriorRevision, StrategyName } from '../planning/planner-types.ts';
import { buildModelMessages } from '../planning/strategies/model.ts';
import type { IntentionRecord, PlanRecord, PlanWithSteps, Store } from '../store/index.ts';
import { MAX_RECORDED_RESPONSE_CHARS, OpenAiModelRole, modelRoleConfigFromEnv, type ModelReply, type ModelRole } from './model-role.ts';
import { loadPolicyView } from './policy-view.ts';
import { RevisionRefused, SUPERSEDABLE_PLAN_STATUSES, spentWritesOf, storeRevision } from './revisions.ts';

export interface PlanningServices {
  registry: CapabilityRegistry;
  /** The model serving the plan role; absent or null when none is configured. */
  model?: ModelRole | null;
}

/** The planning services with the model role the environment configures (none without PRAXIS_MODEL_BASE_URL and PRAXIS_MODEL). */
export function planningFromEnv(registry: CapabilityRegistry, env: NodeJS.ProcessEnv = process.env): PlanningServices {
  const config = modelRoleConfigFromEnv(env);
  return { registry, model: config ? new OpenAiModelRole(config) : null };
}

export interface PlanIntentionOptions {
  /** The revision to plan; it must be the next one (default: one after the latest plan, or 1). */
  revision?: number;
  /** Strategies that failed in earlier revisions; by default those the intention's reconsiderations recorded. */
  failedStrategies?: readonly string[];
  /** Caps for the plan; invocations default to 20. */
  budget?: Budget;
}

export type PlanIntentionResult =
  | {
      status: 'planned';
      plan: PlanWithSteps;
      strategy: StrategyName;
      alternatives: Alternative[];
      considered: Considered[];
      notes: string[];
      llmCallId: string | null;
    }
  /** The model's proposal failed validation: stored as a draft with its errors, never run. */
  | { status: 'draft'; plan: PlanWithSteps; errors: ValidationIssue[]; considered: Considered[]; llmCallId: string }
  /** No strategy applies: the intention was abandoned with reason no_possible_plan. */
  | { status: 'no_possible_plan'; intention: IntentionRecord; fresh: boolean; considered: Considered[] }
  /** The model role was asked and gave nothing usable; the call is recorded, the intention left as it was. */
  | {
      status: 'model_failed';
      outcome: Exclude<LlmCallOutcome, 'answered'>;
      message: string;
      /** True for timeouts, an unreachable server, HTTP 429 and 5xx: asking again later may work. */
      retryable: boolean;
      llmCallId: string;
      considered: Considered[];
    }
  /** Nothing was planned and nothing changed. */
  | { status: 'refused'; code: string; message: string };

export { SUPERSEDABLE_PLAN_STATUSES };

class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function refused(code: string, message: string): PlanIntentionResult {
  return { status: 'refused', code, message };
}

function toPrior(plan: PlanWithSteps): PriorRevision {
  return {
    revision: plan.revision,
    strategy: plan.strategy,
    status: plan.status,
    statusReason: plan.statusReason,
    steps: plan.steps.map((s) => ({
      key: s.key,
      title: s.title,
      kind: s.kind,
      capability: s.capability,
      target: s.target,
      status: s.status,
      error: s.error,
      statusReason: s.statusReason,
      observation: s.observation,
    })),
  };
}

function isRetryable(reply: Pick<ModelReply, 'outcome' | 'statusCode'>): boolean {
  if (reply.outcome === 'timeout' || reply.outcome === 'unreachable') return true;
  return reply.outcome === 'http_error' && reply.statusCode !== null && (reply.statusCode === 429 || reply.statusCode >= 500);
}

interface Context {
  store: Store;
  registry: CapabilityRegistry;
  intention: IntentionRecord;
  previous: PlanRecord | null;
  revision: number;
  considered: Considered[];
}

export async function planIntention(store: Store, services: PlanningServices, intentionId: string, options: PlanIntentionOptions = {}): Promise<PlanIntentionResult> {
  const intention = await store.intentions.get(intentionId);
  if (!intention) return refused('unknown_intention', `no intention with id ${intentionId}`);
  if (intention.status !== 'active') {
    return refused('intention_not_active', `the intention is ${intention.status}${intention.reason ? ` (${intention.reason})` : ''}; only an active intention is planned`);
  }
  const mind = await store.minds.get(intention.mindId);
  if (!mind || !mayAdvance(mind)) return refused('mind_disabled', `mind ${mind?.name ?? intention.mindId} is disabled: it is not advanced`);

  const earlier = await store.plans.listByIntention(intention.id);
  const previous = earlier.at(-1) ?? null;
  const revision = (previous?.revision ?? 0) + 1;
  if (options.revision !== undefined && options.revision !== revision) {
    return refused('stale_revision', `the next revision of this intention is ${revision}, not ${options.revision}`);
  }
  if (previous && !SUPERSEDABLE_PLAN_STATUSES.includes(previous.status)) {
    const closed = CLOSED_PLAN_STATUSES.includes(previous.status);
    return refused(
      closed ? 'plan_closed' : 'plan_in_progress',
      closed
        ? `revision ${previous.revision} is ${previous.status}; a new revision replaces only a plan that failed or has not started`
        : `revision ${previous.revision} is ${previous.status}; it must end or be marked for replanning before a new revision`,
    );
  }

  const history = (await Promise.all(earlier.map((p) => store.plans.get(p.id)))).flatMap((p) => (p ? [toPrior(p)] : []));
  const failedStrategies = options.failedStrategies ? [...options.failedStrategies] : await failedStrategiesOf(store, intention.id);
  const belief = intention.beliefId ? await store.beliefs.get(intention.beliefId) : undefined;
  const request: PlanRequest = {
    intention: {
      objective: intention.objective,
      means: intention.means,
      requireApproval: intention.requireApproval,
      belief: belief ? { id: belief.id, statement: belief.statement } : null,
    },
    policy: await loadPolicyView(store, services.registry, mind.id),
    failedStrategies,
    history,
    modelConfigured: Boolean(services.model),
    spentWrites: await spentWritesOf(store, intention.id, services.registry),
    ...(options.budget ? { budget: options.budget } : {}),
  };

  const planner = new Planner(services.registry);
  const outcome = planner.plan(request);
  const ctx: Context = { store, registry: services.registry, intention, previous, revision, considered: outcome.considered };
  switch (outcome.kind) {
    case 'none':
      return noPossiblePlan(ctx, outcome.reason);
    case 'plan':
      return storePlan(ctx, {
        draft: outcome.draft,
        validation: outcome.validation,
        origin: revision === 1 ? 'template' : 'replan',
        strategy: outcome.strategy,
        alternatives: outcome.alternatives,
        notes: outcome.notes,
        llmCall: null,
      });
    case 'ask_model':
      return askModel(ctx, planner, request, services);
  }
}

async function askModel(ctx: Context, planner: Planner, request: PlanRequest, services: PlanningServices): Promise<PlanIntentionResult> {
  const { store, intention } = ctx;
  const model = services.model!;
  const messages = buildModelMessages(request, services.registry);
  let reply: ModelReply;
  try {
    reply = await model.complete(messages);
  } catch (error) {
    // A model role is not supposed to throw; if one does, it is still a recorded failure.
    const why = error instanceof Error ? error.message : String(error);
    reply = { outcome: 'unreachable', content: null, message: `the model role failed: ${why}`, statusCode: null, finishReason: '', promptTokens: 0, completionTokens: 0, latencyMs: 0 };
  }

  let outcome: LlmCallOutcome = reply.outcome;
  // The model server's words may echo the request, key included: credentials are masked before they are
  // stored or returned (its address stays: it is the operator's own server).
  let message = maskCredentials(reply.message);
  const answer = reply.outcome === 'answered' ? planner.fromModelAnswer(request, reply.content ?? '', reply.promptTokens + reply.completionTokens) : null;
  if (answer && answer.kind !== 'proposal') {
    outcome = answer.kind;
    message = answer.message;
  }
  // The message quotes the server (a refusal, prose instead of a plan): it is stored and told as
  // text both stores take.
  message = storableText(message);
  const content = reply.content;
  const call = await store.llmCalls.record({
    mindId: intention.mindId,
    intentionId: intention.id,
    role: 'plan',
    model: model.model,
    baseUrl: model.baseUrl,
    outcome,
    statusCode: reply.statusCode,
    // The model server's words, stored as text both stores take (PostgreSQL refuses a NUL).
    finishReason: storableText(reply.finishReason.slice(0, MAX_FINISH_REASON_CHARS)),
    promptTokens: reply.promptTokens,
    completionTokens: reply.completionTokens,
    latencyMs: reply.latencyMs,
    error: message,
    request: { messages: messages as unknown as JsonObject[] },
    // Stored as text both stores take: control characters other than whitespace become U+FFFD.
    response: content === null ? null : storableText(content.slice(0, MAX_RECORDED_RESPONSE_CHARS)),
  });

  if (!answer || answer.kind !== 'proposal') {
    const failure = outcome as Exclude<LlmCallOutcome, 'answered'>;
    await store.events.append({
      type: 'plan_rejected',
      mindId: intention.mindId,
      intentionId: intention.id,
      data: { strategy: 'model', revision: ctx.revision, llm_call: call.id, outcome: failure, message },
    });
    return {
      status: 'model_failed',
      outcome: failure,
      message,
      retryable: isRetryable({ outcome: failure, statusCode: reply.statusCode }),
      llmCallId: call.id,
      considered: ctx.considered,
    };
  }
  return storePlan(ctx, {
    draft: answer.draft,
    validation: answer.validation,
    origin: 'model',
    strategy: 'model',
    alternatives: answer.alternatives,
    notes: [],
    llmCall: call.id,
  });
}

interface Planned {
  draft: PlanDraft;
  validation: ValidationResult;
  origin: PlanOrigin;
  strategy: StrategyName;
  alternatives: Alternative[];
  notes: string[];
  llmCall: string | null;
}

async function storePlan(ctx: Context, planned: Planned): Promise<PlanIntentionResult> {
  const { store, intention, previous } = ctx;
  const { draft } = planned;
  // A model's proposal passes the gate a submitted plan does: an assumption that names a belief
  // must find the mind holding it at least as firmly as it says, now, or the plan stays a draft.
  // The strategies' own plans are not held to it: they assume the intention's supporting belief,
  // which a refuted restart weakens, and that must not stop the diagnosis that follows.
  const unheld = planned.origin === 'model' ? checkAssumptions(draft, await heldBeliefs(store, intention.mindId, assumedBeliefIds(draft))) : [];
  const validation: ValidationResult = unheld.length === 0 ? planned.validation : { ...planned.validation, valid: false, errors: [...planned.validation.errors, ...unheld] };
  try {
    return await store.transaction(async (tx): Promise<PlanIntentionResult> => {
      if (!(await tx.intentions.transition(intention.id, 'active', 'active', ''))) {
        throw new Refusal('intention_not_active', 'the intention stopped being active while it was planned');
      }
      const latest = (await tx.plans.listByIntention(intention.id)).at(-1) ?? null;
      if ((latest?.id ?? null) !== (previous?.id ?? null)) {
        throw new Refusal('planned_concurrently', `revision ${latest?.revision ?? '?'} was stored by another planner meanwhile`);
      }
      const plan = await storeRevision(tx, {
        registry: ctx.registry,
        intention,
        latest,
        origin: planned.origin,
        strategy: planned.strategy,
        draft,
        validation,
        // A plan Praxis makes is authored by whoever formed the intention (or the plan it replaces).
        authoredBy: previous?.authoredBy || intention.authoredBy,
        llmCall: planned.llmCall,
        created: {
          alternatives: planned.alternatives.map((a) => ({ strategy: a.strategy, score: a.score, selected: a.selected })),
          considered: ctx.considered as unknown as JsonObject[],
          notes: planned.notes,
        },
      });
      // The stored validation: storeRevision may have found the plan repeating a write that did not work.
      if (!plan.validation.valid) return { status: 'draft', plan, errors: plan.validation.errors, considered: ctx.considered, llmCallId: planned.llmCall ?? '' };
      return {
        status: 'planned',
        plan,
        strategy: planned.strategy,
        alternatives: planned.alternatives,
        considered: ctx.considered,
        notes: planned.notes,
        llmCallId: planned.llmCall,
      };
    });
  } catch (error) {
    if (error instanceof Refusal || error instanceof RevisionRefused) return refused(error.code, error.message);
    throw error;
  }
}

async function noPossiblePlan(ctx: Context, reason: string): Promise<PlanIntentionResult> {
  const { store, intention, previous } = ctx;
  const fresh = previous === null;
  return store.transaction(async (tx): Promise<PlanIntentionResult> => {
    const abandoned = await abandonIntentionIn(tx, intention.id, 'no_possible_plan', {
      fresh,
      revision: ctx.revision,
      explanation: reason,
      considered: ctx.considered as unknown as JsonObject[],
    });
    if (!abandoned) return refused('intention_not_active', 'the intention stopped being active while it was planned');
    if (previous) {
      const where = { mindId: intention.mindId, intentionId: intention.id, planId: previous.id };
      if (previous.status === 'replanning') {
        const failed = await tx.plans.transition(previous.id, 'replanning', 'failed', { statusReason: 'no possible plan for a new revision' });
        if (failed) await tx.events.append({ type: 'plan_failed', ...where, data: { reason: 'no_possible_plan' } });
      } else if (['draft', 'validated', 'blocked'].includes(previous.status)) {
        const ended = await tx.plans.transition(previous.id, ['draft', 'validated', 'blocked'], 'abandoned', { statusReason: 'the intention was abandoned: no possible plan' });
        if (ended) await tx.events.append({ type: 'plan_abandoned', ...where, data: { reason: 'no_possible_plan' } });
      }
    }
    return { status: 'no_possible_plan', intention: abandoned, fresh, considered: ctx.considered };
  });
}

/** A finish reason is a word (`stop`, `length`); a server that sends more is cut here. */
const MAX_FINISH_REASON_CHARS = 64;

/** `text` with every control character but tab, newline and carriage return replaced by U+FFFD. */
function storableText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd');
}
