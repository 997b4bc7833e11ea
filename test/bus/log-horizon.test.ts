// How far a reader may walk the event log (src/bus/log-horizon.ts): up to a seq still in flight,
// and past a gap only once it has stayed open for the grace.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogHorizon } from '../../src/bus/log-horizon.ts';

describe('the log horizon', () => {
  it('moves through consecutive seqs and stops before a missing one', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(10, [11, 12, 13], 0), 13);
    assert.equal(horizon.through(13, [14, 16, 17], 0), 14, 'seq 15 may still be in flight');
    assert.equal(horizon.through(14, [16, 17], 5_000), 14, 'still within the grace');
    assert.equal(horizon.through(14, [15, 16, 17], 6_000), 17, 'it committed: read in order');
    assert.equal(horizon.through(17, [], 6_000), 17);
  });

  it('steps over a gap that stayed open for the grace, timed from when it was first seen', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(0, [3, 4], 1_000), 0);
    assert.equal(horizon.through(0, [3, 4], 10_999), 0);
    assert.equal(horizon.through(0, [3, 4, 6], 11_000), 4, 'seqs 1 and 2 given up on, seq 5 newly missing');
    assert.equal(horizon.through(4, [6], 20_999), 4);
    assert.equal(horizon.through(4, [6], 21_000), 6);
  });

  it('forgets a gap once past it, so a later gap at the same place waits its own grace', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(0, [2], 0), 0);
    assert.equal(horizon.through(0, [1, 2], 1_000), 2);
    // A reader that starts again from 0 (another feed would have its own horizon) waits anew.
    assert.equal(horizon.through(0, [2], 50_000), 0);
  });
});
