// An event timeline (a mind's, an intention's or a plan's), newest first, each event linked to
// the plan, step and intention it concerns. It reloads when a concerning event arrives.

import type { EventRecord, Json, Page } from '../api/types.ts';
import { useLiveResource } from '../live.tsx';
import { href } from '../router.ts';
import { Age, ErrorBox, Loading, shortId } from './common.tsx';

/** The API pages timelines oldest first; the console reads up to this many pages and shows them newest first. */
const MAX_PAGES = 10;
const PAGE_SIZE = 200;

export function Timeline({ path, concerns }: { path: string; concerns(event: EventRecord): boolean }) {
  const events = useLiveResource(
    `timeline:${path}`,
    async (api) => {
      const items: EventRecord[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const body: Page<EventRecord> = await api.get<Page<EventRecord>>(path, { limit: PAGE_SIZE, cursor });
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
                <span className="event-type">{event.type.replace(/_/g, ' ')}</span>
                <Age at={event.createdAt} />
                {event.planId && (
                  <a href={href.plan(event.planId)} className="small">
                    plan {shortId(event.planId)}
                  </a>
                )}
                {event.intentionId && (
                  <a href={href.intentionTimeline(event.intentionId)} className="small">
                    intention {shortId(event.intentionId)}
                  </a>
                )}
              </div>
              <EventData data={event.data ?? event.payload ?? {}} />
            </li>
          ))}
        </ol>
      )}
      {events.data.next_cursor && (
        <p className="muted small">Showing the first {MAX_PAGES * PAGE_SIZE} events of this timeline.</p>
      )}
    </>
  );
}

function newestFirst(a: EventRecord, b: EventRecord): number {
  if (a.seq !== undefined && b.seq !== undefined) return b.seq - a.seq;
  return Date.parse(b.createdAt) - Date.parse(a.createdAt);
}

function EventData({ data }: { data: { [key: string]: Json } }) {
  const entries = Object.entries(data).filter(([, value]) => value !== null && value !== '');
  if (entries.length === 0) return null;
  return (
    <dl className="event-data">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key.replace(/_/g, ' ')}</dt>
          <dd>{typeof value === 'object' ? <code>{JSON.stringify(value)}</code> : <span>{String(value)}</span>}</dd>
        </div>
      ))}
    </dl>
  );
}
