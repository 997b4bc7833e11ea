// A caller's live feed of the event log (src/operations/event-feed.ts) sends every event it may
// see, in log order, even when events commit out of seq order: on PostgreSQL two transactions
// commit their events in either order, and a feed that moved past a seq not yet visible would
// never send that event (it did, before the feed looked for seqs in flight).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Principal } from '../../src/access/permissions.ts';
import { newId } from '../../src/core/ids.ts';
import { openEventFeed } from '../../src/operations/event-feed.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const operator: Principal = { tokenId: null, operator: 'alice', role: 'admin', mindId: null };

/**
 * A transaction that appends an event (`order` in its data), so taking its seq, and then waits
 * before committing until `commit` is called; resolves once the event is inserted.
 */
async function heldOpen(store: Store, mindId: string, order: string): Promise<{ commit(): Promise<void> }> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let inserted: () => void = () => {};
  const insertedFirst = new Promise<void>((resolve) => (inserted = resolve));
  const done = store.transaction(async (tx) => {
    await tx.events.append({ type: 'operator_note', mindId, data: { order } });
    inserted();
    await held;
  });
  await insertedFirst;
  return {
    async commit() {
      release();
      await done;
    },
  };
}

for (const kind of STORE_KINDS) {
  describe(`the event feed (${kind})`, () => {
    const current = useStore(kind);

    it('waits for a seq not visible yet, sends it in order once it is, and gives it up after the grace (postgres; sqlite has none in flight)', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `feed-${newId()}` });
      const feed = await openEventFeed(store, operator, { mind: mind.id });
      const start = await store.events.latestSeq();
      // Written with their seqs, as transactions that commit out of order leave them.
      const write = (seq: number, mindId: string | null = mind.id) =>
        store.db
          .insertInto('events')
          .values({ seq, id: newId(), type: 'operator_note', mind_id: mindId, data: JSON.stringify({ seq }), created_at: clock.now().toISOString() })
          .execute();
      await write(start + 1);
      await write(start + 2, null); // another mind's event: not this feed's, but it counts as seen
      await write(start + 4); // start + 3 is in flight
      if (kind === 'sqlite') {
        // SQLite's writers take seqs one at a time under the write lock, so none is ever in
        // flight behind a visible one: the feed sends what it sees at once, a gap holds nothing.
        assert.deepEqual(
          (await feed.next(10)).map((e) => e.seq),
          [start + 1, start + 4],
        );
        return;
      }
      assert.deepEqual(
        (await feed.next(10)).map((e) => e.seq),
        [start + 1],
        'stops before the seq in flight',
      );
      assert.deepEqual(await feed.next(10), [], 'still waiting for it');
      await write(start + 3); // it commits
      assert.deepEqual(
        (await feed.next(10)).map((e) => e.seq),
        [start + 3, start + 4],
        'sent once visible, in log order',
      );
      await write(start + 6); // start + 5 was rolled back: never visible
      assert.deepEqual(await feed.next(10), []);
      clock.advance(11);
      assert.deepEqual(
        (await feed.next(10)).map((e) => e.seq),
        [start + 6],
        'a rolled-back seq is given up on after the grace',
      );
      // The seqs were written by hand: PostgreSQL's sequence is told, so later appends go on after them.
      if (kind === 'postgres') await sql`select setval(pg_get_serial_sequence('events', 'seq'), (select max(seq) from events))`.execute(store.db);
    });

    it('walks past many events of other minds to the ones it may send, a page at a time', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `feed-${newId()}` });
      const other = await store.minds.create({ name: `other-${newId()}` });
      const feed = await openEventFeed(store, operator, { mind: mind.id });
      await store.events.appendMany(Array.from({ length: 2500 }, (_, i) => ({ type: 'operator_note' as const, mindId: other.id, data: { i } })));
      await store.events.appendMany(Array.from({ length: 3 }, (_, i) => ({ type: 'operator_note' as const, mindId: mind.id, data: { i } })));
      const first = await feed.next(2);
      assert.deepEqual(
        first.map((e) => e.data.i),
        [0, 1],
      );
      assert.deepEqual(
        (await feed.next(2)).map((e) => e.data.i),
        [2],
      );
      assert.deepEqual(await feed.next(2), []);
    });

    it('a new feed does not wait for a seq left missing long ago', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `feed-${newId()}` });
      const start = await store.events.latestSeq();
      const write = (seq: number) =>
        store.db
          .insertInto('events')
          .values({ seq, id: newId(), type: 'operator_note', mind_id: mind.id, data: JSON.stringify({ seq }), created_at: clock.now().toISOString() })
          .execute();
      await write(start + 2); // start + 1 was rolled back
      clock.advance(11);
      const feed = await openEventFeed(store, operator, { mind: mind.id });
      await write(start + 3);
      assert.deepEqual(
        (await feed.next(10)).map((e) => e.seq),
        [start + 3],
        'the old gap is no reason to wait, and the event written before the feed opened is not sent',
      );
      if (kind === 'postgres') await sql`select setval(pg_get_serial_sequence('events', 'seq'), (select max(seq) from events))`.execute(store.db);
    });

    if (kind === 'postgres') {
      it('sends an event that took its seq before the feed opened and commits after', async () => {
        const { store } = current();
        const mind = await store.minds.create({ name: `feed-${newId()}` });
        const slow = await heldOpen(store, mind.id, 'in flight');
        await store.events.append({ type: 'operator_note', mindId: mind.id, data: { order: 'before the feed' } });
        // A console opens its stream now: the newest visible event is the second one.
        const feed = await openEventFeed(store, operator, { mind: mind.id });
        assert.deepEqual(await feed.next(10), []);
        await slow.commit();
        await store.events.append({ type: 'operator_note', mindId: mind.id, data: { order: 'after the feed' } });
        assert.deepEqual(
          (await feed.next(10)).map((e) => e.data.order),
          ['in flight', 'after the feed'],
          'the event in flight when it opened is sent; the one visible before is not',
        );
      });

      it('sends an event whose transaction commits after a later seq was already read', async () => {
        const { store } = current();
        const mind = await store.minds.create({ name: `feed-${newId()}` });
        const feed = await openEventFeed(store, operator, { mind: mind.id });
        const slow = await heldOpen(store, mind.id, 'first');
        await store.events.append({ type: 'operator_note', mindId: mind.id, data: { order: 'second' } });
        assert.deepEqual(await feed.next(10), [], 'the later seq waits for the earlier one in flight');
        await slow.commit();
        assert.deepEqual(
          (await feed.next(10)).map((e) => e.data.order),
          ['first', 'second'],
        );
      });
    }
  });
}
