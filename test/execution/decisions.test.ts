// The executor's pure core: given what was observed, what is decided. No store, no clock.

import { claimantGone, claimantOf, ClaimantWatch, keepsPresence, newExecutorName, PRESENCE_GRACE_MS, PRESENCE_LOOK_GAP_MS } from '../../src/execution/claimants.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CapabilityDefinition } from '../../src/capabilities/definition.ts';
import type { JsonValue } from '../../src/core/plan.ts';
import type { StepStatus } from '../../src/core/vocabulary.ts';
import { OUTCOME_UNKNOWN, decideRecovery } from '../../src/execution/recovery.ts';
import { adoptInvocation } from '../../src/execution/handlers/capability.ts';
import { backoffSeconds } from '../../src/execution/decisions.ts';
import { checkBudget, zeroUse } from '../../src/execution/budget.ts';
import { compare, fieldAt } from '../../src/execution/checks.ts';
import { decideApprovalPoll } from '../../src/execution/polling.ts';
import { decideMonitor } from '../../src/execution/handlers/monitor.ts';
import { decideVerification } from '../../src/execution/handlers/verify.ts';
import { decideWait } from '../../src/execution/handlers/wait.ts';
import { firstPromotions, settlement } from '../../src/execution/settle.ts';
import type { ApprovalRecord, ExecutionRecord, PlanWithSteps, PredictionRecord, StepRecord } from '../../src/store/index.ts';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function stepRecord(over: Partial<StepRecord> = {}): StepRecord {
  return {
    id: 'step-1',
    planId: 'plan-1',
    mindId: 'mind-1',
    key: 'S',
    position: 0,
    title: 'a step',
    kind: 'capability',
    dependsOn: [],
    capability: 'x.write',
    target: 't',
    params: {},
    requireApproval: false,
    expectation: null,
    precondition: null,
    spec: {},
    status: 'executing',
    attempts: 1,
    maxAttempts: 1,
    leaseUntil: null,
    nextRunAt: null,
    approvalId: null,
    requestId: null,
    executionId: null,
    predictionId: null,
    intentionId: null,
    result: null,
    observation: null,
    error: '',
    statusReason: '',
    claimedBy: '',
    startedAt: T0,
    finishedAt: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

const definition = (over: Partial<CapabilityDefinition> = {}): CapabilityDefinition => ({
  name: 'x.write',
  description: '',
  readOnly: false,
  idempotent: false,
  timeoutSeconds: 10,
  paramsSchema: {},
  target: () => 't',
  locked: false,
  cost: { wall_seconds: 1, network_ops: 0, money: 0 },
  observes: [],
  ...over,
});

function execution(over: Partial<ExecutionRecord>): ExecutionRecord {
  return {
    id: 'exec-1',
    mindId: 'mind-1',
    capability: 'x.write',
    target: 't',
    params: {},
    origin: 'plan_step:step-1',
    correlationId: '',
    evidence: {},
    approvalId: null,
    grantId: null,
    status: 'succeeded',
    result: { summary: 'did it', observation: { ok: true } },
    error: '',
    retrySafe: false,
    startedAt: T0,
    finishedAt: T0,
    createdAt: T0,
    ...over,
  };
}

describe('settlement', () => {
  const s = (key: string, status: StepStatus, dependsOn: string[] = []) => stepRecord({ id: key, key, status, dependsOn });

  it('promotes a pending step once every dependency completed or was skipped', () => {
    const result = settlement([s('A', 'completed'), s('B', 'skipped'), s('C', 'pending', ['A', 'B']), s('D', 'pending', ['C'])]);
    assert.deepEqual(
      result.promote.map((x) => x.key),
      ['C'],
    );
    assert.equal(result.outcome, null);
  });

  it('cancels a pending step whose dependency failed or was cancelled, and the plan fails', () => {
    const result = settlement([s('A', 'failed'), s('B', 'pending', ['A']), s('C', 'cancelled'), s('D', 'pending', ['C'])]);
    assert.deepEqual(
      result.cancel.map((c) => [c.step.key, c.reason]),
      [
        ['B', 'dependency A failed'],
        ['D', 'dependency C cancelled'],
      ],
    );
    assert.equal(result.outcome, 'failed');
    assert.equal(result.failedStep?.key, 'A');
  });

  it('completes a plan only when every step is final and none failed', () => {
    assert.equal(settlement([s('A', 'completed'), s('B', 'skipped')]).outcome, 'completed');
    assert.equal(settlement([s('A', 'completed'), s('B', 'waiting')]).outcome, null);
    assert.equal(settlement([s('A', 'completed'), s('B', 'blocked')]).outcome, null);
  });

  it('never promotes a step past an unfinished dependency (property)', () => {
    const statuses: StepStatus[] = ['pending', 'ready', 'executing', 'waiting', 'completed', 'skipped', 'failed', 'blocked', 'cancelled'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...statuses), { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(7), fc.nat(7))), (list, edges) => {
        const steps = list.map((status, i) => s(`K${i}`, status));
        for (const [from, to] of edges) if (from < to && to < steps.length) steps[to]!.dependsOn.push(`K${from}`);
        const result = settlement(steps);
        for (const promoted of result.promote) {
          assert.equal(promoted.status, 'pending');
          for (const dep of promoted.dependsOn) assert.ok(['completed', 'skipped'].includes(steps.find((x) => x.key === dep)!.status));
        }
      }),
    );
  });
});

describe('first promotions', () => {
  const s = (key: string, status: StepStatus, dependsOn: string[] = []) => stepRecord({ id: key, key, status, dependsOn });
  const plan = (steps: StepRecord[], abortConditions: PlanWithSteps['abortConditions'] = []) => ({ steps, abortConditions }) as unknown as PlanWithSteps;

  it('are the steps of a fresh plan that depend on nothing', () => {
    const diamond = [s('A', 'pending'), s('B', 'pending', ['A']), s('C', 'pending', ['A']), s('D', 'pending', ['B', 'C']), s('E', 'pending')];
    assert.deepEqual(
      firstPromotions(plan(diamond))?.map((step) => step.key),
      ['A', 'E'],
    );
  });

  it('are none when settling the plan would do more than promote: the plan is then settled as any other', () => {
    // A cancellation (a dependency already failed), a plan with nothing to promote, a plan that would close.
    assert.equal(firstPromotions(plan([s('A', 'failed'), s('B', 'pending', ['A']), s('C', 'pending')])), null);
    assert.equal(firstPromotions(plan([s('A', 'waiting'), s('B', 'pending', ['A'])])), null);
    assert.equal(firstPromotions(plan([s('A', 'completed')])), null);
    // An abort condition that holds stops the plan instead.
    const abort = [{ when: 'step_failed', step: 'A', statement: 'stop if A fails' }] as PlanWithSteps['abortConditions'];
    assert.equal(firstPromotions(plan([s('A', 'failed'), s('B', 'pending')], abort)), null);
    assert.deepEqual(
      firstPromotions(plan([s('A', 'pending'), s('B', 'pending')], abort))?.map((step) => step.key),
      ['A', 'B'],
    );
  });
});

describe('checks', () => {
  it('reads dotted paths into objects and arrays', () => {
    const observation: JsonValue = { filesystems: [{ use_percent: 91 }], state: 'active' };
    assert.equal(fieldAt(observation, 'filesystems.0.use_percent'), 91);
    assert.equal(fieldAt(observation, 'filesystems.x'), undefined);
    assert.equal(fieldAt(observation, 'missing.deeper'), undefined);
  });

  it('compares by every comparison of the vocabulary', () => {
    assert.ok(compare('active', 'equals', 'active'));
    assert.ok(compare('failed', 'not_equals', 'active'));
    assert.ok(compare(undefined, 'not_equals', 'active'), 'a missing field is not equal');
    assert.ok(!compare(undefined, 'equals', undefined));
    assert.ok(compare('b', 'in', ['a', 'b']));
    assert.ok(compare('c', 'not_in', ['a', 'b']));
    assert.ok(compare('pool exhausted', 'contains', 'exhausted'));
    assert.ok(compare(['x', 'y'], 'contains', 'y'));
    assert.ok(compare('fine', 'not_contains', 'fatal'));
    assert.ok(compare(5, 'greater_than', 4) && !compare(4, 'greater_than', 4));
    assert.ok(compare(4, 'at_least', 4) && compare(3, 'less_than', 4) && compare(4, 'at_most', 4));
    assert.ok(!compare('5', 'greater_than', 4), 'no coercion');
    assert.ok(compare(0, 'exists', undefined) && !compare(null, 'exists', undefined));
  });
});

describe('adopting an invocation', () => {
  it('completes on executed and turns the expectation into a prediction', () => {
    const expectation = { statement: 'up', confidence: 0.8, within_seconds: 60, check: { capability: 'x.read', params: {}, field: 'f', comparison: 'exists' as const } };
    const decision = adoptInvocation(
      stepRecord({ expectation }),
      definition(),
      { status: 'executed', executionId: 'e', eventId: 'ev', observation: { a: 1 }, summary: 'ok', lowTrust: false, verdict: { decision: 'allow', source: 'rule', approvers: 1, reason: '' } },
      T0,
    );
    assert.equal(decision.kind, 'complete');
    assert.deepEqual(decision.effects, [{ type: 'make_prediction', expectation, executionId: 'e', eventId: 'ev' }]);
  });

  it('retries a repeatable failure with backoff while attempts remain, and fails otherwise', () => {
    const failed = { status: 'failed' as const, code: 'unavailable' as const, error: 'down', retrySafe: true };
    const retry = adoptInvocation(stepRecord({ attempts: 1, maxAttempts: 3 }), definition({ idempotent: true }), failed, T0);
    assert.equal(retry.kind, 'retry');
    assert.deepEqual(retry.kind === 'retry' && retry.at, at(5));
    assert.equal(adoptInvocation(stepRecord({ attempts: 3, maxAttempts: 3 }), definition({ idempotent: true }), failed, T0).kind, 'fail');
    assert.equal(adoptInvocation(stepRecord({ attempts: 1, maxAttempts: 3 }), definition(), failed, T0).kind, 'fail', 'a non-idempotent write is never retried');
    assert.deepEqual([1, 2, 3, 10].map(backoffSeconds), [5, 10, 20, 300]);
  });

  it('fails a denial as a capability change and waits on a pending approval', () => {
    const denied = adoptInvocation(stepRecord(), definition(), { status: 'denied', code: 'policy_denied', reason: 'no' }, T0);
    assert.equal(denied.kind === 'fail' && denied.failure, 'capability_denied');
    const pending = adoptInvocation(stepRecord(), definition(), { status: 'pending', approvalId: 'a', verdict: { decision: 'ask', source: 'default', approvers: 1, reason: 'asks' } }, T0);
    assert.equal(pending.kind, 'await_approval');
  });
});

describe('recovery decisions', () => {
  const none = { executions: [], approvals: [] };

  it('blocks a non-idempotent write whose only record is a started one: its outcome is unknown', () => {
    const decision = decideRecovery(stepRecord(), definition(), { executions: [execution({ status: 'started', result: null })], approvals: [] }, T0);
    assert.equal(decision.kind, 'block');
    assert.equal(decision.kind === 'block' && decision.error, OUTCOME_UNKNOWN);
    assert.equal(decision.kind === 'block' && decision.intention, 'outcome_unverified');
  });

  it('puts a non-idempotent write with no write-ahead record back to ready, saying so: it never began', () => {
    const decision = decideRecovery(stepRecord(), definition(), none, T0);
    assert.equal(decision.kind, 'retry');
    assert.equal(decision.kind === 'retry' && decision.at.getTime(), T0.getTime());
    assert.deepEqual(
      decision.effects?.map((e) => e.type),
      ['requeued'],
    );
    assert.match(decision.reason, /never began/);
  });

  it('retries a repeatable action with no record, adopts a finished one, and resumes a recorded approval', () => {
    assert.equal(decideRecovery(stepRecord(), definition({ idempotent: true }), none, T0).kind, 'retry');
    assert.equal(decideRecovery(stepRecord(), definition({ readOnly: true }), none, T0).kind, 'retry');
    const adopted = decideRecovery(stepRecord(), definition(), { executions: [execution({})], approvals: [] }, T0);
    assert.equal(adopted.kind, 'complete');
    assert.deepEqual(adopted.kind === 'complete' && adopted.observation, { ok: true });
    const failed = decideRecovery(stepRecord(), definition(), { executions: [execution({ status: 'failed', error: 'boom: it broke' })], approvals: [] }, T0);
    assert.equal(failed.kind, 'fail');
    const approval = { id: 'ap', target: 't', status: 'pending' } as ApprovalRecord;
    const waiting = decideRecovery(stepRecord(), definition(), { executions: [], approvals: [approval] }, T0);
    assert.equal(waiting.kind === 'await_approval' && waiting.approvalId, 'ap');
  });

  it('unclaims an approved request whose act never finished only when the action is safe to repeat', () => {
    const claimed = { id: 'ap', target: 't', status: 'approved', executionId: 'exec-9' } as ApprovalRecord;
    const again = decideRecovery(stepRecord(), definition({ readOnly: true }), { executions: [], approvals: [claimed] }, T0);
    assert.equal(again.kind === 'await_approval' && again.approvalId, 'ap');
    assert.deepEqual(again.effects, [{ type: 'release_approval_claim', approvalId: 'ap', executionId: 'exec-9' }]);
    const write = decideRecovery(stepRecord(), definition(), { executions: [], approvals: [claimed] }, T0);
    assert.equal(write.kind, 'await_approval');
    assert.equal(write.effects, undefined, 'a write keeps its claim: the poll blocks it as an outcome unknown');
    const started = decideRecovery(stepRecord(), definition(), { executions: [execution({ id: 'exec-9', status: 'started', result: null })], approvals: [claimed] }, T0);
    assert.equal(started.kind, 'block');
  });

  it('ignores executions of another capability under the same origin', () => {
    const other = execution({ capability: 'x.read' });
    assert.equal(decideRecovery(stepRecord(), definition(), { executions: [other], approvals: [] }, T0).kind, 'retry');
    const otherStarted = execution({ capability: 'x.read', status: 'started', result: null });
    const ownStarted = execution({ status: 'started', result: null });
    assert.equal(decideRecovery(stepRecord(), definition(), { executions: [otherStarted], approvals: [] }, T0).kind, 'retry');
    assert.equal(decideRecovery(stepRecord(), definition(), { executions: [otherStarted, ownStarted], approvals: [] }, T0).kind, 'block');
  });
});

describe('approval polling', () => {
  const approval = (over: Partial<ApprovalRecord>): ApprovalRecord =>
    ({ id: 'ap', status: 'pending', decisions: [], capability: 'x.write', target: 't', decidedAt: null, updatedAt: T0, executionId: null, ...over }) as ApprovalRecord;

  it('keeps waiting while pending or being performed, and blocks when the approved action never finished', () => {
    assert.equal(decideApprovalPoll(stepRecord(), approval({}), undefined, definition(), T0).kind, 'keep');
    assert.equal(decideApprovalPoll(stepRecord(), approval({ status: 'approved', decidedAt: T0 }), undefined, definition(), at(39)).kind, 'keep');
    assert.equal(decideApprovalPoll(stepRecord(), approval({ status: 'approved', decidedAt: T0 }), undefined, definition(), at(41)).kind, 'block');
  });

  it('completes on executed, fails with the note on denied, and as expired on expired or withdrawn', () => {
    const done = decideApprovalPoll(stepRecord(), approval({ status: 'executed', executionId: 'exec-1' }), execution({}), definition(), T0);
    assert.equal(done.kind, 'complete');
    assert.deepEqual(
      done.effects?.map((e) => e.type),
      ['fulfil_subordinate'],
    );
    const denied = decideApprovalPoll(stepRecord(), approval({ status: 'denied', decisions: [{ operator: 'bob', decision: 'deny', at: '', note: 'too risky' }] }), undefined, definition(), T0);
    assert.equal(denied.kind === 'fail' && denied.error, 'approval denied: too risky');
    assert.equal(denied.kind === 'fail' && denied.failure, 'approval_denied');
    for (const status of ['expired', 'withdrawn'] as const) {
      const ended = decideApprovalPoll(stepRecord(), approval({ status }), undefined, definition(), T0);
      assert.equal(ended.kind === 'fail' && ended.failure, 'approval_expired');
      assert.match(ended.kind === 'fail' ? ended.error : '', /expired approval/);
    }
  });
});

describe('budgets', () => {
  it('refuses what would go past a cap, counting invocations against the default of 20', () => {
    const used = { ...zeroUse(), invocations: 19 };
    assert.deepEqual(checkBudget({}, used, { invocations: 1 }), { ok: true });
    const over = checkBudget({}, used, { invocations: 2 });
    assert.equal(over.ok, false);
    assert.equal(!over.ok && over.dimension, 'invocations');
    assert.equal(checkBudget({ wall_seconds: 100 }, { ...zeroUse(), wall_seconds: 100 }, {}).ok, false, 'wall time is a deadline');
    assert.equal(checkBudget({ approvals: 0 }, zeroUse(), { approvals: 0 }).ok, true);
    assert.equal(checkBudget({ approvals: 0 }, zeroUse(), { approvals: 1 }).ok, false);
  });
});

describe('monitor and wait', () => {
  const spec = { field: 'v', comparison: 'equals' as const, value: 'ok', stable_seconds: 60, deadline_seconds: 200, interval_seconds: 30 };
  const start = { started_at: T0.toISOString(), held_since: null, checks: 0 };

  it('needs an unbroken run of holds as long as the stable period', () => {
    const first = decideMonitor(spec, start, { kind: 'held', observed: 'ok' }, T0);
    assert.equal(first.kind, 'wait');
    const progress = first.kind === 'wait' ? (first.state as typeof start) : start;
    assert.equal(progress.held_since, T0.toISOString());
    const broken = decideMonitor(spec, progress, { kind: 'not_held', observed: 'bad' }, at(30));
    assert.equal(broken.kind === 'wait' && (broken.state as typeof start).held_since, null);
    assert.equal(decideMonitor(spec, progress, { kind: 'held' }, at(60)).kind, 'complete');
    assert.equal(decideMonitor(spec, { ...progress, held_since: null }, { kind: 'not_held' }, at(200)).kind, 'fail');
    const unobservable = decideMonitor(spec, progress, { kind: 'unobservable', why: 'policy', lasting: true }, at(30));
    assert.equal(unobservable.kind, 'fail');
  });

  it('never looks later than the moment the stable period would be reached or the deadline', () => {
    const progress = { ...start, held_since: at(10).toISOString() };
    const next = decideMonitor(spec, progress, { kind: 'held' }, at(50));
    assert.deepEqual(next.kind === 'wait' && next.until, at(70));
  });

  it('stores the end of a wait once and completes when it has come', () => {
    const step = stepRecord({ kind: 'wait', spec: { seconds: 90 } });
    const first = decideWait(step, T0);
    assert.deepEqual(first.kind === 'wait' && first.until, at(90));
    const later = decideWait({ ...step, result: { until: at(90).toISOString() } }, at(60));
    assert.deepEqual(later.kind === 'wait' && later.until, at(90), 'the stored end, not a new one');
    assert.equal(decideWait({ ...step, result: { until: at(90).toISOString() } }, at(90)).kind, 'complete');
  });
});

describe('claimants known to be gone', () => {
  it('is gone only when it ran on this host in a process that no longer exists', () => {
    const none = () => false;
    const some = () => true;
    assert.equal(claimantGone('web-1:4242:a1b2c3', 'web-1', none), true);
    assert.equal(claimantGone('web-1:4242:a1b2c3', 'web-1', some), false, 'the process still exists');
    assert.equal(claimantGone('web-2:4242:a1b2c3', 'web-1', none), false, 'another host: only its lease tells');
    assert.equal(claimantGone(`web-1:${process.pid}:a1b2c3`, 'web-1', none), false, 'this very process');
    assert.equal(claimantGone('doomed-4242', 'web-1', none), false, 'a name of another shape');
    assert.equal(claimantGone('', 'web-1', none), false);
    assert.deepEqual(claimantOf('db.example:10:ff'), { host: 'db.example', pid: 10 });
  });

  it('names an executor so that its name says it keeps presence; names of earlier versions (six digits) do not', () => {
    const name = newExecutorName('web-1');
    assert.match(name, new RegExp(`^web-1:${process.pid}:[0-9a-f]{8}$`));
    assert.equal(keepsPresence(name), true);
    assert.equal(keepsPresence('web-1:4242:a1b2c3'), false, 'a daemon of an earlier version holds no lock');
    assert.equal(keepsPresence('web-1:4242:a1b2c3d4e'), false);
    assert.equal(keepsPresence('api:alice'), false);
  });

  it('judges a claimant on another host gone once its presence was seen absent at two looks a grace apart', () => {
    const watch = new ClaimantWatch('web-1', () => true);
    const far = 'web-2:4242:a1b2c3d4';
    assert.deepEqual(watch.toAsk([far]), [far]);
    assert.deepEqual(watch.judge([far], [], 0), { gone: [], watched: [far] }, 'present: watched');
    assert.deepEqual(watch.judge([far], [far], 1000), { gone: [], watched: [far] }, 'absent once: not yet');
    assert.deepEqual(watch.judge([far], [far], 1000 + PRESENCE_GRACE_MS - 1), { gone: [], watched: [far] }, 'within the grace');
    assert.deepEqual(watch.judge([far], [far], 1000 + PRESENCE_GRACE_MS), { gone: [far], watched: [] });
  });

  it('starts the grace again when the claimant was present in between, or was not looked at', () => {
    const watch = new ClaimantWatch('web-1', () => true);
    const far = 'web-2:4242:a1b2c3d4';
    watch.judge([far], [far], 0);
    watch.judge([far], [], 1000);
    assert.deepEqual(watch.judge([far], [far], 2500).gone, [], 'back for a moment (a reconnection): a new grace');
    assert.deepEqual(watch.judge([far], [far], 2500 + PRESENCE_GRACE_MS).gone, [far]);
    const other = new ClaimantWatch('web-1', () => true);
    other.judge([far], [far], 0);
    other.judge([], [], 1000);
    assert.deepEqual(other.judge([far], [far], 5000).gone, [], 'forgotten while it held no claim');
  });

  it('never judges by presence an executor of an earlier version, of this process, or where the store keeps none', () => {
    const watch = new ClaimantWatch('web-1', () => true);
    const old = 'web-2:4242:a1b2c3';
    const mine = `web-1:${process.pid}:a1b2c3d4`;
    assert.deepEqual(watch.toAsk([old, mine]), []);
    for (const now of [0, 10_000]) assert.deepEqual(watch.judge([old, mine], [old, mine], now), { gone: [], watched: [] });
    const far = 'web-2:4242:a1b2c3d4';
    for (const now of [0, 10_000]) assert.deepEqual(watch.judge([far], null, now), { gone: [], watched: [] }, 'SQLite: the lease tells');
  });

  it('judges a claimant of this host by its process, and where presence is kept by its lock too, after the grace', () => {
    const here = 'web-1:4242:a1b2c3d4';
    const alive = new ClaimantWatch('web-1', () => true);
    assert.deepEqual(alive.toAsk([here]), [], 'a process that exists needs no query');
    assert.deepEqual(alive.judge([here], [], 0), { gone: [], watched: [here] });
    const ended = new ClaimantWatch('web-1', () => false);
    assert.deepEqual(ended.toAsk([here]), [here]);
    assert.deepEqual(ended.judge([here], [here], 0), { gone: [], watched: [here] }, 'its lock may be free for a moment on another machine of this name');
    assert.deepEqual(ended.judge([here], [here], PRESENCE_GRACE_MS), { gone: [here], watched: [] }, 'its process and its lock gone for the grace');
    const sameName = new ClaimantWatch('web-1', () => false);
    assert.deepEqual(sameName.judge([here], [], 0), { gone: [], watched: [here] }, 'another machine of the same host name holds the lock');
    assert.deepEqual(sameName.judge([here], null), { gone: [here], watched: [] }, 'SQLite: its process tells, at once');
    assert.deepEqual(sameName.judge(['web-1:4242:a1b2c3'], []), { gone: ['web-1:4242:a1b2c3'], watched: [] }, 'an earlier version: its process tells, at once');
  });

  it('forgets every absence when a look fails (a server restarting): the looks around it are not one absence', () => {
    const watch = new ClaimantWatch('web-1', () => true);
    const far = 'web-2:4242:a1b2c3d4';
    watch.judge([far], [far], 0);
    watch.forget();
    assert.deepEqual(watch.judge([far], [far], PRESENCE_GRACE_MS + 500).gone, [], 'a claimant still reconnecting is not judged at once');
    assert.deepEqual(watch.judge([far], [far], 2 * PRESENCE_GRACE_MS + 500).gone, [far]);
  });

  it('starts the absence afresh when the looks at it were too far apart to make it one', () => {
    const watch = new ClaimantWatch('web-1', () => true);
    const far = 'web-2:4242:a1b2c3d4';
    watch.judge([far], [far], 0);
    assert.deepEqual(watch.judge([far], [far], PRESENCE_LOOK_GAP_MS + 1).gone, [], 'held in between, for all this watch knows');
    assert.deepEqual(watch.judge([far], [far], PRESENCE_LOOK_GAP_MS + 1 + PRESENCE_GRACE_MS).gone, [far]);
  });
});

describe('verify decisions', () => {
  it('resolve a confirmed prediction as observed at the time of the observation, not of the commit that follows', () => {
    const prediction: PredictionRecord = {
      id: 'prediction-1',
      mindId: 'mind-1',
      intentionId: null,
      planId: 'plan-1',
      stepId: 'step-1',
      beliefId: null,
      executionId: null,
      eventId: null,
      statement: 'atlas-worker is active',
      verification: {},
      confidence: 0.8,
      windowOpensAt: T0,
      windowClosesAt: at(60),
      status: 'open',
      outcome: null,
      resolvedAt: null,
      createdAt: T0,
    };
    const decision = decideVerification(
      stepRecord({ kind: 'verify' }),
      prediction,
      { status: 'confirmed', note: 'held', observed: 'active' },
      { observation: { kind: 'held', observed: 'active' }, executionId: 'execution-1', raw: null },
      at(59),
    );
    assert.equal(decision.kind, 'complete');
    assert.deepEqual(decision.kind === 'complete' && decision.effects, [
      { type: 'resolve_prediction', predictionId: 'prediction-1', status: 'confirmed', observed: 'active', note: 'held', observedAt: at(59) },
    ]);
  });
});
