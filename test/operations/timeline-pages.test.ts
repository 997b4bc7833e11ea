// Timeline pages (src/operations/timeline.ts) are keyed on the event seq, and a page never hands
// out an event past a seq still in flight: on PostgreSQL a transaction can take seq 10, another
// commit 11, and a page cursor left at 11 would never show 10 once it committed (it did, before
// pages stopped at the settled seq).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Principal } from '../../src/access/permissions.ts';
import { newId } from '../../src/core/ids.ts';
import type { EventType } from '../../src/core/vocabulary.ts';
import { auditTrail, timeline } from '../../src/operations/timeline.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const operator: Principal = { tokenId: null, operator: 'alice', role: 'admin', mindId: null };

/** Every page of a mind's timeline from the start, following next_cursor: the events' `order`s. */
async function readAll(store: Store, mindId: string, limit: number): Promise<unknown[]> {
  const seen: unknown[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await timeline(store, operator, { mind: mindId }, { limit, ...(cursor !== undefined ? { cursor } : {}) });
    seen.push(...page.items.map((e) => e.data.order));
    if (page.next_cursor === null) return seen;
    cursor = page.next_cursor;
  }
}

for (const kind of STORE_KINDS) {
  describe(`timeline pages (${kind})`, () => {
    const current = useStore(kind);

    it('stop before a seq in flight, and show it and what follows once it is visible or given up', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `pages-${newId()}` });
      const start = await store.events.latestSeq();
      // Written with their seqs, as transactions that commit out of order leave them.
      const write = (seq: number, type: EventType = 'operator_note') =>
        store.db
          .insertInto('events')
          .values({ seq, id: newId(), type, mind_id: mind.id, data: JSON.stringify({ order: seq - start }), created_at: clock.now().toISOString() })
          .execute();
      await write(start + 1);
      await write(start + 3); // start + 2 is in flight
      await write(start + 4);
      const first = await timeline(store, operator, { mind: mind.id }, { limit: 1 });
      assert.deepEqual(
        first.items.map((e) => e.data.order),
        [1],
      );
      assert.equal(first.next_cursor, null, 'the page ends where the settled log ends');
      await write(start + 2);
      assert.deepEqual(await readAll(store, mind.id, 1), [1, 2, 3, 4], 'once visible, the event in flight is shown in its place');

      await write(start + 6, 'policy_rule_set'); // start + 5 was rolled back
      assert.deepEqual(await readAll(store, mind.id, 2), [1, 2, 3, 4], 'a page waits for the missing seq while it is recent');
      assert.equal(
        (await auditTrail(store, operator, {})).items.some((e) => e.seq === start + 6),
        false,
        'so does the audit trail',
      );
      clock.advance(11);
      assert.deepEqual(await readAll(store, mind.id, 2), [1, 2, 3, 4, 6], 'after the grace it is taken for a rolled-back insert');
      assert.equal((await auditTrail(store, operator, {})).items.at(-1)?.seq, start + 6);
      if (kind === 'postgres') await sql`select setval(pg_get_serial_sequence('events', 'seq'), (select max(seq) from events))`.execute(store.db);
    });

    it('read newest first, page towards older events, from the settled seq, each event once', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `pages-${newId()}` });
      const start = await store.events.latestSeq();
      for (let i = 1; i <= 5; i += 1) await store.events.append({ type: 'operator_note', mindId: mind.id, data: { order: i } });
      const newest = async (cursor?: string) => timeline(store, operator, { mind: mind.id }, { limit: 2, order: 'newest', ...(cursor ? { cursor } : {}) });
      const seen: unknown[] = [];
      let page = await newest();
      for (;;) {
        seen.push(...page.items.map((e) => e.data.order));
        if (page.next_cursor === null) break;
        page = await newest(page.next_cursor);
      }
      assert.deepEqual(seen, [5, 4, 3, 2, 1]);
      const oldestFirst = await timeline(store, operator, { mind: mind.id }, { limit: 2 });
      await assert.rejects(newest(oldestFirst.next_cursor!), /cursor does not belong to this list/);
      // A seq in flight above the rest: the newest page starts below it until it commits.
      const latest = await store.events.latestSeq();
      await store.db
        .insertInto('events')
        .values({ seq: latest + 2, id: newId(), type: 'operator_note', mind_id: mind.id, data: JSON.stringify({ order: 7 }), created_at: clock.now().toISOString() })
        .execute();
      assert.deepEqual(
        (await newest()).items.map((e) => e.data.order),
        [5, 4],
      );
      assert.ok(start < latest);
      // Taken for rolled back after the grace: the later tests start from a settled log.
      clock.advance(11);
      assert.deepEqual(
        (await newest()).items.map((e) => e.data.order),
        [7, 5],
      );
      if (kind === 'postgres') await sql`select setval(pg_get_serial_sequence('events', 'seq'), (select max(seq) from events))`.execute(store.db);
    });

    if (kind === 'postgres') {
      it('never skip an event whose transaction commits after a later page was read', async () => {
        const { store } = current();
        const mind = await store.minds.create({ name: `pages-${newId()}` });
        const note = (order: string) => store.events.append({ type: 'operator_note', mindId: mind.id, data: { order } });
        await note('first');
        let release: () => void = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        let inserted: () => void = () => {};
        const insertedFirst = new Promise<void>((resolve) => (inserted = resolve));
        const slow = store.transaction(async (tx) => {
          await tx.events.append({ type: 'operator_note', mindId: mind.id, data: { order: 'in flight' } });
          inserted();
          await held;
        });
        await insertedFirst;
        let page: Awaited<ReturnType<typeof timeline>>;
        try {
          await note('third');
          await note('fourth');
          // A client pages one event at a time while the second is still in flight.
          page = await timeline(store, operator, { mind: mind.id }, { limit: 1 });
        } finally {
          release();
          await slow;
        }
        assert.deepEqual(
          page.items.map((e) => e.data.order),
          ['first'],
        );
        assert.equal(page.next_cursor, null);
        assert.deepEqual(await readAll(store, mind.id, 1), ['first', 'in flight', 'third', 'fourth']);
      });
    }
  });
}
