import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addSeconds } from '../../src/core/clock.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import type { StepRecord } from '../../src/store/index.ts';
import { decodeState, decodeStep, STATE_COLUMNS } from '../../src/store/repositories/steps.ts';
import { seedPlan, seedReadyStep } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`steps repository (${kind})`, () => {
    const current = useStore(kind);

    it('moves a step and sets the patch in the same update', async () => {
      const { store, clock } = current();
      const { plan } = await seedPlan(store);
      const step = plan.steps[0]!;
      clock.advance(3);
      const later = addSeconds(clock.now(), 60);
      await store.steps.move('promote', step.id, 'pending');
      const waiting = await store.steps.move('wait', step.id, ['ready', 'waiting'], {
        nextRunAt: later,
        statusReason: 'waiting for the window',
      });
      assert.equal(waiting?.status, 'waiting');
      assert.deepEqual(waiting?.nextRunAt, later);
      assert.equal(waiting?.statusReason, 'waiting for the window');
      assert.deepEqual(waiting?.updatedAt, clock.now());
      assert.equal(waiting?.finishedAt, null);

      const done = await store.steps.move('complete', step.id, 'waiting', {
        result: { observed: ['x', 1, true, null] },
        observation: { active_state: 'active' },
      });
      assert.deepEqual(done?.result, { observed: ['x', 1, true, null] });
      assert.deepEqual(done?.observation, { active_state: 'active' });
      assert.deepEqual(done?.finishedAt, clock.now(), 'a final status stamps finished_at');
      assert.deepEqual(await store.steps.get(step.id), done);
    });

    it('returns undefined and changes nothing when the step is not in a `from` status', async () => {
      const { store, clock } = current();
      const { plan } = await seedPlan(store);
      const step = plan.steps[0]!;
      clock.advance(10);
      assert.equal(await store.steps.move('claim', step.id, 'ready', { error: 'x' }), undefined);
      assert.equal(await store.steps.move('fail', step.id, ['executing', 'waiting'], { error: 'x' }), undefined);
      assert.deepEqual(await store.steps.get(step.id), step, 'not even updated_at moved');
      assert.equal(await store.steps.move('promote', '00000000-0000-7000-8000-000000000000', 'pending'), undefined);
    });

    it('lets a claim win exactly once and counts the attempt in SQL', async () => {
      const { store, clock } = current();
      const { stepId } = await seedReadyStep(store);
      clock.advance(1);
      const now = clock.now();
      const claimed = await store.steps.claim(stepId, { leaseSeconds: 90 });
      assert.ok(claimed);
      assert.equal(claimed.status, 'executing');
      assert.equal(claimed.attempts, 1);
      assert.deepEqual(claimed.startedAt, now);
      assert.deepEqual(claimed.leaseUntil, addSeconds(now, 90));
      assert.deepEqual(claimed.nextRunAt, claimed.leaseUntil, 'due again for recovery when the lease runs out');
      assert.equal(await store.steps.claim(stepId, { leaseSeconds: 90 }), undefined);
      assert.equal((await store.steps.get(stepId))?.attempts, 1);

      // A retry goes back to ready and is claimed again: the counter keeps counting.
      await store.steps.move('retry', stepId, 'executing', { leaseUntil: null, nextRunAt: null });
      assert.equal((await store.steps.claim(stepId, { leaseSeconds: 90 }))?.attempts, 2);
      await assert.rejects(store.steps.claim(stepId, { leaseSeconds: 0 }), /leaseSeconds/);
    });

    it('does not claim a pending step or a ready one whose next run has not come', async () => {
      const { store, clock } = current();
      const { plan } = await seedPlan(store);
      const step = plan.steps[0]!;
      assert.equal(await store.steps.claim(step.id, { leaseSeconds: 30 }), undefined);
      await store.steps.move('promote', step.id, 'pending', { nextRunAt: addSeconds(clock.now(), 30) });
      assert.equal(await store.steps.claim(step.id, { leaseSeconds: 30 }), undefined);
      clock.advance(30);
      assert.equal((await store.steps.claim(step.id, { leaseSeconds: 30 }))?.status, 'executing');
    });

    it('applies guards: only the lease holder moves the step, and only a lapsed lease is taken over', async () => {
      const { store, clock } = current();
      const { stepId } = await seedReadyStep(store);
      const claim = await store.steps.claim(stepId, { leaseSeconds: 60 });
      assert.ok(claim?.leaseUntil);

      const stale = addSeconds(claim.leaseUntil, -1);
      assert.equal(await store.steps.move('complete', stepId, 'executing', {}, { leaseUntil: stale }), undefined);
      assert.equal(await store.steps.move('complete', stepId, 'executing', {}, { leaseUntil: null }), undefined);
      assert.equal(await store.steps.move('complete', stepId, 'executing', {}, { attempts: 2 }), undefined);

      clock.advance(30);
      const takeOver = { leaseExpiredBy: clock.now() };
      assert.equal(await store.steps.move('block', stepId, 'executing', {}, takeOver), undefined, 'lease still held');
      clock.advance(30);
      const blocked = await store.steps.move('block', stepId, 'executing', { statusReason: 'outcome_unverified', leaseUntil: null }, { leaseExpiredBy: clock.now(), attempts: 1 });
      assert.equal(blocked?.status, 'blocked');
      assert.equal(blocked?.leaseUntil, null);
      assert.equal(await store.steps.move('complete', stepId, 'executing', {}, { leaseUntil: claim.leaseUntil }), undefined, 'the old holder lost the step');
    });

    it("lists a plan's steps in position order", async () => {
      const { store } = current();
      const { plan } = await seedPlan(store);
      assert.deepEqual(
        (await store.steps.listByPlan(plan.id)).map((s) => s.position),
        [0, 1, 2, 3],
      );
    });

    it('moves many steps in one statement per shape, each exactly as its own transition would', async () => {
      const { store, clock, config } = current();
      // Two identical plans: one moved step by step, the other with moveMany; the results must match.
      const twoReady = async () => {
        const { plan } = await seedPlan(store);
        for (const s of plan.steps) await store.steps.move('promote', s.id, 'pending');
        return plan.steps.map((s) => s.id);
      };
      const alone = await twoReady();
      const together = await twoReady();
      clock.advance(5);
      const due = clock.now();
      const movesOf = (ids: string[]) => [
        {
          id: ids[0]!,
          verb: 'complete' as const,
          from: 'ready' as const,
          patch: {
            countAttempt: true,
            leaseUntil: null,
            nextRunAt: null,
            result: { ok: [1, 'a'] },
            observation: { state: 'active' },
            executionId: '00000000-0000-7000-8000-0000000000e1',
            statusReason: 'read',
          },
          guard: { dueBy: due },
        },
        {
          id: ids[1]!,
          verb: 'complete' as const,
          from: 'ready' as const,
          patch: { countAttempt: true, leaseUntil: null, nextRunAt: null, result: { ok: [2] }, observation: null, executionId: '00000000-0000-7000-8000-0000000000e2', statusReason: 'read again' },
          guard: { dueBy: due },
        },
      ];
      const extra = (ids: string[]) => [
        // Another shape in the same call: a write that keeps the status, guarded on an unset lease.
        { id: ids[0]!, verb: 'link' as const, from: 'completed' as const, patch: { claimedBy: 'x' }, guard: { leaseUntil: null } },
      ];
      const expected = [];
      for (const m of movesOf(alone)) expected.push(await store.steps.move(m.verb, m.id, m.from, m.patch, m.guard));
      const statements: string[] = [];
      const observed = await openStore(config, { clock, observeQuery: (text) => statements.push(text) });
      try {
        const got = await observed.steps.moveMany(movesOf(together));
        assert.equal(statements.length, 1, 'one statement for two moves of one shape');
        const strip = (s: StepRecord | undefined) => s && { ...s, id: '', planId: '', mindId: '', createdAt: null, updatedAt: s.updatedAt };
        assert.deepEqual(got.map(strip), expected.map(strip));
        for (const [i, s] of got.entries()) assert.deepEqual(await store.steps.get(together[i]!), s, 'the answer is the stored row');
        // A completed step is not in `ready` any more, nor is its lease unset with another shape asked alongside: both lose.
        clock.advance(1);
        const again = await observed.steps.moveMany([...movesOf(together), ...extra(together)]);
        assert.deepEqual(
          again.map((s) => s?.status),
          [undefined, undefined, 'completed'],
          'the lost moves are undefined; the other shape moved',
        );
        assert.equal((await store.steps.get(together[1]!))?.statusReason, 'read again', 'a lost move changed nothing');
      } finally {
        await observed.close();
      }
    });

    it('makes a moved step from the step as read, with what others wrote since, and returns only state', async () => {
      const { store, clock, config } = current();
      const { plan } = await seedPlan(store);
      const read: StepRecord[] = [];
      for (const s of plan.steps) read.push((await store.steps.move('promote', s.id, 'pending'))!);
      // Written by someone else after the reading, without a move: a linked prediction and a new status reason.
      await store.steps.link(read[1]!.id, 'ready', { predictionId: '00000000-0000-7000-8000-0000000000f1', statusReason: 'looked at' });
      clock.advance(3);
      const due = clock.now();
      const complete = (step: StepRecord, n: number) => ({
        id: step.id,
        verb: 'complete' as const,
        from: 'ready' as const,
        patch: {
          countAttempt: true,
          leaseUntil: null,
          nextRunAt: null,
          result: { n, list: [n, 'x'] },
          observation: { state: 'active' },
          executionId: `00000000-0000-7000-8000-00000000000${n}`,
          statusReason: 'read',
        },
        guard: { dueBy: due },
        known: step,
      });
      const statements: string[] = [];
      const observed = await openStore(config, { clock, observeQuery: (text) => statements.push(text) });
      try {
        const got = await observed.steps.moveMany([complete(read[0]!, 1), complete(read[1]!, 2), complete(read[2]!, 3)]);
        assert.equal(statements.length, 1);
        const returning = statements[0]!.slice(statements[0]!.lastIndexOf('returning'));
        for (const definition of ['spec', 'title', 'expectation', 'depends_on', 'result']) assert.doesNotMatch(returning, new RegExp(`"${definition}"`), `${definition} is not read back`);
        assert.match(returning, /"prediction_id"/);
        for (const [i, s] of got.entries()) assert.deepEqual(s, await store.steps.get(read[i]!.id), 'the answer is the stored row');
        assert.equal(got[1]?.predictionId, '00000000-0000-7000-8000-0000000000f1', 'a link made since the reading shows');
        assert.equal(got[1]?.attempts, 1);
        // A move that lost is undefined, known or not.
        assert.deepEqual(await observed.steps.moveMany([complete(read[0]!, 1), complete(read[1]!, 2)]), [undefined, undefined]);
      } finally {
        await observed.close();
      }
    });

    it("reads a step's state columns as decodeStep does, and every other column is its definition", async () => {
      const { store } = current();
      const { stepId } = await seedReadyStep(store);
      await store.steps.move('complete', stepId, 'ready', { countAttempt: true, result: { a: 1 }, observation: null, executionId: '00000000-0000-7000-8000-0000000000e9', statusReason: 'done' });
      const row = await store.db.selectFrom('plan_steps').selectAll().where('id', '=', stepId).executeTakeFirstOrThrow();
      const whole = decodeStep(row, store.codec) as unknown as Record<string, unknown>;
      const state = decodeState(row, store.codec) as Record<string, unknown>;
      assert.deepEqual(state, Object.fromEntries(Object.keys(state).map((field) => [field, whole[field]])));
      // What a step is and never stops being: written with its plan, set by no writer since.
      const definition = [
        'id',
        'plan_id',
        'mind_id',
        'key',
        'position',
        'title',
        'kind',
        'depends_on',
        'capability',
        'require_approval',
        'expectation',
        'precondition',
        'spec',
        'max_attempts',
        'created_at',
        // 0019: the mind's host, which never changes.
        'host',
      ];
      assert.deepEqual(
        Object.keys(row)
          .filter((column) => !(column in STATE_COLUMNS))
          .sort(),
        definition.sort(),
      );
    });

    it('gives one winner to 20 concurrent claims from 4 connections', async () => {
      const { store, config, clock } = current();
      const { stepId } = await seedReadyStep(store);
      const stores: Store[] = [];
      try {
        for (let i = 0; i < 4; i++) stores.push(await openStore(config, { clock }));
        const claims = Array.from({ length: 20 }, (_, i) => stores[i % 4]!.steps.claim(stepId, { leaseSeconds: 60 }));
        const winners = (await Promise.all(claims)).filter((c) => c !== undefined);
        assert.equal(winners.length, 1);
        const step = await store.steps.get(stepId);
        assert.equal(step?.status, 'executing');
        assert.equal(step?.attempts, 1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });
  });
}
