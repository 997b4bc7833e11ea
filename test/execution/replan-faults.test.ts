// Replanning when something goes wrong on the way: a fault between the plan's move to
// `replanning` and the record of what failed, and a model that refuses to plan.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelReply, ModelRole } from '../../src/drafting/model-role.ts';
import { planIntention } from '../../src/drafting/plan-intention.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import { formIntention } from '../../src/mind/intentions.ts';
import type { Repositories, Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { draftOf, restartPlan, step, UNIT, type World, useWorlds } from './support.ts';

function restarts(world: World): number {
  return (world.host?.calls() ?? []).filter((c) => c.program === 'systemctl' && c.argv[0] === 'restart').length;
}

/** A simulated world whose atlas-worker fails again after every restart, which policy allows. */
async function unitThatStaysFailed(world: (options: { simulated: true }) => Promise<World>): Promise<World> {
  const w = await world({ simulated: true });
  w.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'failed', delay_seconds: 2 } });
  await w.allow('service.restart');
  return w;
}

/** Passes until there is nothing to do, then `rounds` times: the clock moved by `seconds` and passes again. */
async function runFor(w: World, executor: { drain(): Promise<unknown> }, rounds: number, seconds: number): Promise<void> {
  await executor.drain();
  for (let i = 0; i < rounds; i += 1) {
    w.advance(seconds);
    await executor.drain();
  }
}

/**
 * Makes the next `reconsideration` event fail to be written, once, wherever it is appended (in a
 * transaction or on its own): the connection dropping, or the process dying, at that moment.
 */
function failNextReconsideration(store: Store): { failed: () => boolean } {
  let armed = true;
  const faulty = (events: Repositories['events']): Repositories['events'] =>
    new Proxy(events, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        if (key !== 'append') return value.bind(target);
        return (event: { type: string }, ...rest: unknown[]) => {
          if (armed && event.type === 'reconsideration') {
            armed = false;
            return Promise.reject(new Error('connection lost writing the reconsideration'));
          }
          return value.call(target, event, ...rest);
        };
      },
    });
  const transaction = store.transaction.bind(store);
  store.transaction = (work) => transaction((tx) => work(armed ? { ...tx, events: faulty(tx.events) } : tx));
  (store as { events: Repositories['events'] }).events = faulty(store.events);
  return { failed: () => !armed };
}

function refusingModel(): ModelRole & { calls: number } {
  const model = {
    model: 'fake',
    baseUrl: 'http://127.0.0.1:1/v1',
    calls: 0,
    async complete(): Promise<ModelReply> {
      model.calls += 1;
      return { outcome: 'answered', content: '{"refuse": "I will not plan this"}', message: '', statusCode: 200, finishReason: 'stop', promptTokens: 10, completionTokens: 5, latencyMs: 1 };
    },
  };
  return model;
}

for (const kind of STORE_KINDS) {
  describe(`replanning faults (${kind})`, () => {
    const current = useStore(kind);
    const world = useWorlds(current);

    it('a fault before the reconsideration is recorded leaves the plan as it was, and the replan that follows never repeats the refuted restart', async () => {
      const w = await unitThatStaysFailed(world);
      const formed = await formIntention(w.store, { mindId: w.mind.id, means: { capability: 'service.restart', target: UNIT, params: { unit: UNIT } }, origin: 'operator' });
      assert.ok(formed.ok);
      const intentionId = formed.intention.id;
      const planning = { registry: w.registry };
      assert.equal((await planIntention(w.store, planning, intentionId)).status, 'planned');
      const fault = failNextReconsideration(w.store);
      const executor = w.executor({ planning });

      // The restart runs, its verify is refuted, and writing the reconsideration fails. Then
      // time passes beyond the stalled-replan period, with passes all along.
      await runFor(w, executor, 40, 10);
      assert.ok(fault.failed(), 'the fault was met');
      const logged = w.errors.splice(0);
      assert.ok(
        logged.some((e) => e.includes('connection lost writing the reconsideration')),
        logged.join('\n'),
      );

      const plans = await w.store.plans.listByIntention(intentionId);
      assert.deepEqual(
        plans.map((p) => [p.revision, p.strategy, p.status]),
        [
          [1, 'direct', 'superseded'],
          [2, 'diagnose_then_escalate', 'awaiting_approval'],
        ],
      );
      assert.equal(restarts(w), 1, 'the refuted restart is never run again');
      const reconsiderations = (await w.store.events.list({ intentionId, limit: 1000 })).filter((e) => e.type === 'reconsideration');
      assert.equal(reconsiderations.length, 1);
      assert.deepEqual(reconsiderations[0]?.data.failed_strategies, ['direct']);
    });

    it('a model that refuses to plan a replan counts as a failed strategy: the intention is abandoned, not asked again every stalled-replan period', async () => {
      const model = refusingModel();
      const w = await world();
      // The write is denied, so the operator's plan fails; only the model could plan this objective.
      await w.store.policyRules.set({ mindId: w.mind.id, capability: 'test.write', targetPattern: '*', decision: 'deny', approvers: 1 });
      const { plan, intention } = await w.plan(draftOf([step('W1', { kind: 'capability', capability: 'test.write', params: { name: 'w1' } })], { objective: 'write a short poem about the logs' }));
      const executor = w.executor({ planning: { registry: w.registry, model } });

      await runFor(w, executor, 5, 301);
      assert.equal(model.calls, 1, 'the model was asked once');
      assert.equal((await w.store.plans.get(plan.id))?.status, 'failed');
      const after = await w.store.intentions.get(intention.id);
      assert.equal(after?.status, 'abandoned');
      assert.equal(after?.reason, 'no_possible_plan');
      const events = await w.store.events.list({ intentionId: intention.id, limit: 1000 });
      const reconsiderations = events.filter((e) => e.type === 'reconsideration');
      assert.deepEqual(
        reconsiderations.map((e) => [e.data.strategy, e.data.decision, e.data.failed_strategies]),
        [
          ['operator', 'replan', ['operator']],
          ['model', 'abandon', ['operator', 'model']],
        ],
      );
      assert.equal(events.filter((e) => e.type === 'plan_rejected').length, 1);
    });

    it("an agent's refuted restart is replanned to diagnose and escalate: the planner's direct restart would repeat it, so it does not apply", async () => {
      const w = await unitThatStaysFailed(world);
      const formed = await formIntention(w.store, { mindId: w.mind.id, means: { capability: 'service.restart', target: UNIT, params: { unit: UNIT } }, origin: 'operator' });
      assert.ok(formed.ok);
      const intentionId = formed.intention.id;
      const submitted = await submitPlan(w.store, w.registry, { mindId: w.mind.id, origin: 'model', intentionId, onlyPlan: true, input: restartPlan() });
      assert.ok(submitted.stored, submitted.stored ? '' : submitted.reason);
      const executor = w.executor({ planning: { registry: w.registry } });
      await runFor(w, executor, 10, 10);
      const plans = await w.store.plans.listByIntention(intentionId);
      assert.deepEqual(
        plans.map((p) => [p.revision, p.strategy, p.status]),
        [
          [1, 'model', 'superseded'],
          [2, 'diagnose_then_escalate', 'awaiting_approval'],
        ],
      );
      assert.equal(restarts(w), 1, 'the refuted restart is not made again');
      const [reconsideration] = (await w.store.events.list({ intentionId, limit: 1000 })).filter((e) => e.type === 'reconsideration');
      assert.deepEqual(reconsideration?.data.strategies_left, ['diagnose_then_escalate']);
    });

    it("a model's replan kept as a draft (it repeats the refuted restart) does not leave the intention waiting on it: the model strategy has failed", async () => {
      const model = {
        model: 'fake',
        baseUrl: 'http://127.0.0.1:1/v1',
        calls: 0,
        async complete(): Promise<ModelReply> {
          model.calls += 1;
          return { outcome: 'answered', content: JSON.stringify(restartPlan()), message: '', statusCode: 200, finishReason: 'stop', promptTokens: 10, completionTokens: 5, latencyMs: 1 };
        },
      };
      const w = await unitThatStaysFailed(world);
      // No deterministic strategy serves a free objective: only the model plans its replan.
      const { plan, intention } = await w.plan({ ...restartPlan(), objective: 'get the atlas worker going again' });
      const executor = w.executor({ planning: { registry: w.registry, model } });
      await runFor(w, executor, 10, 10);
      assert.equal(model.calls, 1);
      const plans = await w.store.plans.listByIntention(intention.id);
      assert.deepEqual(
        plans.map((p) => [p.revision, p.strategy, p.status]),
        [
          [1, 'direct', 'superseded'],
          [2, 'model', 'draft'],
        ],
      );
      assert.equal(plans[0]?.id, plan.id);
      const after = await w.store.intentions.get(intention.id);
      assert.deepEqual([after?.status, after?.reason], ['abandoned', 'no_possible_plan']);
      assert.equal(restarts(w), 1);
      const decisions = (await w.store.events.list({ intentionId: intention.id, limit: 1000 })).filter((e) => e.type === 'reconsideration').map((e) => [e.data.strategy, e.data.decision]);
      assert.deepEqual(decisions, [
        ['direct', 'replan'],
        ['model', 'abandon'],
      ]);
    });
  });
}
