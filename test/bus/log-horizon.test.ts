// How far a reader may walk the event log (src/bus/log-horizon.ts): up to a seq still in flight,
// and past a gap only once it has stayed open for the grace.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogHorizon, openingPlace } from '../../src/bus/log-horizon.ts';

/** Seqs whose events were written at `at` (ms). */
const written = (at: number, ...seqs: number[]) => seqs.map((seq) => ({ seq, at }));

describe('the log horizon', () => {
  it('moves through consecutive seqs and stops before a missing one', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(10, written(0, 11, 12, 13), 0), 13);
    assert.equal(horizon.through(13, written(0, 14, 16, 17), 0), 14, 'seq 15 may still be in flight');
    assert.equal(horizon.through(14, written(0, 16, 17), 5_000), 14, 'still within the grace');
    assert.equal(horizon.through(14, written(0, 15, 16, 17), 6_000), 17, 'it committed: read in order');
    assert.equal(horizon.through(17, [], 6_000), 17);
  });

  it('steps over a gap once the grace from when the seq after it was written has run out', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(0, written(1_000, 3, 4), 1_000), 0);
    assert.equal(horizon.through(0, written(1_000, 3, 4), 10_999), 0);
    assert.equal(horizon.through(0, [...written(1_000, 3, 4), ...written(11_000, 6)], 11_000), 4, 'seqs 1 and 2 given up on, seq 5 newly missing');
    assert.equal(horizon.through(4, written(11_000, 6), 20_999), 4);
    assert.equal(horizon.through(4, written(11_000, 6), 21_000), 6);
  });

  it('passes gaps met long after they opened at once, each by the time of the seq after it', () => {
    // A reader resuming from seq 1 an hour later (a stream's Last-Event-ID, a follower taking a
    // cursor over): it waited the whole grace at each of them, one after another.
    const hour = 3_600_000;
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(1, [...written(0, 3, 5, 7), ...written(hour - 4_000, 9, 10)], hour), 7, 'the old gaps passed, the recent one (8) waited for');
    assert.equal(horizon.through(7, written(hour - 4_000, 9, 10), hour + 5_999), 7);
    assert.equal(horizon.through(7, written(hour - 4_000, 9, 10), hour + 6_000), 10, 'its grace counted from when 9 was written');
  });

  it('waits no longer than the grace from now for a seq whose next one has a time ahead of its clock', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(0, written(60_000, 2), 0), 0);
    assert.equal(horizon.through(0, written(60_000, 2), 10_000), 2);
  });

  it('forgets a gap once past it, so a later gap at the same place waits its own grace', () => {
    const horizon = new LogHorizon(10_000);
    assert.equal(horizon.through(0, written(0, 2), 0), 0);
    assert.equal(horizon.through(0, written(0, 1, 2), 1_000), 2);
    // A reader that starts again from 0 (another feed would have its own horizon) waits anew.
    assert.equal(horizon.through(0, written(50_000, 2), 50_000), 0);
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
    assert.equal(horizon.through(11, [at(13, 98_000), at(14, 99_000)], 100_000), 11, 'waits for it');
    assert.equal(horizon.through(11, [at(13, 98_000), at(14, 99_000)], 108_000), 14, 'and gives it up once the grace from then ran out');
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
