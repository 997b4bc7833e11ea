// One step in full: what it does, what it expects and found, and everything linked to it (the
// approval, capability request, execution, prediction and subordinate intention). A blocked step
// offers the release an operator may give.

import { useState, type FormEvent, type ReactNode } from 'react';
import type { ApprovalAmendment, Check, StepView } from '../api/types.ts';
import { useAction } from '../live.tsx';
import { href } from '../router.ts';
import { Age, ErrorBox, Facts, Readable, ShortId, StatusBadge, Time, Until, words } from './common.tsx';

export function StepDetail({ planId, step, onChanged }: { planId: string; step: StepView; onChanged(): void }) {
  return (
    <article className="card step-detail" aria-labelledby="step-title" data-testid="step-detail" data-step-key={step.key}>
      <header className="step-head">
        <h2 id="step-title">
          <code>{step.key}</code> {step.title}
        </h2>
        <StatusBadge status={step.status} />
      </header>
      {step.statusReason && <p className="reason">{step.statusReason}</p>}
      {step.status === 'blocked' && <ReleaseStep planId={planId} step={step} onChanged={onChanged} />}
      <Facts
        items={[
          ['Kind', step.kind],
          ['Capability', step.capability && <code>{step.capability}</code>],
          ['Target', step.target && <code>{step.target}</code>],
          ['Depends on', step.dependsOn.length > 0 && step.dependsOn.map((key) => <code key={key}>{key} </code>)],
          ['Attempts', `${step.attempts} of ${step.maxAttempts}`],
          ['Approval required', step.requireApproval ? 'yes, always' : false],
          ['Started', step.startedAt && <Time at={step.startedAt} />],
          ['Finished', step.finishedAt && <Time at={step.finishedAt} />],
        ]}
      />
      {Object.keys(step.params ?? {}).length > 0 && (
        <Section title={step.approval?.amendments?.length ? 'Parameters (as amended)' : 'Parameters'}>
          <Readable value={step.params} label="Parameters" />
        </Section>
      )}
      {step.approval?.amendments && step.approval.amendments.length > 0 && <Amendments amendments={step.approval.amendments} />}
      {Object.keys(step.spec ?? {}).length > 0 && (
        <Section title="Spec">
          <Readable value={step.spec} label="Spec" />
        </Section>
      )}
      <Section title="Expectation">
        {step.expectation ? (
          <>
            <p>{step.expectation.statement}</p>
            <Facts
              items={[
                ['Confidence', String(step.expectation.confidence)],
                ['Within', `${step.expectation.within_seconds} s`],
                ['Check', <CheckText check={step.expectation.check} />],
              ]}
            />
          </>
        ) : (
          <p className="muted">none</p>
        )}
      </Section>
      <Section title="Precondition">
        {step.precondition ? (
          <>
            {step.precondition.statement && <p>{step.precondition.statement}</p>}
            <Facts
              items={[
                ['Check', <CheckText check={step.precondition} />],
                ['Fulfils the intention', step.precondition.fulfils_intention ? 'yes, when it does not hold' : false],
              ]}
            />
          </>
        ) : (
          <p className="muted">none</p>
        )}
      </Section>
      {/* Observation and result are often the same record (a read's result is what it observed): said once. */}
      <Section title={same(step.observation, step.result) ? 'Observation and result' : 'Observation'}>
        <Readable value={step.observation} label="Observation" />
      </Section>
      {!same(step.observation, step.result) && (
        <Section title="Result">
          <Readable value={step.result} label="Result" />
        </Section>
      )}
      {step.error && (
        <Section title="Error">
          <p className="step-error">{step.error}</p>
        </Section>
      )}
      <Linked step={step} />
    </article>
  );
}

function ReleaseStep({ planId, step, onChanged }: { planId: string; step: StepView; onChanged(): void }) {
  const action = useAction();
  const [note, setNote] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run('released', (api) => api.post(`/plans/${encodeURIComponent(planId)}/steps/${encodeURIComponent(step.key)}/retry`, note ? { note } : {}), onChanged);
  };
  return (
    <form className="inline-form release" onSubmit={submit} aria-label={`Release step ${step.key}`}>
      <p>This step is blocked: Praxis will not guess whether its action happened. Check the host, then release it to run again.</p>
      <label>
        Note
        <input value={note} onChange={(event) => setNote(event.target.value)} placeholder="what you checked" />
      </label>
      <button type="submit" className="primary" disabled={action.busy} data-testid="release-step">
        Release step
      </button>
      {action.done && <span role="status">Released.</span>}
      <ErrorBox error={action.error} title="Release refused" onDismiss={action.clear} />
    </form>
  );
}

/**
 * An action amended by an operator before approval: the action as planned beside what runs now,
 * then each amendment with who made it and why.
 */
function Amendments({ amendments }: { amendments: ApprovalAmendment[] }) {
  const original = amendments[0]!.from;
  const current = amendments[amendments.length - 1]!.to;
  return (
    <Section title="Amended before approval">
      <div className="amendment" data-testid="step-amendment">
        <Facts
          items={[
            ['Original target', <code data-testid="original-target">{original.target}</code>],
            ['Original parameters', <Readable value={original.params} label="Original parameters" />],
            ['Amended target', <code data-testid="amended-target">{current.target}</code>],
            ['Amended parameters', <Readable value={current.params} label="Amended parameters" />],
          ]}
        />
        {amendments.map((a, i) => (
          <p key={i} className="small">
            amended by <strong>{a.operator}</strong> <Age at={a.at} />
            {a.reason ? `: ${a.reason}` : ''} ({a.operator} is an author now and may not approve it)
          </p>
        ))}
      </div>
    </Section>
  );
}

function Linked({ step }: { step: StepView }) {
  const { approval, request, execution, prediction, subordinate } = step;
  if (!approval && !request && !execution && !prediction && !subordinate) return null;
  return (
    <div className="linked">
      {approval && (
        <Section title="Approval">
          <Facts
            items={[
              ['Status', <StatusBadge status={approval.status} />],
              ['Action', <code>{`${approval.capability} on ${approval.target}`}</code>],
              ['Approvers', `${approval.decisions.filter((d) => d.decision === 'approve').length} of ${approval.approversRequired}`],
              [
                'Decisions',
                approval.decisions.length > 0 &&
                  approval.decisions.map((d, i) => (
                    <div key={i}>
                      {d.operator} {d.decision === 'approve' ? 'approved' : 'denied'} <Age at={d.at} />
                      {d.note ? `: ${d.note}` : ''}
                    </div>
                  )),
              ],
              ['Expires', approval.status === 'pending' && <Until at={approval.expiresAt} past="expired" />],
              ['Id', <ShortId id={approval.id} label="approval id" />],
            ]}
          />
          {approval.status === 'pending' && <a href={href.approvals()}>Decide in the approval centre</a>}
        </Section>
      )}
      {request && (
        <Section title="Capability request">
          <Facts
            items={[
              ['Status', <StatusBadge status={request.status} />],
              ['Capability', <code>{request.capability}</code>],
              ['Target pattern', <code>{request.targetPattern}</code>],
              ['Reason', request.reason],
              ['Decided by', request.decidedBy],
            ]}
          />
          {request.status === 'open' && <a href={href.approvals()}>Decide in the approval centre</a>}
        </Section>
      )}
      {execution && (
        <Section title="Execution">
          <Facts
            items={[
              ['Status', <StatusBadge status={execution.status} />],
              ['Action', <code>{`${execution.capability} on ${execution.target}`}</code>],
              ['Started', <Time at={execution.startedAt} />],
              ['Finished', execution.finishedAt && <Time at={execution.finishedAt} />],
              ['Error', execution.error],
            ]}
          />
          {execution.result &&
            (same(execution.result, step.result) ? <p className="muted small">Its result is the step's result above.</p> : <Readable value={execution.result} label="Execution result" />)}
        </Section>
      )}
      {prediction && (
        <Section title="Prediction">
          <p>{prediction.statement}</p>
          <Facts
            items={[
              ['Status', <StatusBadge status={prediction.status} />],
              ['Confidence', String(prediction.confidence)],
              ['Window closes', <Time at={prediction.windowClosesAt} />],
              ['Resolved', prediction.resolvedAt && <Time at={prediction.resolvedAt} />],
            ]}
          />
          {prediction.outcome && <Readable value={prediction.outcome} label="Prediction outcome" />}
        </Section>
      )}
      {subordinate && (
        <Section title="Subordinate intention">
          <p>{subordinate.objective}</p>
          <Facts
            items={[
              ['Status', <StatusBadge status={subordinate.status} />],
              ['Reason', subordinate.reason],
              ['Timeline', <a href={href.intentionTimeline(subordinate.id)}>its timeline</a>],
              ['Id', <ShortId id={subordinate.id} label="intention id" />],
              ['Plans', <a href={href.plans({ intention: subordinate.id })}>plans for it</a>],
            ]}
          />
        </Section>
      )}
    </div>
  );
}

/** A check as a sentence: `service.status of atlas-worker.service: active_state equals "active"`. */
export function CheckText({ check }: { check: Check }) {
  const params = Object.values(check.params ?? {}).filter((v) => typeof v === 'string' || typeof v === 'number');
  const of = params.length > 0 ? ` of ${params.join(', ')}` : '';
  const value = check.comparison === 'exists' ? '' : ` ${typeof check.value === 'string' ? `"${check.value}"` : JSON.stringify(check.value)}`;
  return (
    <span className="check">
      <code>{check.capability}</code>
      {of}: <code>{check.field}</code> {words(check.comparison)}
      {value}
    </span>
  );
}

function same(a: unknown, b: unknown): boolean {
  return a !== null && a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="sub">
      <h3>{title}</h3>
      {children}
    </section>
  );
}
