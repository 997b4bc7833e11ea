// One plan: first what became of its intention (fulfilled, escalated with the note, waiting for
// the operator, abandoned and why), then the graph and the selected step, estimate against budget and actual use, what the plan
// assumes and what else was considered, validation findings, the revision chain, cancel, and the
// plan's timeline. Everything reloads when an event for this plan (or its intention) arrives.

import { useState, type FormEvent, type ReactNode } from 'react';
import {
  CLOSED_PLAN_STATUSES,
  RESOURCE_KEYS,
  type Alternative,
  type Assumption,
  type EventRecord,
  type IntentionDetail,
  type Issue,
  type Json,
  type PlanDetail,
  type PlanPause,
  type PlanSummary,
  type Resources,
  type StepView,
} from '../api/types.ts';
import { Age, ErrorBox, Facts, Loading, ShortId, StatusBadge, Time, shortId } from '../components/common.tsx';
import { PlanGraph } from '../components/PlanGraph.tsx';
import { StepDetail } from '../components/StepDetail.tsx';
import { Timeline } from '../components/Timeline.tsx';
import { useAction, useLive, useLiveResource } from '../live.tsx';
import { displayStatus, outcomeOf, reasonText, summaryStatus, type Outcome } from '../outcome.ts';
import { href, navigate } from '../router.ts';
import { listMinds } from './PlansList.tsx';

export function PlanPage({ id, selectedStep }: { id: string; selectedStep: string | null }) {
  const { me } = useLive();
  const minds = useLiveResource(
    'minds',
    (api) => listMinds(api),
    () => false,
  );
  const detail = useLiveResource(
    `plan:${id}`,
    (api) => api.get<PlanDetail>(`/plans/${encodeURIComponent(id)}`),
    (event, current) => concernsPlan(event, id, current),
  );
  const intentionId = detail.data?.plan.intentionId ?? null;
  // The intention with its plans' summaries: what became of it, and which revisions escalated.
  const intentionDetail = useLiveResource(
    `intention:${intentionId ?? ''}`,
    async (api) => (intentionId ? await api.get<IntentionDetail>(`/intentions/${encodeURIComponent(intentionId)}`) : null),
    (event) => event.intentionId !== null && event.intentionId === intentionId,
  );
  const intention = { ...intentionDetail, data: intentionDetail.data?.intention };

  if (!detail.data) {
    return (
      <section>
        <p>
          <a href={href.plans()}>← Plans</a>
        </p>
        <ErrorBox error={detail.error} title="Could not load the plan" />
        {detail.loading && <Loading what="the plan" />}
      </section>
    );
  }

  const { plan, steps, revisions = [] } = detail.data;
  const selected = steps.find((step) => step.key === selectedStep) ?? null;
  const select = (key: string) => navigate(href.plan(id, key === selectedStep ? undefined : key), true);
  const closed = CLOSED_PLAN_STATUSES.includes(plan.status);
  const shown = displayStatus(plan, steps);
  const latest = [...revisions].sort((a, b) => b.revision - a.revision)[0];

  return (
    <section aria-labelledby="plan-title" data-testid="plan-page" data-plan-id={plan.id} data-plan-status={plan.status} data-plan-paused={plan.pause ? 'true' : 'false'}>
      <p>
        <a href={href.plans()}>← Plans</a>
      </p>
      <header className="plan-head">
        <h1 id="plan-title">{plan.objective || '(no objective)'}</h1>
        <StatusBadge status={shown.status} label={shown.label} />
        {plan.pause && <StatusBadge status="paused" label="paused" />}
      </header>
      {plan.pause && <PausedNotice pause={plan.pause} />}
      <OutcomePanel
        outcome={outcomeOf(intention.data ?? null, plan, steps)}
        pending={intention.loading && !intention.data}
        planId={plan.id}
        latest={plan.status === 'superseded' && latest && latest.id !== plan.id ? latest : null}
      />
      <ErrorBox error={intention.error} title="Could not load the plan's intention" />
      <ErrorBox error={detail.error} title="Could not refresh the plan" />
      <Findings steps={steps} />
      <Facts
        items={[
          ['Revision', String(plan.revision)],
          ['Origin', plan.origin],
          ['Strategy', plan.strategy.replace(/_/g, ' ')],
          ['Mind', <a href={href.mindTimeline(plan.mindId)}>{plan.mindName ?? minds.data?.find((m) => m.id === plan.mindId)?.name ?? shortId(plan.mindId)}</a>],
          [
            'Intention',
            <>
              <a href={href.intentionTimeline(plan.intentionId)}>
                {intention.data ? `${intention.data.status.replace(/_/g, ' ')}${intention.data.reason ? `: ${reasonText(intention.data.reason)}` : ''}` : 'timeline'}
              </a>{' '}
              <ShortId id={plan.intentionId} label="intention id" />
            </>,
          ],
          ['Plan id', <ShortId id={plan.id} label="plan id" />],
          ['Created', <Time at={plan.createdAt} />],
          ['Updated', <Age at={plan.updatedAt} />],
          ['Closed', plan.closedAt && <Time at={plan.closedAt} />],
        ]}
      />

      <div className="plan-layout">
        <div className="plan-main">
          <PlanGraph steps={steps} selected={selected?.key ?? null} onSelect={select} />
          {selected ? (
            // Keyed by the step: another step's detail starts afresh (a release note typed for one
            // blocked step stayed in the next step's form).
            <StepDetail key={selected.id} planId={plan.id} step={selected} onChanged={detail.reload} />
          ) : (
            <p className="muted hint">Select a step in the graph to see its expectation, observation, result and links.</p>
          )}
        </div>
        <aside className="plan-side">
          {!closed && plan.status !== 'draft' && <PausePlan planId={plan.id} paused={Boolean(plan.pause)} role={me.role} onChanged={detail.reload} />}
          {!closed && <CancelPlan planId={plan.id} role={me.role} onChanged={detail.reload} />}
          <Resourcing estimate={plan.estimate ?? plan.validation?.estimate} budget={plan.budget} usage={detail.data.usage} actual={plan.actual} />
          <Validation errors={plan.validation?.errors ?? []} warnings={plan.validation?.warnings ?? []} />
          <Revisions current={plan.id} shown={shown} revisions={revisions} summaries={intentionDetail.data?.plans ?? []} />
        </aside>
      </div>

      <div className="grid-2">
        <Card title="What the plan relies on">
          <Facts
            items={[
              ['Risk', plan.risk],
              ['Completion criteria', plan.completionCriteria],
              [
                'Abort conditions',
                (plan.abortConditions ?? []).length > 0 && (
                  <ul>
                    {plan.abortConditions!.map((condition, i) =>
                      typeof condition === 'string' || condition.when === 'display_only' ? (
                        <li key={i}>
                          {typeof condition === 'string' ? condition : condition.statement} <span className="muted">(shown only, not checked)</span>
                        </li>
                      ) : (
                        <li key={i}>
                          {condition.statement} <span className="muted">({condition.when})</span>
                        </li>
                      ),
                    )}
                  </ul>
                ),
              ],
            ]}
          />
          <Assumptions assumptions={plan.assumptions ?? []} checked={plan.status !== 'draft' && ASSUMPTIONS_CHECKED_FOR.includes(plan.origin)} />
        </Card>
        <Alternatives alternatives={plan.alternatives ?? []} chosen={plan.strategy} />
      </div>

      <Card title="Plan timeline">
        <Timeline path={`/plans/${encodeURIComponent(plan.id)}/timeline`} concerns={(event) => event.planId === plan.id} />
      </Card>
    </section>
  );
}

/** What became of the intention, first and in words: no step needs opening to know it. */
function OutcomePanel({ outcome, pending, planId, latest }: { outcome: Outcome; pending: boolean; planId: string; latest: { id: string; revision: number } | null }) {
  // Until the intention is read, an outcome that depends on it is not guessed at.
  if (outcome.kind === 'unknown' && pending) {
    return (
      <section className="outcome" aria-label="Outcome" data-testid="outcome" data-kind="pending">
        <Loading what="what became of the intention" />
      </section>
    );
  }
  return (
    <section className={`outcome outcome-${outcome.kind}`} aria-labelledby="outcome-title" data-testid="outcome" data-kind={outcome.kind}>
      <h2 id="outcome-title">{outcome.headline}</h2>
      <p className="outcome-detail" data-testid="outcome-detail">
        {outcome.detail}
      </p>
      <p className="outcome-links">
        {outcome.act === 'approvals' && (
          <a className="button primary" href={href.approvals()}>
            Decide in Approvals
          </a>
        )}
        {outcome.stepKey && <a href={href.plan(planId, outcome.stepKey)}>Open step {outcome.stepKey}</a>}
        {latest && <a href={href.plan(latest.id)}>Go to the latest revision ({latest.revision})</a>}
      </p>
    </section>
  );
}

/** Events that may change what this page shows. */
function concernsPlan(event: EventRecord, id: string, current: PlanDetail | undefined): boolean {
  if (event.planId === id) return true;
  if (!current) return false;
  const { plan, steps } = current;
  if (event.intentionId && event.intentionId === plan.intentionId) return true;
  if (event.stepId && steps.some((step) => step.id === event.stepId)) return true;
  const data = event.data ?? event.payload ?? {};
  const linked = new Set(steps.flatMap((step) => [step.approvalId, step.requestId, step.executionId, step.predictionId, step.intentionId]));
  for (const key of ['approval_id', 'request_id', 'execution_id', 'prediction_id', 'plan_id']) {
    const value = data[key];
    if (typeof value === 'string' && (linked.has(value) || value === id)) return true;
  }
  // A new revision supersedes this one.
  return event.type === 'plan_replanned' && event.mindId === plan.mindId;
}

/** Who holds the plan and why: nothing new runs until someone resumes it. */
function PausedNotice({ pause }: { pause: PlanPause }) {
  return (
    <section className="outcome outcome-blocked" data-testid="paused-notice" aria-label="Paused">
      <h2>
        Paused by {pause.by || 'an operator'} <Age at={pause.at} />
      </h2>
      <p className="outcome-detail">
        {pause.reason ? `Why: ${pause.reason}. ` : ''}No new step runs until the plan is resumed; a step already executing finishes, waits keep their time and approvals stay open.
      </p>
    </section>
  );
}

/** Pause or resume the plan, with an optional reason kept in the timeline. */
function PausePlan({ planId, paused, role, onChanged }: { planId: string; paused: boolean; role: string; onChanged(): void }) {
  const action = useAction();
  const [reason, setReason] = useState('');
  const verb = paused ? 'resume' : 'pause';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(
      paused ? 'resumed' : 'paused',
      (api) => api.post(`/plans/${encodeURIComponent(planId)}/${verb}`, reason.trim() ? { reason } : {}),
      () => {
        setReason('');
        onChanged();
      },
    );
  };
  return (
    <Card title={paused ? 'Resume the plan' : 'Pause the plan'}>
      <form className="stack" onSubmit={submit}>
        <label>
          Reason (optional)
          <input value={reason} onChange={(event) => setReason(event.target.value)} placeholder={paused ? 'why it may go on' : 'why hold it'} data-testid="pause-reason" />
        </label>
        <button type="submit" className={paused ? 'primary' : ''} disabled={action.busy} data-testid={`${verb}-plan`}>
          {paused ? 'Resume plan' : 'Pause plan'}
        </button>
        {!['operator', 'admin'].includes(role) && (
          <p className="muted small">
            Your role ({role}) may not {verb}; the server will refuse.
          </p>
        )}
        <ErrorBox error={action.error} title={paused ? 'Resume refused' : 'Pause refused'} onDismiss={action.clear} />
      </form>
    </Card>
  );
}

function CancelPlan({ planId, role, onChanged }: { planId: string; role: string; onChanged(): void }) {
  const action = useAction();
  const [reason, setReason] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run('cancelled', (api) => api.post(`/plans/${encodeURIComponent(planId)}/cancel`, { reason }), onChanged);
  };
  return (
    <Card title="Cancel the plan">
      <form className="stack" onSubmit={submit}>
        <label>
          Reason
          <input value={reason} onChange={(event) => setReason(event.target.value)} required placeholder="why stop it" />
        </label>
        <button type="submit" className="danger" disabled={action.busy || !reason.trim()} data-testid="cancel-plan">
          Cancel plan
        </button>
        {!['operator', 'admin'].includes(role) && <p className="muted small">Your role ({role}) may not cancel; the server will refuse.</p>}
        {action.done && <p role="status">Cancellation requested.</p>}
        <ErrorBox error={action.error} title="Cancel refused" onDismiss={action.clear} />
      </form>
    </Card>
  );
}

function Resourcing({ estimate, budget, usage, actual }: { estimate?: Resources | undefined; budget?: Resources | undefined; usage?: Json | undefined; actual?: Resources | undefined }) {
  const used = resourcesOf(usage) ?? actual ?? {};
  const rows = RESOURCE_KEYS.filter((key) => estimate?.[key] !== undefined || budget?.[key] !== undefined || used[key] !== undefined);
  return (
    <Card title="Estimate, budget and use">
      {rows.length === 0 ? (
        <p className="muted">No estimate, budget or use recorded.</p>
      ) : (
        <table className="table compact" data-testid="resources">
          <thead>
            <tr>
              <th scope="col">Resource</th>
              <th scope="col">Estimate</th>
              <th scope="col">Budget</th>
              <th scope="col">Used</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((key) => {
              const cap = budget?.[key];
              const over = cap !== undefined && ((used[key] ?? 0) > cap || (estimate?.[key] ?? 0) > cap);
              return (
                <tr key={key} className={over ? 'over' : undefined}>
                  <th scope="row">{key.replace(/_/g, ' ')}</th>
                  <td className="num">{fmt(estimate?.[key])}</td>
                  <td className="num">{fmt(cap)}</td>
                  <td className="num">
                    {fmt(used[key])}
                    {cap !== undefined && used[key] !== undefined && <Meter value={used[key]!} max={cap} />}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Card>
  );
}

/** The API's usage may be resources directly or wrap them (`{actual}` / `{used}`); take what is there. */
function resourcesOf(usage: Json | undefined): Resources | undefined {
  if (!usage || typeof usage !== 'object' || Array.isArray(usage)) return undefined;
  for (const inner of [usage.actual, usage.used, usage.usage]) {
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) return numbersOf(inner);
  }
  return numbersOf(usage);
}

function numbersOf(value: { [key: string]: Json }): Resources {
  const out: Resources = {};
  for (const key of RESOURCE_KEYS) if (typeof value[key] === 'number') out[key] = value[key];
  return out;
}

function Meter({ value, max }: { value: number; max: number }) {
  const ratio = max > 0 ? Math.min(1, value / max) : 1;
  return (
    <span className="meter" role="meter" aria-valuemin={0} aria-valuemax={max} aria-valuenow={value} aria-label="share of budget used">
      <span style={{ width: `${Math.round(ratio * 100)}%` }} />
    </span>
  );
}

function fmt(value: number | undefined): string {
  return value === undefined ? '–' : Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function Validation({ errors, warnings }: { errors: Issue[]; warnings: Issue[] }) {
  return (
    <Card title="Validation">
      {errors.length === 0 && warnings.length === 0 && <p className="muted">No errors or warnings.</p>}
      {errors.length > 0 && <IssueList kind="error" issues={errors} />}
      {warnings.length > 0 && <IssueList kind="warning" issues={warnings} />}
    </Card>
  );
}

function IssueList({ kind, issues }: { kind: 'error' | 'warning'; issues: Issue[] }) {
  return (
    <>
      <h3>
        {issues.length} {kind}
        {issues.length === 1 ? '' : 's'}
      </h3>
      <ul className={`issues ${kind}`} data-testid={`validation-${kind}s`}>
        {issues.map((issue, i) => (
          <li key={i}>
            <code>{issue.code}</code> {issue.message}
            {issue.path && (
              <>
                {' '}
                at <code>{issue.path}</code>
              </>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * Every plan of the intention, this one marked. This plan's status is the one its badge shows;
 * another's comes from the intention's plan summaries, which mark a completed escalation.
 */
function Revisions({
  current,
  shown,
  revisions,
  summaries,
}: {
  current: string;
  shown: { status: string; label: string };
  revisions: { id: string; revision: number; status: string; createdAt: string }[];
  summaries: readonly PlanSummary[];
}) {
  const statusOf = (revision: { id: string; status: string }) => {
    if (revision.id === current) return shown;
    const summary = summaries.find((p) => p.id === revision.id);
    return summary ? summaryStatus(summary) : { status: revision.status, label: revision.status.replace(/_/g, ' ') };
  };
  if (revisions.length <= 1) {
    return (
      <Card title="Revisions">
        <p className="muted">Only this revision.</p>
      </Card>
    );
  }
  return (
    <Card title="Revisions">
      <ol className="revisions" data-testid="revisions">
        {[...revisions]
          .sort((a, b) => a.revision - b.revision)
          .map((revision) => (
            <li key={revision.id} aria-current={revision.id === current ? 'page' : undefined} data-plan-id={revision.id}>
              {revision.id === current ? <strong>revision {revision.revision} (this one)</strong> : <a href={href.plan(revision.id)}>revision {revision.revision}</a>}{' '}
              <StatusBadge {...statusOf(revision)} /> <Age at={revision.createdAt} />
            </li>
          ))}
      </ol>
    </Card>
  );
}

/** Plans whose assumptions were checked against the mind's beliefs when stored (docs/validation.md). */
const ASSUMPTIONS_CHECKED_FOR = ['operator', 'model', 'dream'];

/**
 * The plan's assumptions. For an operator's, a model's or a dream's plan, one that names a belief
 * was checked against the mind's beliefs when the plan was stored (a plan whose check failed
 * stays a draft, with the failure among its errors); a strategy's own plan is not checked.
 */
function Assumptions({ assumptions, checked }: { assumptions: (Assumption | string)[]; checked: boolean }) {
  if (assumptions.length === 0) return <p className="muted">No assumptions stated.</p>;
  return (
    <>
      <h3>Assumptions</h3>
      <ul>
        {assumptions.map((assumption, i) =>
          typeof assumption === 'string' ? (
            <li key={i}>{assumption}</li>
          ) : (
            <li key={i}>
              {assumption.statement}
              {assumption.min_confidence !== undefined && <span className="muted"> (needs confidence ≥ {assumption.min_confidence})</span>}
              {assumption.belief_id && (
                <span className="muted">
                  {' '}
                  belief <ShortId id={assumption.belief_id} label="belief id" />
                  {checked && <span data-testid="assumption-checked"> · checked: the mind held it firmly enough when the plan was stored</span>}
                </span>
              )}
            </li>
          ),
        )}
      </ul>
    </>
  );
}

function Alternatives({ alternatives, chosen }: { alternatives: Alternative[]; chosen: string }) {
  return (
    <Card title="Alternatives considered">
      {alternatives.length === 0 ? (
        <p className="muted">The plan records no alternatives.</p>
      ) : (
        <table className="table compact" data-testid="alternatives">
          <thead>
            <tr>
              <th scope="col">Strategy</th>
              <th scope="col">Score</th>
              <th scope="col">Confidence</th>
              <th scope="col">Estimate</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {[...alternatives]
              .sort((a, b) => (b.score ?? 0) - (a.score ?? 0))
              .map((alternative, i) => {
                const selected = alternative.selected ?? alternative.strategy === chosen;
                return (
                  <tr key={i} className={selected ? 'selected' : undefined}>
                    <th scope="row">
                      {alternative.strategy}
                      {selected && <span className="badge chosen">chosen</span>}
                    </th>
                    <td className="num">{fmt(alternative.score)}</td>
                    <td className="num">{fmt(alternative.expected_confidence)}</td>
                    <td>
                      {Object.entries(alternative.estimate ?? {})
                        .map(([key, value]) => `${key.replace(/_/g, ' ')} ${value}`)
                        .join(', ') || '–'}
                    </td>
                    <td>{alternative.why || <span className="muted">–</span>}</td>
                  </tr>
                );
              })}
          </tbody>
        </table>
      )}
    </Card>
  );
}

/** What the plan's summaries found, most severe first, without opening a step (issue 16). */
function Findings({ steps }: { steps: readonly StepView[] }) {
  const summaries = steps.flatMap((step) => {
    const observation = step.observation as { findings?: unknown } | null;
    if (step.status !== 'completed' || step.kind !== 'internal' || !observation || !Array.isArray(observation.findings)) return [];
    const findings = observation.findings.flatMap((f: unknown) => {
      const finding = f as { level?: unknown; text?: unknown } | null;
      return finding && typeof finding.level === 'string' && typeof finding.text === 'string' ? [{ level: finding.level, text: finding.text }] : [];
    });
    return findings.length > 0 ? [{ key: step.key, findings }] : [];
  });
  if (summaries.length === 0) return null;
  return (
    <Card title="Findings">
      {summaries.map(({ key, findings }) => (
        <ul key={key} data-testid="findings" data-step-key={key}>
          {findings.map((f, i) => (
            <li key={i} data-level={f.level}>
              <strong>{f.level}</strong> {f.text}
            </li>
          ))}
        </ul>
      ))}
    </Card>
  );
}

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="card">
      <h2>{title}</h2>
      {children}
    </section>
  );
}
