// A walk along a narrowed view of the log (src/bus/log-walk.ts) hands out every matching event in
// log order, past any number of others' events. Where seqs may commit out of order (PostgreSQL)
// it reads the seqs ahead for one still in flight; where they become visible in order (SQLite) it
// reads only the log's newest seq, not the seqs of every other event between the matching ones.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HORIZON_SCAN, LogWalk } from '../../src/bus/log-walk.ts';
import { newId } from '../../src/core/ids.ts';
import { openStore, type NewEvent } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const SEQ_SCAN = /^select "seq" from "events" where "seq" >/;

for (const kind of STORE_KINDS) {
  describe(`a walk along one mind's events (${kind})`, () => {
    const current = useStore(kind);

    it(`hands out every one in order across more than ${HORIZON_SCAN} others' events, and then what is appended later`, async () => {
      const { config, clock } = current();
      const statements: string[] = [];
      const store = await openStore(config, { clock, observeQuery: (text) => void statements.push(text.replace(/\s+/g, ' ')) });
      try {
        const mine = await store.minds.create({ name: `walked-${newId()}` });
        const other = await store.minds.create({ name: `other-${newId()}` });
        const start = await store.events.latestSeq();
        const note = (mindId: string, i: number): NewEvent => ({ type: 'operator_note', mindId, data: { i } });
        // Mine at the ends and in the middle of a long stretch of the other mind's events.
        const written = [
          note(mine.id, 0),
          ...Array.from({ length: 1500 }, (_, i) => note(other.id, i)),
          note(mine.id, 1),
          ...Array.from({ length: 1200 }, (_, i) => note(other.id, i)),
          note(mine.id, 2),
        ];
        await store.events.appendMany(written);
        const walk = new LogWalk(store, { mindId: mine.id }, start);
        statements.length = 0;
        assert.deepEqual(
          (await walk.next(10)).map((event) => event.data.i),
          [0, 1, 2],
        );
        assert.equal(walk.waiting, false);
        const scans = statements.filter((text) => SEQ_SCAN.test(text)).length;
        if (kind === 'sqlite') assert.equal(scans, 0, 'no read of the seqs between mine');
        else assert.ok(scans >= 3, `the seqs ahead were judged for one in flight (${scans} reads)`);
        assert.deepEqual(await walk.next(10), [], 'nothing new yet');
        await store.events.appendMany([note(other.id, 9), note(mine.id, 3)]);
        assert.deepEqual(
          (await walk.next(10)).map((event) => event.data.i),
          [3],
        );
      } finally {
        await store.close();
      }
    });
  });
}
