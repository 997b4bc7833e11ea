// What the plan page says first, decided from the API's records without a browser: the
// intention's outcome in words, the plan's shown status, the sign-in box reading a pasted link,
// and graph titles wrapped whole.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IntentionRecord, PlanRecord, StepView } from '../../web/src/api/types.ts';
import { wrapTitle } from '../../web/src/components/wrap-title.ts';
import { displayStatus, outcomeOf, summaryStatus } from '../../web/src/outcome.ts';
import { tokenOfPasted } from '../../web/src/session.ts';

const plan = (over: Partial<PlanRecord> = {}): PlanRecord =>
  ({
    id: 'p',
    mindId: 'm',
    intentionId: 'i',
    objective: 'Restart atlas-worker',
    status: 'executing',
    revision: 1,
    origin: 'operator',
    strategy: 'direct',
    createdAt: '',
    updatedAt: '',
    supersedes: null,
    supersededBy: null,
    statusReason: '',
    ...over,
  }) as PlanRecord;
const step = (key: string, over: Partial<StepView> = {}): StepView =>
  ({
    id: key,
    key,
    title: `step ${key}`,
    kind: 'capability',
    status: 'pending',
    capability: 'service.restart',
    target: 'atlas-worker.service',
    spec: {},
    dependsOn: [],
    statusReason: '',
    error: '',
    ...over,
  }) as StepView;
const intention = (status: string, reason = ''): Pick<IntentionRecord, 'status' | 'reason' | 'objective'> => ({ status, reason, objective: 'Restart atlas-worker' });
const note = step('N1', { kind: 'internal', status: 'completed', capability: '', spec: { action: 'notify_operator', message: 'Tried a restart; it failed again.' } });

describe('console outcome', () => {
  it('leads with what waits for the operator, naming the action', () => {
    const steps = [step('P1', { status: 'awaiting_approval' }), step('V1')];
    const outcome = outcomeOf(intention('blocked', 'awaiting_approval'), plan(), steps);
    assert.equal(outcome.kind, 'waiting_for_you');
    assert.equal(outcome.headline, 'Waiting for you: approve service.restart on atlas-worker.service');
    assert.equal(outcome.act, 'approvals');
    assert.deepEqual(displayStatus(plan(), steps), { status: 'awaiting_approval', label: 'waiting for an approval' });
    // The engine's own vocabulary, when it says it: the same words.
    assert.deepEqual(displayStatus(plan({ status: 'awaiting_approval' }), steps), { status: 'awaiting_approval', label: 'waiting for an approval' });
    const grant = [step('R1', { kind: 'request_capability', status: 'awaiting_grant' })];
    assert.deepEqual(displayStatus(plan({ status: 'waiting' }), grant), { status: 'awaiting_grant', label: 'waiting for a grant' });
  });

  it('a completed escalation is "escalated to you" with its note, never a success', () => {
    const steps = [step('S1', { kind: 'internal', status: 'completed' }), note];
    const outcome = outcomeOf(intention('blocked', 'expectation_failed'), plan({ status: 'completed', strategy: 'diagnose_then_escalate' }), steps);
    assert.equal(outcome.kind, 'escalated');
    assert.equal(outcome.headline, 'Escalated to you');
    assert.equal(outcome.detail, 'Tried a restart; it failed again.');
    assert.deepEqual(displayStatus(plan({ status: 'completed' }), steps), { status: 'escalated', label: 'escalated to you' });
    // Known only by its summary (the plans list, the revisions), as the API marks it.
    assert.deepEqual(summaryStatus({ status: 'completed', escalated: true }), { status: 'escalated', label: 'escalated to you' });
    assert.deepEqual(summaryStatus({ status: 'completed', escalated: false }), { status: 'completed', label: 'completed' });
    assert.deepEqual(summaryStatus({ status: 'awaiting_approval' }), { status: 'awaiting_approval', label: 'awaiting approval' });
  });

  it('an escalation shows the note as it was left, with the findings it carried', () => {
    const left = 'Tried a restart; it failed again. Findings S1: Found: atlas-worker.service logged: fatal: pool exhausted for [email].';
    const steps = [step('S1', { kind: 'internal', status: 'completed' }), { ...note, observation: { message: left } }];
    const outcome = outcomeOf(intention('blocked', 'expectation_failed'), plan({ status: 'completed', strategy: 'diagnose_then_escalate' }), steps);
    assert.equal(outcome.detail, left);
  });

  it('fulfilled, abandoned with why, blocked with the step to release, replaced by a later revision', () => {
    assert.equal(outcomeOf(intention('fulfilled', 'completed'), plan({ status: 'completed' }), [step('P1', { status: 'completed' })]).kind, 'fulfilled');
    const abandoned = outcomeOf(intention('abandoned', 'cancelled'), plan({ status: 'abandoned', statusReason: 'cancelled by olga: wrong unit' }), []);
    assert.equal(abandoned.kind, 'abandoned');
    assert.equal(abandoned.detail, 'Why: cancelled by olga: wrong unit.');
    const blocked = outcomeOf(intention('active'), plan(), [step('P1', { status: 'blocked', statusReason: 'outcome unknown after a crash' })]);
    assert.deepEqual([blocked.kind, blocked.act, blocked.stepKey, blocked.detail], ['blocked', 'release', 'P1', 'outcome unknown after a crash']);
    assert.equal(outcomeOf(intention('blocked', 'expectation_failed'), plan({ status: 'superseded' }), [step('P1', { status: 'completed' })]).kind, 'superseded');
    assert.equal(outcomeOf(null, plan(), [step('P1', { status: 'executing' })]).headline, 'In progress');
  });

  it('an intention not known (not loaded, or its load failed) is never guessed at: no "Completed, nothing waits for you"', () => {
    const escalation = outcomeOf(null, plan({ status: 'completed', strategy: 'diagnose_then_escalate' }), [step('S1', { kind: 'internal', status: 'completed' }), note]);
    assert.equal(escalation.kind, 'unknown');
    assert.equal(escalation.headline, 'What became of the intention is not known');
    assert.doesNotMatch(escalation.detail, /Nothing waits for you/);
    assert.equal(outcomeOf(null, plan({ status: 'executing' }), [step('P1', { status: 'completed' }), step('P2', { status: 'pending' })]).kind, 'unknown');
    // What the plan and its steps show is still said.
    assert.equal(outcomeOf(null, plan(), [step('P1', { status: 'awaiting_approval' })]).kind, 'waiting_for_you');
    assert.equal(outcomeOf(null, plan({ status: 'failed', statusReason: 'budget' }), []).kind, 'failed');
  });

  it('a plan blocked as a whole says so and why, with no step to release; a draft is not in progress', () => {
    const stuck = outcomeOf(intention('active'), plan({ status: 'blocked', statusReason: 'no step can move: B waits on a cancelled step' }), [
      step('A', { status: 'completed' }),
      step('B', { status: 'ready' }),
    ]);
    assert.deepEqual([stuck.kind, stuck.headline, stuck.act], ['blocked', 'Blocked, waiting for you', null]);
    assert.equal(stuck.detail, 'The plan is blocked: no step can move: B waits on a cancelled step.');
    const spent = outcomeOf(intention('suspended', 'budget_exhausted'), plan({ status: 'blocked' }), [step('A', { status: 'completed' }), step('B', { status: 'ready' })]);
    assert.equal(spent.detail, 'The plan is blocked: its budget ran out.');
    const dream = outcomeOf(intention('suspended'), plan({ status: 'draft', statusReason: 'a dream: kept as a draft, never run' }), [step('A')]);
    assert.deepEqual([dream.kind, dream.headline, dream.detail], ['draft', 'A draft: it never runs', 'a dream: kept as a draft, never run']);
  });

  it('the sign-in box takes a token or a whole sign-in link', () => {
    assert.equal(tokenOfPasted('  praxis_abc  '), 'praxis_abc');
    assert.equal(tokenOfPasted('http://127.0.0.1:7300/#token=praxis_a%2Db'), 'praxis_a-b');
    assert.equal(tokenOfPasted('http://127.0.0.1:7300/#/plans?status=failed&token=praxis_x'), 'praxis_x');
    assert.equal(tokenOfPasted('token=praxis_y'), 'praxis_y');
    assert.equal(tokenOfPasted('http://127.0.0.1:7300/#/plans'), '', 'a link without a token is no token');
  });

  it('graph titles wrap at spaces, whole, within the line width', () => {
    const title = 'Read the status of atlas-worker.service once more and compare it with the last reading';
    const lines = wrapTitle(title, 30);
    assert.equal(lines.join(' '), title);
    assert.ok(
      lines.every((line) => line.length <= 30),
      lines.join('|'),
    );
    assert.deepEqual(wrapTitle('a'.repeat(65), 30), ['a'.repeat(30), 'a'.repeat(30), 'a'.repeat(5)]);
    const long = wrapTitle('word '.repeat(60), 30, 4);
    assert.equal(long.length, 4);
    assert.ok(long[3]!.endsWith('…'));
  });
});
