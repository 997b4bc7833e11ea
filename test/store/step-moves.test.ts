// The step machine's table (src/core/step-moves.ts) is what the steps repository enforces: on
// both stores, every verb makes its move from every status the table lists, and is refused with
// IllegalStepMove from every other one before anything is written, singly and in a batch.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IllegalStepMove, STEP_MOVES, isLegalStepMove } from '../../src/core/step-moves.ts';
import { STEP_STATUSES, type StepStatus } from '../../src/core/vocabulary.ts';
import type { Store } from '../../src/store/index.ts';
import { seedReadyStep } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

/** Puts the step in `status` behind the repository's back, as a test's starting point. */
async function force(store: Store, stepId: string, status: StepStatus): Promise<void> {
  await store.db.updateTable('plan_steps').set({ status }).where('id', '=', stepId).execute();
}

const statusOf = async (store: Store, stepId: string) => (await store.steps.get(stepId))!.status;

const TERMINAL: readonly StepStatus[] = ['completed', 'failed', 'skipped', 'cancelled'];

describe('the step machine table', () => {
  it('has no way back: nothing leaves a terminal status and nothing returns to pending', () => {
    for (const rule of STEP_MOVES) {
      assert.notEqual(rule.to, 'pending', rule.verb);
      for (const from of rule.from) assert.ok(!TERMINAL.includes(from), `${rule.verb} leaves ${from}`);
    }
  });

  it('reaches every status but pending from the start, and lets every open status end', () => {
    const reached = new Set<StepStatus>(['pending']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const rule of STEP_MOVES) {
        if (!reached.has(rule.to) && rule.from.some((f) => reached.has(f))) {
          reached.add(rule.to);
          grew = true;
        }
      }
    }
    assert.deepEqual([...reached].sort(), [...STEP_STATUSES].sort());
    for (const status of STEP_STATUSES.filter((s) => !TERMINAL.includes(s))) {
      assert.ok(
        TERMINAL.some((end) => isLegalStepMove(status, end)),
        `${status} can end`,
      );
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`step moves in the repository (${kind})`, () => {
    const current = useStore(kind);

    it('makes every move the table lists by its verb, and refuses the verb from every other status before writing', async () => {
      const { store } = current();
      const { stepId } = await seedReadyStep(store);
      let made = 0;
      let refused = 0;
      for (const rule of STEP_MOVES) {
        for (const from of STEP_STATUSES) {
          await force(store, stepId, from);
          if (rule.from.includes(from)) {
            const moved = await store.steps.move(rule.verb, stepId, from);
            assert.equal(moved?.status, rule.to, `${rule.verb} from ${from} is in the table`);
            made += 1;
          } else {
            await assert.rejects(
              store.steps.move(rule.verb, stepId, from),
              (error: unknown) => error instanceof IllegalStepMove && error.from === from && error.to === rule.to && error.verb === rule.verb,
              `${rule.verb} from ${from}`,
            );
            assert.equal(await statusOf(store, stepId), from, `${rule.verb} from ${from} wrote nothing`);
            refused += 1;
          }
        }
      }
      assert.equal(
        made,
        STEP_MOVES.reduce((n, rule) => n + rule.from.length, 0),
      );
      assert.equal(made + refused, STEP_MOVES.length * STEP_STATUSES.length);
    });

    it('has a verb for every legal pair of statuses and none for any other', () => {
      for (const from of STEP_STATUSES) {
        for (const to of STEP_STATUSES) {
          if (from === to) continue;
          const verbs = STEP_MOVES.filter((rule) => rule.to === to && rule.from.includes(from));
          assert.equal(verbs.length > 0, isLegalStepMove(from, to), `${from} -> ${to}`);
        }
      }
    });

    it('refuses a batch with one illegal move whole, and a write that keeps the status is no move', async () => {
      const { store } = current();
      const a = await seedReadyStep(store);
      const b = await seedReadyStep(store);
      await force(store, b.stepId, 'completed');
      await assert.rejects(
        store.steps.moveMany([
          { id: a.stepId, verb: 'complete', from: 'ready', patch: {}, guard: {} },
          { id: b.stepId, verb: 'retry', from: 'completed', patch: {}, guard: {} },
        ]),
        IllegalStepMove,
      );
      assert.equal(await statusOf(store, a.stepId), 'ready', 'the legal move of the batch was not written either');
      assert.equal(await statusOf(store, b.stepId), 'completed');
      // Linking a record to a finished step writes it without moving it.
      const linked = await store.steps.link(b.stepId, 'completed', { statusReason: 'linked' });
      assert.equal(linked?.statusReason, 'linked');
    });
  });
}
