// An event timeline (a mind's, an intention's or a plan's), newest first, each event linked to
// the plan, step and intention it concerns. It reloads when a concerning event arrives.

import type { EventRecord, Json, Page } from '../api/types.ts';
import { useLiveResource } from '../live.tsx';
import { href } from '../router.ts';
import { Age, ErrorBox, Loading, RawJson, Value, shortId, words } from './common.tsx';

/** The console reads a timeline newest first (`order=newest`), up to this many pages: a busy mind's latest events. */
const MAX_PAGES = 10;
const PAGE_SIZE = 200;

export function Timeline({ path, concerns }: { path: string; concerns(event: EventRecord): boolean }) {
  const events = useLiveResource(
    `timeline:${path}`,
    async (api) => {
      const items: EventRecord[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const body: Page<EventRecord> = await api.get<Page<EventRecord>>(path, { limit: PAGE_SIZE, order: 'newest', cursor });
        items.push(...body.items);
        cursor = body.next_cursor;
        if (!cursor) break;
      }
      return { items, next_cursor: cursor };
    },
    concerns,
  );
  if (!events.data) {
    return (
      <>
        <ErrorBox error={events.error} title="Could not load the timeline" />
        {events.loading && <Loading what="the timeline" />}
      </>
    );
  }
  const items = [...events.data.items].sort(newestFirst);
  return (
    <>
      <ErrorBox error={events.error} title="Could not refresh the timeline" />
      {items.length === 0 ? (
        <p className="muted">No events yet.</p>
      ) : (
        <ol className="timeline" data-testid="timeline">
          {items.map((event) => (
            <li key={event.id} className={`event type-${event.type}`} data-testid="timeline-event" data-type={event.type}>
              <div className="event-head">
                <span className="event-type">{eventTitle(event)}</span>
                <Age at={event.createdAt} />
                {event.planId && (
                  <a href={href.plan(event.planId)} className="small" title={event.planId}>
                    plan {shortId(event.planId)}
                  </a>
                )}
                {event.intentionId && (
                  <a href={href.intentionTimeline(event.intentionId)} className="small" title={event.intentionId}>
                    intention {shortId(event.intentionId)}
                  </a>
                )}
              </div>
              <EventData data={event.data ?? event.payload ?? {}} />
            </li>
          ))}
        </ol>
      )}
      {events.data.next_cursor && <p className="muted small">Showing the newest {MAX_PAGES * PAGE_SIZE} events of this timeline.</p>}
    </>
  );
}

/** The event in words, with the step key when it names one: `plan step completed: P1`. */
function eventTitle(event: EventRecord): string {
  const data = event.data ?? event.payload ?? {};
  const key = typeof data.key === 'string' ? `: ${data.key}` : '';
  return `${event.type.replace(/_/g, ' ')}${key}`;
}

function newestFirst(a: EventRecord, b: EventRecord): number {
  if (a.seq !== undefined && b.seq !== undefined) return b.seq - a.seq;
  return Date.parse(b.createdAt) - Date.parse(a.createdAt);
}

/** Fields that say which process did something, not what happened: kept in the raw JSON. */
const MACHINERY = new Set(['executor', 'claimed_by', 'claimant', 'lease_until', 'leaseUntil', 'lease_expires_at', 'digest']);

function EventData({ data }: { data: { [key: string]: Json } }) {
  const entries = Object.entries(data).filter(([key, value]) => value !== null && value !== '' && !MACHINERY.has(key));
  if (entries.length === 0 && Object.keys(data).length === 0) return null;
  return (
    <div className="event-data">
      {entries.length > 0 && (
        <dl className="facts">
          {entries.map(([key, value]) => (
            <div key={key} className="fact">
              <dt>{words(key)}</dt>
              <dd>
                <Value value={value} depth={1} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      <RawJson value={data} label="Raw event" />
    </div>
  );
}
