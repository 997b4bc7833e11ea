// Plans, newest first: status, mind, intention, revision, age. Status and mind filter on the
// server (and live in the URL); the text filter narrows the loaded rows by objective, and says so
// while more pages remain.

import { useEffect, useRef, useState } from 'react';
import type { ApiClient } from '../api/client.ts';
import { PLAN_STATUSES, type MindRecord, type Page, type PlanSummary } from '../api/types.ts';
import { Age, ErrorBox, Loading, StatusBadge, shortId } from '../components/common.tsx';
import { useLiveResource } from '../live.tsx';
import { summaryStatus } from '../outcome.ts';
import { href, navigate } from '../router.ts';
import { useWaitingWork, waitingStatusOf } from '../waiting.tsx';

export function PlansList({ query }: { query: URLSearchParams }) {
  const status = query.get('status') ?? '';
  const mind = query.get('mind') ?? '';
  const intention = query.get('intention') ?? '';
  const [text, setText] = useState('');
  // How many pages "Load more" has shown, for this filter only: another filter starts at one.
  const filterKey = `${status}:${mind}:${intention}`;
  const [more, setMore] = useState({ filterKey, pages: 1 });
  const pages = more.filterKey === filterKey ? more.pages : 1;

  const minds = useLiveResource(
    'minds',
    (api) => listMinds(api),
    () => false,
  );
  const work = useWaitingWork();
  // Keyed by the filter alone: "Load more" reloads the same resource with one page more, so the
  // rows already shown stay (and the page keeps its scroll) until the longer list replaces them.
  const plans = useLiveResource(
    `plans:${filterKey}`,
    (api) => loadPages(api, { status, mind, intention }, pages),
    (event) => event.planId !== null || event.type.startsWith('plan_'),
  );
  const reload = useRef(plans.reload);
  reload.current = plans.reload;
  useEffect(() => {
    if (more.pages > 1) reload.current();
  }, [more]);

  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(query);
    if (value) next.set(key, value);
    else next.delete(key);
    navigate(href.plans(Object.fromEntries(next)), true);
  };

  const needle = text.trim().toLowerCase();
  const rows = (plans.data?.items ?? []).filter((plan) => !needle || plan.objective.toLowerCase().includes(needle));
  const chosenMind = minds.data?.find((m) => m.id === mind || m.name === mind)?.id ?? mind;
  const mindName = (id: string, fallback?: string) => fallback ?? minds.data?.find((m) => m.id === id)?.name ?? shortId(id);

  return (
    <section aria-labelledby="plans-title">
      <h1 id="plans-title">Plans</h1>
      <form className="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(event) => setFilter('status', event.target.value)} data-testid="filter-status">
            <option value="">any</option>
            {PLAN_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Mind
          {/* The options are ids and the address may name the mind by name: choose the mind it names. */}
          <select value={chosenMind} onChange={(event) => setFilter('mind', event.target.value)} data-testid="filter-mind">
            <option value="">any</option>
            {(minds.data ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label className="grow">
          Objective contains
          <input type="search" value={text} onChange={(event) => setText(event.target.value)} placeholder="e.g. atlas-worker" />
        </label>
        {intention && (
          <span className="chip">
            intention {shortId(intention)}{' '}
            <button type="button" className="link-button" onClick={() => setFilter('intention', '')}>
              clear
            </button>
          </span>
        )}
      </form>
      <ErrorBox error={minds.error} title="Could not load minds" />
      <ErrorBox error={plans.error} title="Could not load plans" />
      {!plans.data && plans.loading && <Loading what="plans" />}
      {plans.data && (
        <>
          <table className="table" data-testid="plans-table">
            <thead>
              <tr>
                <th scope="col">Objective</th>
                <th scope="col">Status</th>
                <th scope="col">Mind</th>
                <th scope="col">Intention</th>
                <th scope="col">Rev.</th>
                <th scope="col">Origin / strategy</th>
                <th scope="col">Created</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((plan) => (
                <tr key={plan.id} data-testid="plan-row" data-plan-id={plan.id}>
                  <td>
                    <a href={href.plan(plan.id)}>{plan.objective || <span className="muted">(no objective)</span>}</a>
                  </td>
                  <td>
                    <StatusBadge {...(waitingStatusOf(plan, work) ?? summaryStatus(plan))} />
                  </td>
                  <td>
                    <a href={href.mindTimeline(plan.mindId)} title="Mind timeline">
                      {mindName(plan.mindId, plan.mindName)}
                    </a>
                  </td>
                  <td>
                    <a href={href.intentionTimeline(plan.intentionId)} title="Intention timeline">
                      {shortId(plan.intentionId)}
                    </a>
                  </td>
                  <td className="num">{plan.revision}</td>
                  <td>
                    {plan.origin}
                    {plan.strategy ? ` / ${plan.strategy}` : ''}
                  </td>
                  <td>
                    <Age at={plan.createdAt} />
                  </td>
                  <td>
                    <Age at={plan.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <FilterNote shown={rows.length} loaded={plans.data.items.length} narrowed={needle !== ''} more={plans.data.next_cursor !== null} />
          {plans.data.next_cursor && (
            <button type="button" onClick={() => setMore({ filterKey, pages: pages + 1 })} disabled={plans.loading} data-testid="load-more">
              Load more
            </button>
          )}
        </>
      )}
    </section>
  );
}

/**
 * What the list says under the table. The objective box narrows only the rows loaded so far, so
 * while there are more pages it says so rather than "No plans match" over a match on the next.
 */
function FilterNote({ shown, loaded, narrowed, more }: { shown: number; loaded: number; narrowed: boolean; more: boolean }) {
  const loadedSoFar = `${loaded === 1 ? 'the 1 plan' : `the ${loaded} plans`} loaded so far`;
  let note: string | null = null;
  if (narrowed && more) note = shown === 0 ? `None of ${loadedSoFar} match; load more to search further.` : `Searched only ${loadedSoFar}; load more to search further.`;
  else if (shown === 0) note = 'No plans match.';
  return note ? (
    <p className="muted" data-testid="filter-note">
      {note}
    </p>
  ) : null;
}

export async function listMinds(api: ApiClient): Promise<MindRecord[]> {
  const body = await api.get<Page<MindRecord> | MindRecord[]>('/minds', { limit: 200 });
  return Array.isArray(body) ? body : body.items;
}

/** Loads the first `count` pages again, so a live refresh keeps what "load more" showed. */
async function loadPages(api: ApiClient, filter: { status: string; mind: string; intention: string }, count: number): Promise<Page<PlanSummary>> {
  const items: PlanSummary[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < count; page++) {
    const body: Page<PlanSummary> = await api.get<Page<PlanSummary>>('/plans', { ...filter, limit: 50, cursor });
    items.push(...body.items);
    cursor = body.next_cursor;
    if (!cursor) break;
  }
  return { items, next_cursor: cursor };
}
