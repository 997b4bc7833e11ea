import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { newId } from '../../src/core/ids.ts';
import type { PlanWithSteps } from '../../src/store/repositories/plans.ts';
import { passingValidation, sampleDraft, seedPlan } from '../support/fixtures.ts';
import { STORE_KINDS, openTestStore, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`plans repository (${kind})`, () => {
    const current = useStore(kind);

    it('stores a plan with its steps and reads them back as they were written', async () => {
      const { store, clock } = current();
      const draft = sampleDraft();
      const { mind, intention, plan } = await seedPlan(store, draft);
      const now = clock.now();

      const read = await store.plans.get(plan.id);
      assert.deepEqual(read, plan, 'create returns what get reads');
      assert.ok(read);
      assert.equal(read.mindId, mind.id);
      assert.equal(read.intentionId, intention.id);
      assert.equal(read.status, 'validated');
      assert.equal(read.origin, 'operator');
      assert.equal(read.revision, 1);
      assert.equal(read.supersedes, null);
      assert.equal(read.objective, draft.objective);
      assert.equal(read.strategy, draft.strategy);
      assert.deepEqual(read.assumptions, draft.assumptions);
      // Words are kept as display_only; a condition without words gets Praxis's.
      assert.deepEqual(read.abortConditions, [
        { when: 'display_only', statement: 'an operator says stop' },
        { when: 'step_failed', step: 'restart', statement: 'the restart is refused' },
        { when: 'expectation_refuted', step: 'verify', statement: 'verify refutes its expectation' },
      ]);
      assert.deepEqual(read.alternatives, draft.alternatives);
      assert.deepEqual(read.budget, draft.budget);
      assert.deepEqual(read.validation, passingValidation());
      assert.deepEqual(read.estimate, passingValidation().estimate, 'the computed estimate, not the draft claim');
      assert.deepEqual(read.actual, {});
      assert.equal(read.requireApproval, false);
      assert.equal(read.maxReplans, 3);
      assert.equal(read.closedAt, null);
      assert.deepEqual(read.createdAt, now);
      assert.ok(read.createdAt instanceof Date);

      assert.deepEqual(
        read.steps.map((s) => s.key),
        draft.steps.map((s) => s.key),
      );
      read.steps.forEach((step, position) => {
        const source = draft.steps[position]!;
        assert.equal(step.position, position);
        assert.equal(step.planId, plan.id);
        assert.equal(step.mindId, mind.id);
        assert.equal(step.status, 'pending');
        assert.equal(step.attempts, 0);
        assert.equal(step.kind, source.kind);
        assert.equal(step.title, source.title);
        assert.deepEqual(step.dependsOn, source.depends_on);
        assert.equal(step.capability, source.capability);
        assert.equal(step.target, source.target);
        assert.deepEqual(step.params, source.params);
        assert.equal(step.requireApproval, source.require_approval);
        assert.deepEqual(step.expectation, source.expectation);
        assert.deepEqual(step.precondition, source.precondition);
        assert.deepEqual(step.spec, source.spec);
        assert.equal(step.maxAttempts, source.max_attempts);
        assert.equal(step.leaseUntil, null);
        assert.equal(step.result, null);
        assert.deepEqual(step.createdAt, now);
      });
    });

    it('refuses a draft with a repeated step key and stores nothing of it', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `mind-${newId()}` });
      const intention = await store.intentions.create({ mindId: mind.id, objective: 'o', origin: 'operator' });
      const draft = sampleDraft();
      draft.steps[2]!.key = 'check';
      await assert.rejects(
        store.plans.create({
          mindId: mind.id,
          intentionId: intention.id,
          origin: 'operator',
          draft,
          validation: passingValidation(),
          status: 'draft',
        }),
        /unique|plan_steps_plan_id_key_key/i,
      );
      assert.deepEqual(await store.plans.listByMind(mind.id), [], 'the plan row rolled back with its steps');
    });

    it('only stores a failed validation as a draft', async () => {
      const { store } = current();
      const { mind, intention } = await seedPlan(store);
      const failed = { ...passingValidation(), valid: false, errors: [{ code: 'dependency_cycle' as const, message: 'cycle', path: 'steps' }] };
      const base = { mindId: mind.id, intentionId: intention.id, origin: 'model' as const, draft: sampleDraft(), validation: failed };
      await assert.rejects(store.plans.create({ ...base, status: 'validated' }), /only be stored as a draft/);
      const draft = await store.plans.create({ ...base, status: 'draft', statusReason: 'invalid' });
      assert.equal(draft.status, 'draft');
      assert.equal(draft.statusReason, 'invalid');
      assert.equal(draft.validation.valid, false);
    });

    it('records replan revisions', async () => {
      const { store } = current();
      const { mind, intention, plan } = await seedPlan(store);
      const next = await store.plans.create({
        mindId: mind.id,
        intentionId: intention.id,
        origin: 'replan',
        revision: 2,
        supersedes: plan.id,
        draft: sampleDraft(),
        validation: passingValidation(),
        status: 'validated',
        requireApproval: true,
        maxReplans: 1,
      });
      const old = await store.plans.transition(plan.id, 'validated', 'superseded', { supersededBy: next.id });
      assert.equal(old?.supersededBy, next.id);
      assert.equal(next.supersedes, plan.id);
      assert.equal(next.revision, 2);
      assert.equal(next.requireApproval, true);
      assert.equal(next.maxReplans, 1);
    });

    it('moves a plan only from the expected status, and changes nothing otherwise', async () => {
      const { store, clock } = current();
      const { plan } = await seedPlan(store);
      const before = await store.plans.get(plan.id);
      clock.advance(5);
      assert.equal(await store.plans.transition(plan.id, 'executing', 'completed'), undefined);
      assert.equal(await store.plans.transition(plan.id, ['draft', 'blocked'], 'failed', { statusReason: 'x' }), undefined);
      assert.deepEqual(await store.plans.get(plan.id), before);

      const started = await store.plans.transition(plan.id, ['draft', 'validated'], 'executing');
      assert.equal(started?.status, 'executing');
      assert.deepEqual(started?.updatedAt, clock.now());
      assert.equal(started?.closedAt, null);
      clock.advance(5);
      const actual = { invocations: 2, wall_seconds: 12 };
      const done = await store.plans.transition(plan.id, 'executing', 'completed', { actual, statusReason: 'verified' });
      assert.equal(done?.status, 'completed');
      assert.deepEqual(done?.actual, actual);
      assert.deepEqual(done?.closedAt, clock.now(), 'closing a plan stamps closed_at');
      assert.equal(await store.plans.transition(plan.id, 'executing', 'failed'), undefined, 'the second closer loses');
    });

    it('completes many plans in one statement, each with its own use, and only those still running', async () => {
      const { store, clock } = current();
      const running = [(await seedPlan(store)).plan, (await seedPlan(store)).plan];
      const { plan: closed } = await seedPlan(store);
      for (const plan of [...running, closed]) await store.plans.transition(plan.id, 'validated', 'executing');
      await store.plans.transition(running[1]!.id, 'executing', 'waiting');
      await store.plans.pause([running[0]!.id], { by: 'alice', reason: 'look first' });
      await store.plans.transition(closed.id, 'executing', 'abandoned');
      clock.advance(5);
      const uses = new Map([
        [running[0]!.id, { invocations: 1 }],
        [running[1]!.id, { invocations: 3, wall_seconds: 40 }],
        [closed.id, { invocations: 9 }],
      ]);
      const done = await store.plans.completeMany(
        [...uses].map(([id, actual]) => ({ id, actual })),
        ['executing', 'waiting', 'awaiting_approval'],
      );
      assert.deepEqual(done.sort(), running.map((p) => p.id).sort(), 'the abandoned plan is left alone');
      for (const plan of running) {
        const read = (await store.plans.get(plan.id))!;
        assert.equal(read.status, 'completed');
        assert.deepEqual(read.actual, uses.get(plan.id));
        assert.deepEqual(read.closedAt, clock.now());
        assert.equal(read.pause, null, 'a closed plan holds no pause');
      }
      const untouched = (await store.plans.get(closed.id))!;
      assert.equal(untouched.status, 'abandoned');
      assert.deepEqual(untouched.actual, {});
      assert.deepEqual(await store.plans.completeMany([{ id: running[0]!.id, actual: { invocations: 7 } }], ['executing']), [], 'the second closer loses');
    });

    it("lists a mind's plans newest first, by status, a page at a time", async () => {
      const { store, clock } = current();
      const { mind, intention, plan: first } = await seedPlan(store);
      const more: PlanWithSteps[] = [];
      for (let i = 0; i < 3; i++) {
        clock.advance(1);
        more.push(
          await store.plans.create({
            mindId: mind.id,
            intentionId: intention.id,
            origin: 'template',
            draft: sampleDraft(),
            validation: passingValidation(),
            status: 'draft',
          }),
        );
      }
      const all = await store.plans.listByMind(mind.id);
      assert.deepEqual(
        all.map((p) => p.id),
        [...more]
          .reverse()
          .map((p) => p.id)
          .concat(first.id),
      );
      assert.equal('steps' in all[0]!, false, 'listing does not load steps');
      assert.deepEqual(
        (await store.plans.listByMind(mind.id, { status: 'validated' })).map((p) => p.id),
        [first.id],
      );
      assert.equal((await store.plans.listByMind(mind.id, { status: ['draft', 'validated'], limit: 2 })).length, 2);
      const page = await store.plans.listByMind(mind.id, { before: more[1]!.createdAt });
      assert.deepEqual(
        page.map((p) => p.id),
        [more[0]!.id, first.id],
      );
    });

    it('commits a store transaction as a whole or not at all', async () => {
      const { store } = current();
      const name = `mind-${newId()}`;
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.minds.create({ name });
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.equal(await store.minds.getByName(name), undefined);

      const seeded = await store.transaction(async (tx) => {
        const mind = await tx.minds.create({ name });
        const intention = await tx.intentions.create({ mindId: mind.id, objective: 'o', origin: 'operator' });
        // plans.create joins the surrounding transaction instead of opening its own.
        return tx.plans.create({
          mindId: mind.id,
          intentionId: intention.id,
          origin: 'operator',
          draft: sampleDraft(),
          validation: passingValidation(),
          status: 'validated',
        });
      });
      assert.deepEqual(await store.plans.get(seeded.id), seeded);
    });

    it('refuses JSON the other store could not hold', async () => {
      const { store } = current();
      const draft = sampleDraft();
      draft.steps[0]!.params = { unit: 'a\u0000b' };
      const { mind, intention } = await seedPlan(store);
      await assert.rejects(
        store.plans.create({
          mindId: mind.id,
          intentionId: intention.id,
          origin: 'operator',
          draft,
          validation: passingValidation(),
          status: 'draft',
        }),
        /NUL/,
      );
    });
  });
}

describe('plans read back identically from both stores', () => {
  it('decodes json, arrays, booleans and timestamps to the same values', async () => {
    const start = '2026-03-04T05:06:07.089Z';
    const opened = await Promise.all(STORE_KINDS.map((kind) => openTestStore(kind, { clock: new ManualClock(start) })));
    try {
      const reads = [];
      for (const { store, clock } of opened) {
        const { plan } = await seedPlan(store);
        const step = plan.steps[1]!;
        await store.steps.move('promote', step.id, 'pending', { nextRunAt: clock.now() });
        clock.advance(1);
        await store.steps.claim(step.id, { leaseSeconds: 30 });
        await store.steps.move('complete', step.id, 'executing', {
          result: { ok: true, lines: ['a', 'b'], n: 1.5, nothing: null },
          observation: 'active',
        });
        reads.push(withoutIds(await store.plans.get(plan.id)));
      }
      assert.deepEqual(reads[0], reads[1]);
    } finally {
      await Promise.all(opened.map((t) => t.dispose()));
    }
  });
});

/** Ids differ between the two stores by construction; everything else must not. */
function withoutIds(plan: PlanWithSteps | undefined) {
  assert.ok(plan);
  const { id: _id, mindId: _m, intentionId: _i, steps, ...rest } = plan;
  return {
    ...rest,
    steps: steps.map(({ id: _s, planId: _p, mindId: _sm, ...step }) => step),
  };
}
