// The approval centre: pending approvals and open capability requests, grouped by batch key, each
// with the exact action it would authorise and the reasons given. Decisions go to the API, which
// binds them to the signed-in operator; a refusal (a viewer's 403, a decision already taken)
// appears on the item with the API's code. Recent history sits beside, for reference only.

import { useState, type FormEvent, type ReactNode } from 'react';
import { DECIDING_ROLES, type ApprovalAmendment, type ApprovalRecord, type Batch, type CapabilityRequestRecord, type EventRecord, type Grouped, type Json, type JsonObject } from '../api/types.ts';
import { Age, ErrorBox, Facts, JsonView, Loading, Readable, ShortId, StatusBadge, Until, Value } from '../components/common.tsx';
import { useAction, useLive, useLiveResource } from '../live.tsx';
import { href } from '../router.ts';

export const concernsDecisions = (event: EventRecord) => /^(approval_|capability_|grant_|tool_|plan_)/.test(event.type);

export function ApprovalCentre() {
  const { me } = useLive();
  const approvals = useLiveResource('approvals:pending', (api) => api.get<Grouped<ApprovalRecord>>('/approvals', { status: 'pending' }), concernsDecisions);
  const requests = useLiveResource('requests:open', (api) => api.get<Grouped<CapabilityRequestRecord>>('/capability-requests', { status: 'open' }), concernsDecisions);
  const mayDecide = DECIDING_ROLES.includes(me.role);
  const refresh = () => {
    approvals.reload();
    requests.reload();
  };
  const pendingApprovals = approvals.data?.groups.reduce((n, group) => n + group.items.length, 0) ?? 0;
  const openRequests = requests.data?.groups.reduce((n, group) => n + group.items.length, 0) ?? 0;

  return (
    <section aria-labelledby="approvals-title" data-testid="approval-centre">
      <h1 id="approvals-title">Approval centre</h1>
      {!mayDecide && (
        <p className="notice" role="note">
          You are signed in as <strong>{me.role}</strong>: you can read everything here, but only operators and admins may decide. The server will refuse your decisions.
        </p>
      )}
      <div className="centre">
        <div className="pending">
          <section aria-labelledby="pending-approvals-title" data-testid="pending-approvals">
            <h2 id="pending-approvals-title">
              Pending approvals <span className="count">{approvals.data ? pendingApprovals : ''}</span>
            </h2>
            <ErrorBox error={approvals.error} title="Could not load approvals" />
            {!approvals.data && approvals.loading && <Loading what="approvals" />}
            {approvals.data && pendingApprovals === 0 && <p className="muted">Nothing waits for approval.</p>}
            {approvals.data?.groups.map((group) => (
              <BatchGroup key={group.batch_key} group={group} kind="approvals">
                {group.items.map((approval) => (
                  <ApprovalCard key={approval.id} approval={approval} onDecided={refresh} />
                ))}
              </BatchGroup>
            ))}
          </section>
          <section aria-labelledby="open-requests-title" data-testid="open-requests">
            <h2 id="open-requests-title">
              Capability requests <span className="count">{requests.data ? openRequests : ''}</span>
            </h2>
            <ErrorBox error={requests.error} title="Could not load capability requests" />
            {!requests.data && requests.loading && <Loading what="capability requests" />}
            {requests.data && openRequests === 0 && <p className="muted">No open capability requests.</p>}
            {requests.data?.groups.map((group) => (
              <BatchGroup key={group.batch_key} group={group} kind="requests">
                {group.items.map((request) => (
                  <RequestCard key={request.id} request={request} onDecided={refresh} />
                ))}
              </BatchGroup>
            ))}
          </section>
        </div>
        <aside className="history" aria-labelledby="history-title" data-testid="decision-history">
          <h2 id="history-title">Recent history</h2>
          <p className="muted small">Earlier decisions, for reference. They are not used to decide anything above.</p>
          <h3>Approvals</h3>
          <HistoryList
            items={(approvals.data?.history ?? []).map((a) => ({
              id: a.id,
              status: a.status,
              what: `${a.capability} on ${a.target}`,
              who: a.decisions.map((d) => d.operator).join(', '),
              at: a.decidedAt ?? a.createdAt,
              plan: planOf(a.evidence),
            }))}
          />
          <h3>Capability requests</h3>
          <HistoryList
            items={(requests.data?.history ?? []).map((r) => ({
              id: r.id,
              status: r.status,
              what: `${r.capability} on ${r.targetPattern}`,
              who: r.decidedBy,
              at: r.decidedAt ?? r.createdAt,
              plan: null,
            }))}
          />
        </aside>
      </div>
    </section>
  );
}

function BatchGroup<T>({ group, kind, children }: { group: Batch<T>; kind: string; children: ReactNode }) {
  return (
    <section className="batch" aria-label={`Batch ${group.batch_key || 'without key'}`} data-testid="batch" data-batch-key={group.batch_key}>
      <h3 className="batch-key">
        batch {group.batch_key ? <ShortId id={group.batch_key} label="batch key" /> : <code>(none)</code>}{' '}
        <span className="muted small">
          {group.items.length} {kind}
        </span>
      </h3>
      {children}
    </section>
  );
}

function ApprovalCard({ approval, onDecided }: { approval: ApprovalRecord; onDecided(): void }) {
  const action = useAction();
  const [note, setNote] = useState('');
  const approvals = approval.decisions.filter((d) => d.decision === 'approve').length;
  const explanation = approval.explanation ?? {};
  const evidence = approval.evidence ?? {};
  const plan = planOf(evidence);
  const decide = (verb: 'approve' | 'deny') => () => {
    // Approving names the digest of the action shown here, so an action amended meanwhile is refused, not approved unseen.
    const body = { ...(note ? { note } : {}), ...(verb === 'approve' ? { digest: approval.digest } : {}) };
    void action.run(verb === 'approve' ? 'Approved' : 'Denied', (api) => api.post(`/approvals/${encodeURIComponent(approval.id)}/${verb}`, body), onDecided);
  };
  const noteId = `note-${approval.id}`;
  return (
    <article className="card decision" data-testid="approval" data-approval-id={approval.id} aria-labelledby={`title-${approval.id}`}>
      <header className="decision-head">
        <h4 id={`title-${approval.id}`}>
          <code>{approval.capability}</code> on <code>{approval.target}</code>
        </h4>
        <StatusBadge status={approval.status} />
      </header>
      <div className="exact-action" data-testid="exact-action">
        <h5>Exact action</h5>
        <Facts
          items={[
            ['Capability', <code data-testid="action-capability">{approval.capability}</code>],
            ['Target', <code data-testid="action-target">{approval.target}</code>],
            ['Parameters', <JsonView value={approval.params} label="Parameters" />],
            ['Digest', <ShortId id={approval.digest} label="digest" />],
            ['Signed with', signedWith(approval.digest)],
          ]}
        />
        <p className="muted small">Approval binds to this exact action: any change to it needs a new approval.</p>
        {(approval.amendments ?? []).length > 0 && <AmendmentHistory amendments={approval.amendments!} />}
        <AmendForm approval={approval} onAmended={onDecided} />
      </div>
      {/* Not a form: the note goes with Approve and Deny alike, so Enter in it decides nothing (it
          once approved, whatever the note said). A button decides, by click, Enter or Space. */}
      <div className="decide" role="group" aria-label="Your decision">
        <label htmlFor={noteId}>Note (optional, recorded with Approve or Deny)</label>
        <input id={noteId} value={note} onChange={(event) => setNote(event.target.value)} placeholder="Enter decides nothing here: press Approve or Deny" data-testid="decision-note" />
        <div className="buttons">
          <button type="button" className="primary" disabled={action.busy} onClick={decide('approve')} data-testid="approve">
            Approve
          </button>
          <button type="button" className="danger" disabled={action.busy} onClick={decide('deny')} data-testid="deny">
            Deny
          </button>
        </div>
      </div>
      <Explanation explanation={explanation} evidence={evidence} />
      <Facts
        items={[
          ['Plan', plan && <a href={href.plan(plan, stepOf(evidence) ?? undefined)}>{stepOf(evidence) ? `step ${stepOf(evidence)} of its plan` : 'its plan'}</a>],
          ['Origin', <Value value={approval.origin} />],
          [
            'Authored by',
            approval.authoredBy
              ? `${approval.authoredBy}${approval.authorNamedBy ? ` (named later by ${approval.authorNamedBy}, who may not approve it)` : ''}`
              : 'nobody recorded: it cannot be approved until an author is named (praxis author, or POST /api/v1/approvals/{id}/author)',
          ],
          ['Approvers', `${approvals} of ${approval.approversRequired}${approval.approversRequired > 1 ? ' (four eyes)' : ''}`],
          [
            'Decisions so far',
            approval.decisions.length > 0 &&
              approval.decisions.map((d, i) => (
                <div key={i}>
                  {d.operator} {d.decision === 'approve' ? 'approved' : 'denied'} <Age at={d.at} />
                  {d.note ? `: ${d.note}` : ''}
                </div>
              )),
          ],
          ['Requested', <Age at={approval.createdAt} />],
          ['Expires', <Until at={approval.expiresAt} past="expired" />],
        ]}
      />
      {action.done && <p role="status">{action.done}.</p>}
      <ErrorBox error={action.error} title="Decision refused" onDismiss={action.clear} />
    </article>
  );
}

/** The action as raised beside each amendment made to it, with who made it and why. */
function AmendmentHistory({ amendments }: { amendments: ApprovalAmendment[] }) {
  return (
    <div className="amendments" data-testid="amendments">
      <h5>Amended before approval</h5>
      <Facts
        items={[
          ['As raised', <code data-testid="original-action">{`${amendments[0]!.from.target} ${JSON.stringify(amendments[0]!.from.params)}`}</code>],
          ...amendments.map((a, i): [string, ReactNode] => [
            `Amendment ${i + 1}`,
            <span key={i} data-testid="amendment">
              {a.operator} <Age at={a.at} /> changed it to <code>{`${a.to.target} ${JSON.stringify(a.to.params)}`}</code>
              {a.reason ? `: ${a.reason}` : ''}
              {a.approvals_cleared.length > 0 ? ` (set aside the approval of ${a.approvals_cleared.join(', ')})` : ''}
            </span>,
          ]),
          ['May not approve', `${amenders(amendments)}, who amended it (an amendment is authorship)`],
        ]}
      />
    </div>
  );
}

function amenders(amendments: ApprovalAmendment[]): string {
  return [...new Set(amendments.map((a) => a.operator))].join(', ');
}

/**
 * Editing the action in the card: the parameters as JSON (whole), an optional reason. The server
 * validates and decides policy again; whoever amends may not approve the amended action.
 */
function AmendForm({ approval, onAmended }: { approval: ApprovalRecord; onAmended(): void }) {
  const action = useAction();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [parseError, setParseError] = useState<string | null>(null);
  // The digest of the action the editor started from. The card keeps its state across reloads, so
  // the editor is filled when opened, from the action shown then (another operator may have amended
  // it since the page loaded), and the amendment names that digest: if the action changes while
  // the editor is open, the server refuses (409 changed) instead of this edit undoing the other.
  const [seenDigest, setSeenDigest] = useState('');
  const paramsId = `amend-params-${approval.id}`;
  const reasonId = `amend-reason-${approval.id}`;
  if (!open) {
    const start = () => {
      setText(JSON.stringify(approval.params, null, 2));
      setSeenDigest(approval.digest);
      setReason('');
      setParseError(null);
      action.clear();
      setOpen(true);
    };
    return (
      <button type="button" className="link-button" onClick={start} data-testid="amend-open">
        Amend the action…
      </button>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let params: unknown;
    try {
      params = JSON.parse(text);
    } catch (error) {
      setParseError(`The parameters are not JSON: ${(error as Error).message}`);
      return;
    }
    setParseError(null);
    void action.run(
      'Amended',
      (api) =>
        api.post(`/minds/${encodeURIComponent(approval.mindId)}/approvals/${encodeURIComponent(approval.id)}/amend`, {
          params: params as object,
          ...(reason ? { reason } : {}),
          digest: seenDigest,
        }),
      () => {
        setOpen(false);
        onAmended();
      },
    );
  };
  return (
    <form className="amend" onSubmit={submit} data-testid="amend-form">
      <label htmlFor={paramsId}>New parameters (JSON, whole)</label>
      <textarea id={paramsId} value={text} rows={Math.min(12, text.split('\n').length + 1)} onChange={(event) => setText(event.target.value)} data-testid="amend-params" />
      <label htmlFor={reasonId}>Why (shown to the approver)</label>
      <input id={reasonId} value={reason} onChange={(event) => setReason(event.target.value)} placeholder="e.g. only the worker needs restarting" data-testid="amend-reason" />
      <p className="muted small">The amended action is checked and decided by policy again. You become one of its authors: another operator must approve it.</p>
      <div className="buttons">
        <button type="submit" className="primary" disabled={action.busy} data-testid="amend-submit">
          Save amendment
        </button>
        <button type="button" disabled={action.busy} onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {parseError && (
        <p role="alert" className="error">
          {parseError}
        </p>
      )}
      <ErrorBox error={action.error} title="Amendment refused" onDismiss={action.clear} />
    </form>
  );
}

const EXPLANATION_LABELS: [string, string][] = [
  ['what', 'What'],
  ['why', 'Why'],
  ['expected_outcome', 'Expected outcome'],
  ['side_effects', 'Side effects'],
  ['risk', 'Risk'],
  ['mitigation', 'Mitigation'],
  ['fallback', 'Fallback'],
  ['alternatives', 'Alternatives'],
];

/** The explanation an approver reads; risk, mitigation and fallback appear when the record carries them. */
function Explanation({ explanation, evidence }: { explanation: JsonObject; evidence: JsonObject }) {
  const known = new Set(EXPLANATION_LABELS.map(([key]) => key));
  const pick = (key: string): Json | undefined => explanation[key] ?? evidence[key];
  const rows: [string, ReactNode][] = EXPLANATION_LABELS.map(([key, label]) => [label, render(pick(key))]);
  for (const [key, value] of Object.entries(explanation)) if (!known.has(key)) rows.push([key.replace(/_/g, ' '), render(value)]);
  return (
    <div className="explanation" data-testid="explanation">
      <h5>Explanation</h5>
      <Facts items={rows} />
    </div>
  );
}

function render(value: Json | undefined): ReactNode {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return (
      <ul>
        {value.map((item, i) => (
          <li key={i}>
            <Value value={item} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object') return <Readable value={value} label="Detail" />;
  return String(value);
}

function RequestCard({ request, onDecided }: { request: CapabilityRequestRecord; onDecided(): void }) {
  const action = useAction();
  const [duration, setDuration] = useState(String(request.durationSeconds || 1800));
  const [uses, setUses] = useState(String(request.maxOperations || 1));
  const [pattern, setPattern] = useState(request.targetPattern);
  const [note, setNote] = useState('');
  const base = `/capability-requests/${encodeURIComponent(request.id)}`;
  const grant = (event: FormEvent) => {
    event.preventDefault();
    const body: Record<string, unknown> = {};
    if (duration.trim()) body.duration_seconds = Number(duration);
    if (uses.trim()) body.uses = Number(uses);
    if (pattern.trim() && pattern.trim() !== request.targetPattern) body.target_pattern = pattern.trim();
    void action.run('Granted', (api) => api.post(`${base}/grant`, body), onDecided);
  };
  const deny = (event: FormEvent) => {
    event.preventDefault();
    void action.run('Denied', (api) => api.post(`${base}/deny`, note ? { note } : {}), onDecided);
  };
  const id = request.id;
  return (
    <article className="card decision" data-testid="capability-request" data-request-id={request.id} aria-labelledby={`title-${id}`}>
      <header className="decision-head">
        <h4 id={`title-${id}`}>
          <code>{request.capability}</code> on <code>{request.targetPattern}</code>
        </h4>
        <StatusBadge status={request.status} />
      </header>
      <div className="exact-action">
        <h5>Access asked for</h5>
        <Facts
          items={[
            ['Capability', <code>{request.capability}</code>],
            ['Target pattern', <code>{request.targetPattern}</code>],
            ['Parameter limits', Object.keys(request.paramLimits ?? {}).length > 0 && <Readable value={request.paramLimits} label="Parameter limits" />],
            ['Duration', `${request.durationSeconds} s`],
            ['Uses', String(request.maxOperations)],
          ]}
        />
      </div>
      <form className="decide grant" onSubmit={grant}>
        <div className="row">
          <label>
            Duration (seconds)
            <input type="number" min={1} value={duration} onChange={(event) => setDuration(event.target.value)} />
          </label>
          <label>
            Uses
            <input type="number" min={1} value={uses} onChange={(event) => setUses(event.target.value)} />
          </label>
          <label className="grow">
            Target pattern
            <input value={pattern} onChange={(event) => setPattern(event.target.value)} />
          </label>
        </div>
        <div className="buttons">
          <button type="submit" className="primary" disabled={action.busy} data-testid="grant">
            Grant
          </button>
        </div>
      </form>
      {/* A form of its own: Enter in the denial note denies, with the note (inside the grant form
          it granted, and the note was lost). */}
      <form className="decide deny" onSubmit={deny}>
        <div className="row">
          <label className="grow">
            Note for a denial (optional)
            <input value={note} onChange={(event) => setNote(event.target.value)} data-testid="deny-note" />
          </label>
          <div className="buttons">
            <button type="submit" className="danger" disabled={action.busy} data-testid="deny-request">
              Deny
            </button>
          </div>
        </div>
      </form>
      <Facts
        items={[
          ['Reason', request.reason],
          ['Risk', request.risk],
          ['Mitigation', request.mitigation],
          ['Fallback', request.fallback],
          ['Alternatives', render(request.alternatives)],
          ['Intention', request.intentionId && <a href={href.intentionTimeline(request.intentionId)}>its timeline</a>],
          ['Origin', <Value value={request.origin} />],
          ['Requested', <Age at={request.createdAt} />],
        ]}
      />
      {action.done && <p role="status">{action.done}.</p>}
      <ErrorBox error={action.error} title="Decision refused" onDismiss={action.clear} />
    </article>
  );
}

interface HistoryItem {
  id: string;
  status: string;
  what: string;
  who: string;
  at: string;
  plan: string | null;
}

function HistoryList({ items }: { items: HistoryItem[] }) {
  if (items.length === 0) return <p className="muted small">None yet.</p>;
  return (
    <ul className="history-list">
      {items.map((item) => (
        <li key={item.id} data-testid="history-item" data-id={item.id}>
          <StatusBadge status={item.status} /> <code>{item.what}</code>
          <div className="muted small">
            {item.who && `${item.who}, `}
            <Age at={item.at} />
            {item.plan && (
              <>
                {' · '}
                <a href={href.plan(item.plan)}>plan</a>
              </>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}

function planOf(evidence: JsonObject | undefined): string | null {
  const value = evidence?.plan_id;
  return typeof value === 'string' ? value : null;
}

function stepOf(evidence: JsonObject): string | null {
  const value = evidence.step_key;
  return typeof value === 'string' ? value : null;
}

/** Which daemon secret signed a request's digest (its key id, never the secret), or that none did. */
function signedWith(digest: string): string {
  const keyed = /^hmac-sha256:([0-9a-f]{12}):/.exec(digest);
  return keyed ? `the daemon secret ${keyed[1]}` : 'no secret: an unkeyed digest, which a daemon refuses';
}
