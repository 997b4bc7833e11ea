// A reader that meets several rolled-back seqs long after they were left missing (a stream
// resuming from Last-Event-ID, a follower taking a cursor over) waits one grace for them all:
// every gap of a read starts its grace when first seen (src/bus/log-horizon.ts). It waited the
// whole 10 s grace at each of them, one after another: three gaps made 30 s before the last event
// was read.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { EventFollower } from '../../src/bus/follower.ts';
import { LogWalk } from '../../src/bus/log-walk.ts';
import { newId } from '../../src/core/ids.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

/** Writes an event with its seq, as a log whose other inserts were rolled back holds it. */
function writeWithSeq(store: Store, seq: number): Promise<unknown> {
  return store.db
    .insertInto('events')
    .values({ seq, id: newId(), type: 'operator_note', mind_id: null, data: JSON.stringify({ seq }), created_at: store.clock.now().toISOString() })
    .execute();
}

/** PostgreSQL's sequence is told of seqs written by hand, so later appends go on after them. */
async function catchUpSequence(store: Store): Promise<void> {
  if (store.kind === 'postgres') await sql`select setval(pg_get_serial_sequence('events', 'seq'), (select max(seq) from events))`.execute(store.db);
}

/** Seqs start + 1, + 3, + 5 and + 7 written, + 2, + 4 and + 6 rolled back, then an hour passes. */
async function logWithOldGaps(store: Store, advance: (seconds: number) => void): Promise<number> {
  const start = await store.events.latestSeq();
  for (const offset of [1, 3, 5, 7]) await writeWithSeq(store, start + offset);
  await catchUpSequence(store);
  advance(3600);
  return start;
}

for (const kind of STORE_KINDS) {
  describe(`rolled-back seqs met long after (${kind})`, () => {
    const current = useStore(kind);

    it('a walk from before them reads past all of them after one grace, and waits for a newer one its own (postgres), or at once (sqlite)', async () => {
      const { store, clock } = current();
      const start = await logWithOldGaps(store, (seconds) => clock.advance(seconds));
      const walk = new LogWalk(store, {}, start + 1);
      if (kind === 'sqlite') {
        // Seqs become visible in order there: a missing one is never in flight, nothing waits.
        assert.deepEqual(
          (await walk.next(10)).map((event) => event.seq - start),
          [3, 5, 7],
        );
        assert.equal(walk.waiting, false);
        return;
      }
      assert.deepEqual(await walk.next(10), []);
      assert.equal(walk.waiting, true);
      clock.advance(11);
      assert.deepEqual(
        (await walk.next(10)).map((event) => event.seq - start),
        [3, 5, 7],
      );
      assert.equal(walk.waiting, false);
      // A gap first seen now may still commit.
      await writeWithSeq(store, start + 9);
      await catchUpSequence(store);
      assert.deepEqual(await walk.next(10), []);
      assert.equal(walk.waiting, true);
      clock.advance(11);
      assert.deepEqual(
        (await walk.next(10)).map((event) => event.seq - start),
        [9],
      );
    });

    it('a follower taking a cursor from before them over reads past all of them after one grace', async () => {
      const { store, clock } = current();
      const start = await logWithOldGaps(store, (seconds) => clock.advance(seconds));
      const consumer = `old-gaps-${newId()}`;
      await store.eventCursors.ensure(consumer, start + 1);
      const follower = new EventFollower(store, { consumer, holder: 'me', gapGraceMs: 10_000 });
      assert.equal(await follower.next(), null);
      clock.advance(11);
      const batch = await follower.next();
      assert.equal(batch?.to, start + 7);
      assert.deepEqual(
        batch?.events.map((event) => event.seq - start),
        [3, 5, 7],
      );
    });
  });
}
