// How far a reader may walk the event log (src/bus/log-horizon.ts): up to a seq still in flight,
// and past a gap only once it has stayed open for the grace.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogHorizon, openingPlace } from '../../src/bus/log-horizon.ts';

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

  it('times every gap of a read from when it was first seen, so several old ones cost one grace, not one each', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(1, [3, 5, 7], 0), 1);
    assert.equal(horizon.through(1, [3, 5, 7], 9_999), 1);
    assert.equal(horizon.through(1, [3, 5, 7], 10_000), 7, 'seqs 2, 4 and 6 given up on together');
    // A gap that opens later waits its own grace, and one that fills in is read in order.
    assert.equal(horizon.through(7, [9, 11], 10_000), 7);
    assert.equal(horizon.through(7, [8, 9, 11], 15_000), 9, 'seq 8 committed; 10 waits for its grace');
    assert.equal(horizon.through(9, [11], 19_999), 9);
    assert.equal(horizon.through(9, [11], 20_000), 11);
  });

  it('forgets a gap once past it, so a later gap at the same place waits its own grace', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(0, [2], 0), 0);
    assert.equal(horizon.through(0, [1, 2], 1_000), 2);
    // A reader that starts again from 0 (another feed would have its own horizon) waits anew.
    assert.equal(horizon.through(0, [2], 50_000), 0);
  });
});

describe('where a live reader starts (openingPlace)', () => {
  const at = (seq: number, ms: number) => ({ seq, at: ms });

  it('starts after the newest seq when nothing below it may still commit', () => {
    const place = openingPlace(14, 10, [at(11, 0), at(12, 0), at(13, 0), at(14, 0)], 100_000);
    assert.deepEqual(place, { after: 14, seen: new Set(), gaps: new Map() });
  });

  it('starts before a recent gap, waits for it, and passes the events written before it started', () => {
    // 12 is missing and 13 was written 2 s ago: the insert that took 12 may still commit.
    const place = openingPlace(14, 10, [at(11, 90_000), at(13, 98_000), at(14, 99_000)], 100_000);
    assert.equal(place.after, 11);
    assert.deepEqual([...place.seen], [13, 14], 'written before the reader started: not sent');
    assert.deepEqual([...place.gaps], [[12, 98_000]], 'its grace counts from when the seq after it was written');
    const horizon = new LogHorizon(10_000, place.gaps);
    assert.equal(horizon.through(11, [13, 14], 100_000), 11, 'waits for it');
    assert.equal(horizon.through(11, [13, 14], 108_000), 14, 'and gives it up once the grace from then ran out');
  });

  it('takes a gap whose next seq was written longer ago than the grace for a rolled-back insert', () => {
    const place = openingPlace(14, 10, [at(11, 0), at(13, 50_000), at(14, 99_000)], 100_000);
    assert.deepEqual(place, { after: 14, seen: new Set(), gaps: new Map() });
  });

  it('looks only below the newest seq it was given, and at the window it read', () => {
    // The window starts after 10: seqs at or below it are not its business; 16 came after `latest`.
    const place = openingPlace(14, 10, [at(12, 99_000), at(13, 99_000), at(14, 99_000), at(16, 99_000)], 100_000);
    assert.equal(place.after, 10, '11 is missing and recent');
    assert.deepEqual([...place.seen], [12, 13, 14]);
    assert.deepEqual([...place.gaps.keys()], [11]);
  });
});
