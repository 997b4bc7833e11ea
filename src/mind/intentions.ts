// Intentions: forming them, and every change of status. Each change is one conditional
// transition plus its event, written together; a transition that finds the intention already
// moved changes nothing and answers undefined.
//
// Subordinates: while a step waits for an approval or a grant, the intention it serves is
// blocked and a subordinate intention (with `parentId`) stands for the wait. Fulfilling the
// last open subordinate resumes the parent.

import type { Problem } from '../core/errors.ts';
import type { JsonObject } from '../core/plan.ts';
import type { EventType, IntentionReason, IntentionStatus } from '../core/vocabulary.ts';
import type { IntentionMeans, IntentionRecord, Repositories, Store } from '../store/index.ts';
import { suppressWantOf } from './wants.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export const MAX_OBJECTIVE_LENGTH = 2_000;
const CAPABILITY_NAME = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;

export interface IntentionInput {
  mindId: string;
  /** What to bring about. When omitted it is said from the means: "run <capability> on <target>". */
  objective?: string;
  /** A concrete action, when the intention names one. */
  means?: IntentionMeans | null;
  /** The belief that supports the intention. */
  beliefId?: string | null;
  /** Where it came from: `operator`, `api`, `mcp`, a want, ... */
  origin: string;
  /** Every writing action serving this intention asks an operator first. */
  requireApproval?: boolean;
  /** The operator or agent forming it through a surface: never the approver of what serves it. */
  authoredBy?: string;
}

export type Formed = { ok: true; intention: IntentionRecord } | { ok: false; problems: Problem[] };

/** Why the intention input is unusable; empty when it is fine. Checks shape only, not the registry. */
export function checkIntentionInput(input: IntentionInput): Problem[] {
  const problems: Problem[] = [];
  const problem = (code: ErrorCode, path: string, message: string) => problems.push({ code, path, message });
  const objective = input.objective?.trim() ?? '';
  if (objective.length > MAX_OBJECTIVE_LENGTH) {
    problem('invalid_objective', 'objective', `the objective is longer than ${MAX_OBJECTIVE_LENGTH} characters`);
  }
  const means = input.means ?? null;
  if (means !== null) {
    if (typeof means !== 'object' || Array.isArray(means)) {
      problem('invalid_means', 'means', 'means must be an object with capability, target and params');
    } else {
      if (typeof means.capability !== 'string' || !CAPABILITY_NAME.test(means.capability)) {
        problem('invalid_means', 'means.capability', 'means must name a capability, e.g. service.restart');
      }
      if (typeof means.target !== 'string') problem('invalid_means', 'means.target', 'the target must be text (it may be empty)');
      if (typeof means.params !== 'object' || means.params === null || Array.isArray(means.params)) {
        problem('invalid_means', 'means.params', 'params must be an object');
      }
    }
  }
  if (objective === '' && means === null) {
    problem('missing_objective', 'objective', 'an intention needs an objective or a means');
  }
  if (typeof input.origin !== 'string' || input.origin.trim() === '') {
    problem('missing_origin', 'origin', 'an intention must say where it came from');
  }
  return problems;
}

/** The objective an intention formed from a means alone states. */
export function objectiveOfMeans(means: IntentionMeans): string {
  return means.target ? `run ${means.capability} on ${means.target}` : `run ${means.capability}`;
}

/** Forms an active intention for a mind; bad input is answered with problems and nothing is stored. */
export async function formIntention(store: Store, input: IntentionInput): Promise<Formed> {
  const problems = checkIntentionInput(input);
  if (problems.length > 0) return { ok: false, problems };
  const mind = await store.minds.get(input.mindId);
  if (!mind) return { ok: false, problems: [{ code: 'unknown_mind', path: 'mindId', message: `no mind with id ${input.mindId}` }] };
  if (input.beliefId) {
    const belief = await store.beliefs.get(input.beliefId);
    if (!belief || belief.mindId !== mind.id) {
      return { ok: false, problems: [{ code: 'unknown_belief', path: 'beliefId', message: `mind ${mind.name} holds no belief ${input.beliefId}` }] };
    }
  }
  const means = input.means ?? null;
  const objective = input.objective?.trim() || objectiveOfMeans(means!);
  const intention = await store.transaction(async (tx) => {
    const formed = await tx.intentions.create({
      mindId: mind.id,
      objective,
      means,
      beliefId: input.beliefId ?? null,
      origin: input.origin,
      requireApproval: input.requireApproval ?? false,
      authoredBy: input.authoredBy ?? '',
    });
    await tx.events.append({
      type: 'intention_formed',
      mindId: mind.id,
      intentionId: formed.id,
      data: { objective, origin: input.origin, means: (means as unknown as JsonObject) ?? null, require_approval: formed.requireApproval },
    });
    return formed;
  });
  return { ok: true, intention };
}

export type WaitReason = Extract<IntentionReason, 'awaiting_approval' | 'awaiting_grant' | 'awaiting_subordinate'>;

export interface SubordinateInput {
  objective: string;
  reason: WaitReason;
  origin?: string;
}

/**
 * Blocks `parentId` (from active, or again from blocked) with the reason and forms a subordinate
 * intention that stands for the wait. Undefined when the parent is neither active nor blocked.
 */
export async function formSubordinate(store: Store, parentId: string, input: SubordinateInput): Promise<{ parent: IntentionRecord; subordinate: IntentionRecord } | undefined> {
  return store.transaction(async (tx) => {
    const parent = await tx.intentions.transition(parentId, ['active', 'blocked'], 'blocked', input.reason);
    if (!parent) return undefined;
    const subordinate = await tx.intentions.create({
      mindId: parent.mindId,
      parentId: parent.id,
      objective: input.objective,
      origin: input.origin ?? 'subordinate',
      beliefId: null,
      requireApproval: false,
      // What stands for a wait of the parent is the parent's author's work too.
      authoredBy: parent.authoredBy,
    });
    await tx.events.append({
      type: 'intention_formed',
      mindId: parent.mindId,
      intentionId: subordinate.id,
      data: { objective: subordinate.objective, origin: subordinate.origin, parent_id: parent.id },
    });
    await tx.events.append({
      type: 'intention_blocked',
      mindId: parent.mindId,
      intentionId: parent.id,
      data: { reason: input.reason, subordinate_id: subordinate.id },
    });
    return { parent, subordinate };
  });
}

async function move(
  repos: Repositories,
  id: string,
  from: readonly IntentionStatus[],
  to: IntentionStatus,
  reason: IntentionReason,
  event: EventType,
  data: JsonObject = {},
): Promise<IntentionRecord | undefined> {
  const moved = await repos.intentions.transition(id, from, to, reason);
  if (moved) await repos.events.append({ type: event, mindId: moved.mindId, intentionId: moved.id, data: { reason, ...data } });
  return moved;
}

/** active (or blocked already, for another reason) → blocked, with `data` on its event (the plan and step that blocked it). */
export function blockIntention(store: Store, id: string, reason: IntentionReason, data: JsonObject = {}): Promise<IntentionRecord | undefined> {
  return store.transaction((tx) => move(tx, id, ['active', 'blocked'], 'blocked', reason, 'intention_blocked', data));
}

/** active or blocked → suspended (a budget ran out, inherited work was quiesced). */
export function suspendIntention(store: Store, id: string, reason: IntentionReason): Promise<IntentionRecord | undefined> {
  return store.transaction((tx) => move(tx, id, ['active', 'blocked'], 'suspended', reason, 'intention_suspended'));
}

/** blocked or suspended → active. */
export function resumeIntention(store: Store, id: string): Promise<IntentionRecord | undefined> {
  return store.transaction((tx) => move(tx, id, ['blocked', 'suspended'], 'active', '', 'intention_resumed'));
}

export interface Fulfilment {
  intention: IntentionRecord;
  /** The parent, when fulfilling this subordinate resumed it. */
  resumedParent: IntentionRecord | null;
}

/**
 * Fulfils an open intention. When it is a subordinate and its parent waits for nothing else,
 * the parent is resumed in a second step: it runs after the fulfilment commits, so of two
 * subordinates fulfilled at once the later one always sees the other closed.
 */
export async function fulfilIntention(store: Store, id: string, reason: Extract<IntentionReason, 'completed' | 'precondition_met'> = 'completed'): Promise<Fulfilment | undefined> {
  const intention = await store.transaction((tx) => move(tx, id, ['active', 'blocked', 'suspended'], 'fulfilled', reason, 'intention_fulfilled'));
  if (!intention) return undefined;
  const resumedParent = intention.parentId ? await resumeParent(store, intention.parentId, intention.id) : null;
  return { intention, resumedParent };
}

/**
 * Fulfils several open intentions in one statement and one insert of their events, on the store
 * given (the executor closing a batch of plans, in its unit of work); then resumes each parent
 * a fulfilled subordinate leaves waiting for nothing. Returns those it fulfilled.
 */
export async function fulfilIntentions(store: Store, ids: readonly string[], reason: Extract<IntentionReason, 'completed' | 'precondition_met'> = 'completed'): Promise<IntentionRecord[]> {
  if (ids.length === 0) return [];
  const fulfilled = await store.intentions.transitionMany(ids, ['active', 'blocked', 'suspended'], 'fulfilled', reason);
  await store.events.appendMany(fulfilled.map((i) => ({ type: 'intention_fulfilled', mindId: i.mindId, intentionId: i.id, data: { reason } })));
  for (const intention of fulfilled) if (intention.parentId) await resumeParent(store, intention.parentId, intention.id);
  return fulfilled;
}

/** Resumes a blocked parent if none of its subordinates is still open. */
export async function resumeParent(store: Store, parentId: string, subordinateId?: string): Promise<IntentionRecord | null> {
  return store.transaction(async (tx) => {
    const parent = await tx.intentions.resumeWhenSubordinatesClosed(parentId);
    if (!parent) return null;
    await tx.events.append({
      type: 'intention_resumed',
      mindId: parent.mindId,
      intentionId: parent.id,
      data: { reason: '', subordinate_id: subordinateId ?? null },
    });
    return parent;
  });
}

/**
 * Abandons an open intention with the reason, and with it every subordinate still open (they
 * only existed to serve it), in one transaction.
 */
export function abandonIntention(store: Store, id: string, reason: IntentionReason, data: JsonObject = {}): Promise<IntentionRecord | undefined> {
  return store.transaction((tx) => abandonIntentionIn(tx, id, reason, data));
}

/**
 * As abandonIntention, on the repositories given (a caller's transaction). A fresh intention (one
 * no plan was ever stored for) abandoned because nothing could plan it has its want suppressed.
 */
export async function abandonIntentionIn(repos: Repositories, id: string, reason: IntentionReason, data: JsonObject = {}): Promise<IntentionRecord | undefined> {
  const abandoned = await move(repos, id, ['active', 'blocked', 'suspended'], 'abandoned', reason, 'intention_abandoned', data);
  if (!abandoned) return undefined;
  if (reason === 'no_possible_plan' && (await repos.plans.listByIntention(id)).length === 0) await suppressWantOf(repos, abandoned, reason);
  for (const sub of await repos.intentions.listSubordinates(id)) {
    await move(repos, sub.id, ['active', 'blocked', 'suspended'], 'abandoned', 'cancelled', 'intention_abandoned', { parent_id: id });
  }
  return abandoned;
}
