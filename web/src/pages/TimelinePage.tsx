// Timelines per mind and per intention. Without a scope the page asks which mind to show.

import type { EventRecord } from '../api/types.ts';
import { ErrorBox, Loading } from '../components/common.tsx';
import { Timeline } from '../components/Timeline.tsx';
import { useLiveResource } from '../live.tsx';
import { href, navigate } from '../router.ts';
import { listMinds } from './PlansList.tsx';

export function TimelinePage({ scope, id }: { scope: 'mind' | 'intention' | 'none'; id: string | null }) {
  const minds = useLiveResource(
    'minds',
    (api) => listMinds(api),
    () => false,
  );
  const mind = scope === 'mind' ? minds.data?.find((m) => m.id === id || m.name === id) : undefined;

  const picker = (
    <label className="inline">
      Mind {/* The options are ids and the address may name the mind by name: choose the mind it found. */}
      <select value={mind?.id ?? ''} onChange={(event) => event.target.value && navigate(href.mindTimeline(event.target.value))} data-testid="timeline-mind">
        <option value="">choose…</option>
        {(minds.data ?? []).map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </select>
    </label>
  );

  if (scope === 'none' || !id) {
    return (
      <section aria-labelledby="timeline-title">
        <h1 id="timeline-title">Timeline</h1>
        <p>Choose a mind to follow its events as they happen, or open an intention's timeline from a plan.</p>
        {picker}
        <ErrorBox error={minds.error} title="Could not load minds" />
        {minds.loading && !minds.data && <Loading what="minds" />}
      </section>
    );
  }

  const path = scope === 'mind' ? `/minds/${encodeURIComponent(id)}/timeline` : `/intentions/${encodeURIComponent(id)}/timeline`;
  const concerns = scope === 'mind' ? (event: EventRecord) => event.mindId === id || (mind !== undefined && event.mindId === mind.id) : (event: EventRecord) => event.intentionId === id;

  return (
    <section aria-labelledby="timeline-title">
      <h1 id="timeline-title">{scope === 'mind' ? <>Timeline of mind {mind?.name ?? id}</> : <>Timeline of intention {id}</>}</h1>
      <div className="toolbar">
        {picker}
        {scope === 'intention' && <a href={href.plans({ intention: id })}>Plans for this intention</a>}
        {scope === 'mind' && <a href={href.plans({ mind: mind?.id ?? id })}>Plans of this mind</a>}
      </div>
      <Timeline path={path} concerns={concerns} />
    </section>
  );
}
