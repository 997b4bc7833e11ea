// The steps an executor's side-by-side passes hold: a pass takes only steps no other pass holds,
// of plans no other pass is moving, and lets them go once its pass is done.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InFlight } from '../../src/execution/in-flight.ts';

const step = (id: string, planId: string) => ({ id, planId });

describe('steps held by side-by-side passes', () => {
  it('gives a second pass neither the first pass’s steps nor other steps of their plans', () => {
    const held = new InFlight();
    const first = held.take([step('a1', 'A'), step('b1', 'B')], 10);
    assert.deepEqual(
      first.map((s) => s.id),
      ['a1', 'b1'],
    );
    assert.equal(held.size, 2);
    // The due query, run again while the first pass works, finds its steps and a promoted sibling.
    const second = held.take([step('a1', 'A'), step('a2', 'A'), step('b1', 'B'), step('c1', 'C'), step('d1', 'D')], 10);
    assert.deepEqual(
      second.map((s) => s.id),
      ['c1', 'd1'],
    );
    assert.equal(held.size, 4);
  });

  it('takes at most the limit, in the order found, and a plan’s steps found together go to one pass', () => {
    const held = new InFlight();
    const taken = held.take([step('a1', 'A'), step('a2', 'A'), step('b1', 'B'), step('c1', 'C')], 3);
    assert.deepEqual(
      taken.map((s) => s.id),
      ['a1', 'a2', 'b1'],
    );
    assert.deepEqual(
      held.take([step('c1', 'C'), step('b2', 'B')], 3).map((s) => s.id),
      ['c1'],
    );
  });

  it('frees a plan once every step a pass held of it is let go', () => {
    const held = new InFlight();
    const taken = held.take([step('a1', 'A'), step('a2', 'A')], 10);
    held.release([taken[0]!]);
    assert.deepEqual(held.take([step('a3', 'A')], 10), [], 'a2 still holds plan A');
    held.release([taken[1]!]);
    assert.equal(held.size, 0);
    assert.deepEqual(
      held.take([step('a3', 'A')], 10).map((s) => s.id),
      ['a3'],
    );
    // Letting go of a step twice, or of one never taken, changes nothing.
    held.release([taken[1]!, step('zz', 'Z')]);
    assert.equal(held.size, 1);
  });
});
