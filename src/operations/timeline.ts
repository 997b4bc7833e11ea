// Timelines: the event log of one mind, intention or plan, oldest first, paged by sequence.
// Also the mind's memories and calibration, which are read the same way.

import type { Principal } from '../access/permissions.ts';
import { openingPlaceNow } from '../bus/log-walk.ts';
import { AUDIT_EVENT_TYPES } from '../core/vocabulary.ts';
import { calibrationOf, type Calibration } from '../mind/calibration.ts';
import type { EventQuery, EventRecord, ProceduralMemoryRecord, Store } from '../store/index.ts';
import { findIntention } from './minds.ts';
import { resolveMind } from './minds.ts';
import { invalid } from './errors.ts';
import { decodeCursor, pageOf, pageSize, type Page, type PageRequest } from './pages.ts';
import { findPlan } from './plans.ts';

export type TimelineSubject =
  | { mind: string }
  | { intention: string }
  /**
   * `withIntentionEvents`: also the events of the plan's intention that name no plan. The
   * capability service records policy decisions, tool calls and approvals against the
   * intention only, so this is the plan's story with every action in it.
   */
  | { plan: string; withIntentionEvents?: boolean | undefined };

/** Which end a timeline is read from: the oldest events first (the default), or the newest first. */
export type TimelineOrder = 'oldest' | 'newest';

/**
 * A page of a timeline ends at the last seq with nothing still in flight below it (settledSeq):
 * its cursor is the seq of its last event, and a next page read after a seq that a slower
 * transaction had taken below it would never show that event. Read newest first, a timeline
 * starts at that seq and pages towards older events (a cursor of its own kind: one from the
 * other order is refused), so a busy mind's latest events come first, as a console shows them.
 * A plan's story with its intention's events is read oldest first only.
 */
export async function timeline(store: Store, principal: Principal, subject: TimelineSubject, request: PageRequest & { order?: TimelineOrder | undefined }): Promise<Page<EventRecord>> {
  const limit = pageSize(request);
  const newest = request.order === 'newest';
  const cursorKind = newest ? 'before' : 'seq';
  const cursorSeq = request.cursor === undefined ? undefined : decodeCursor(cursorKind, request.cursor);
  let filter: { mindId: string } | { intentionId: string } | { planId: string };
  if ('mind' in subject) filter = { mindId: (await resolveMind(store, principal, subject.mind)).id };
  else if ('intention' in subject) filter = { intentionId: (await findIntention(store, principal, subject.intention)).id };
  else {
    const plan = await findPlan(store, principal, subject.plan);
    if (subject.withIntentionEvents) {
      if (newest) throw invalid('invalid_value', 'order', "a plan's story with its intention's events is read oldest first");
      const rows = await planStory(store, plan.id, plan.intentionId, cursorSeq ?? 0, await settledSeq(store), limit + 1);
      return pageOf(rows, limit, (e) => String(e.seq), 'seq');
    }
    filter = { planId: plan.id };
  }
  const range = newest ? { newestFirst: true, ...(cursorSeq !== undefined ? { beforeSeq: cursorSeq } : {}) } : cursorSeq !== undefined ? { afterSeq: cursorSeq } : {};
  const rows = await store.events.list({ ...filter, ...range, throughSeq: await settledSeq(store), limit: limit + 1 });
  return pageOf(rows, limit, (e) => String(e.seq), cursorKind);
}

/**
 * The last seq a page may hand out now: on PostgreSQL seqs are taken at insert and seen at
 * commit, so the log can show seq 11 while 10 is still in flight; a page stops before such a seq
 * until it commits or its grace runs out (openingPlace's rule, src/bus/log-horizon.ts). A page
 * cut there has no next cursor, as at the end of the log: asking again with the same cursor
 * shows what followed.
 */
async function settledSeq(store: Store): Promise<number> {
  return (await openingPlaceNow(store)).after;
}

/**
 * The audit trail: policy changes, tokens issued and revoked, authors named and approval
 * requests that failed their digest, across minds (tokens of operators and admins belong to no
 * mind), oldest first, paged as timelines are. An agent sees those of its own mind only.
 */
export async function auditTrail(store: Store, principal: Principal, request: PageRequest): Promise<Page<EventRecord>> {
  const limit = pageSize(request);
  const afterSeq = request.cursor === undefined ? undefined : decodeCursor('seq', request.cursor);
  const rows = await store.events.list({
    types: AUDIT_EVENT_TYPES,
    ...(principal.mindId !== null ? { mindId: principal.mindId } : {}),
    ...(afterSeq !== undefined ? { afterSeq } : {}),
    throughSeq: await settledSeq(store),
    limit: limit + 1,
  });
  return pageOf(rows, limit, (e) => String(e.seq), 'seq');
}

/** Events read per query while walking to the newest. */
const TAIL_PAGE = 500;

/**
 * The newest `limit` events of a mind, an intention or a plan (its own events only), or of the
 * audit trail, oldest of them first: the tail a terminal shows, where the API pages from the start.
 */
export async function latestEvents(store: Store, principal: Principal, subject: TimelineSubject | { audit: true }, limit: number): Promise<EventRecord[]> {
  let query: EventQuery;
  if ('audit' in subject) query = { types: AUDIT_EVENT_TYPES, ...(principal.mindId !== null ? { mindId: principal.mindId } : {}) };
  else if ('mind' in subject) query = { mindId: (await resolveMind(store, principal, subject.mind)).id };
  else if ('intention' in subject) query = { intentionId: (await findIntention(store, principal, subject.intention, 'intention')).id };
  else query = { planId: (await findPlan(store, principal, subject.plan, 'plan')).id };
  const kept: EventRecord[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await store.events.list({ ...query, ...(afterSeq !== undefined ? { afterSeq } : {}), limit: TAIL_PAGE });
    kept.push(...page);
    if (kept.length > limit) kept.splice(0, kept.length - limit);
    if (page.length < TAIL_PAGE) return kept;
    afterSeq = page[page.length - 1]!.seq;
  }
}

/** Events read per query while picking a plan's events out of its intention's. */
const STORY_PAGE = 200;

async function planStory(store: Store, planId: string, intentionId: string, afterSeq: number, throughSeq: number, wanted: number): Promise<EventRecord[]> {
  const found: EventRecord[] = [];
  let cursor = afterSeq;
  for (;;) {
    const page = await store.events.list({ intentionId, afterSeq: cursor, throughSeq, limit: STORY_PAGE });
    for (const event of page) {
      if (event.planId === planId || event.planId === null) found.push(event);
      if (found.length === wanted) return found;
    }
    if (page.length < STORY_PAGE) return found;
    cursor = page.at(-1)!.seq;
  }
}

export async function proceduralMemories(store: Store, principal: Principal, mindRef: string, request: PageRequest): Promise<Page<ProceduralMemoryRecord>> {
  const limit = pageSize(request);
  const beforeId = request.cursor === undefined ? undefined : decodeCursor('id', request.cursor);
  const mind = await resolveMind(store, principal, mindRef);
  const rows = await store.proceduralMemories.listPage(mind.id, { ...(beforeId !== undefined ? { beforeId } : {}), limit: limit + 1 });
  return pageOf(rows, limit, (m) => m.id, 'id');
}

export async function mindCalibration(store: Store, principal: Principal, mindRef: string): Promise<Calibration> {
  const mind = await resolveMind(store, principal, mindRef);
  return calibrationOf(store, mind.id);
}
