// A caller's live view of the event log, for the surfaces that stream it (the API's
// Server-Sent Events). What the caller may see and where the feed starts are decided here, once,
// with the same rules as every other read; the surface only frames and sends what `next` hands it.
// A feed opened with a token lasts as long as the token holds, which `holds` reads again from
// the store each time, so a revocation by any daemon on the same store counts.
//
// A feed moves along the log only as far as no earlier seq can still be in flight
// (src/bus/log-walk.ts): on PostgreSQL two transactions commit their events in either order,
// and a feed that had moved past a seq not yet visible would never send that event.

import type { Principal } from '../access/permissions.ts';
import { principalHolds } from '../access/tokens.ts';
import type { OpeningPlace } from '../bus/log-horizon.ts';
import { LogWalk, openingPlaceNow, type LogView } from '../bus/log-walk.ts';
import { isId } from '../core/ids.ts';
import type { EventRecord, Store } from '../store/index.ts';
import { findIntention, mindFilter } from './minds.ts';
import { findPlan } from './plans.ts';

export interface EventFeedQuery {
  mind?: string | undefined;
  plan?: string | undefined;
  intention?: string | undefined;
}

export interface EventFeed {
  /** The events appended after the last one handed out, in log order, at most `limit`. */
  next(limit: number): Promise<EventRecord[]>;
  /** Whether the caller's token still holds (always true without a token). */
  holds(): Promise<boolean>;
  /** How long until the caller's token expires, by the store's clock; null when it never does. */
  msUntilExpiry(): number | null;
  /** Calls `listener` when an event that wakes executors commits in this process; returns an unsubscribe. */
  onCommitted(listener: () => void): () => void;
}

/**
 * Opens a feed of the events `who` may see, narrowed to a mind, plan or intention. It starts
 * after the event the caller saw last (`lastEventId`, as a reconnecting client sends it) or,
 * without one, with the events written after it opened (startOf). Refusals (an unknown or
 * unreachable mind, plan or intention) are thrown here, before anything is streamed.
 */
export async function openEventFeed(store: Store, who: Principal, query: EventFeedQuery, lastEventId?: string): Promise<EventFeed> {
  const filter: LogView = {};
  const mindId = await mindFilter(store, who, query.mind);
  if (mindId !== undefined) filter.mindId = mindId;
  if (query.plan !== undefined) filter.planId = (await findPlan(store, who, query.plan, 'plan')).id;
  if (query.intention !== undefined) filter.intentionId = (await findIntention(store, who, query.intention, 'intention')).id;
  const tokenId = who.tokenId;
  const expiresAt = tokenId === null ? null : ((await store.accessTokens.get(tokenId))?.expiresAt ?? null);
  const walk = new LogWalk(store, filter, await startOf(store, lastEventId));
  return {
    next: (limit) => walk.next(limit),
    holds: () => principalHolds(store, who),
    msUntilExpiry: () => (expiresAt === null ? null : Math.max(0, expiresAt.getTime() - store.clock.now().getTime())),
    onCommitted: (listener) => store.wakeups.on(() => listener()),
  };
}

/**
 * Where a feed starts: after the event the client saw last, or, for a new client, at the newest
 * event, less whatever may still be in flight below it (openingPlace): an event whose transaction
 * took its seq before the newest one was written, and commits after the feed opened, is sent.
 */
async function startOf(store: Store, lastEventId: string | undefined): Promise<number | OpeningPlace> {
  if (lastEventId && isId(lastEventId)) {
    const seen = await store.events.get(lastEventId);
    if (seen) return seen.seq;
  }
  return openingPlaceNow(store);
}
