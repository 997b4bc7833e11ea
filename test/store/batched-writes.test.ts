import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { openStore, type NewEvent } from '../../src/store/index.ts';
import { EVENT_COLUMNS } from '../../src/store/repositories/events.ts';
import { insertRows, withRowTable } from '../../src/store/row-table.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

// A batch is one statement on PostgreSQL (one array per column) and chunks of a VALUES list on
// SQLite (src/store/row-table.ts): what goes in must come out the same, in the order given.
for (const kind of STORE_KINDS) {
  describe(`rows written by the batch (${kind})`, () => {
    const current = useStore(kind);

    it('appends a batch larger than a chunk in the order given, every value as written', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `rows-${newId()}` });
      const planId = newId();
      // Text that an array literal must escape, nulls, nested JSON, and more rows than one SQLite chunk.
      const awkward = ['quote " and \\ backslash', "single ' quote", '{braces, and commas}', 'NULL', 'ünïcødé ✓', ''];
      const events: NewEvent[] = Array.from({ length: 1234 }, (_, i) => ({
        type: i % 2 ? 'tool_executed' : 'policy_decision',
        mindId: mind.id,
        planId: i % 3 ? planId : null,
        intentionId: null,
        stepId: i % 5 ? newId() : null,
        data: { i, text: awkward[i % awkward.length]!, nested: { list: [i, null, 'x'] } },
      }));
      const before = await store.events.latestSeq();
      await store.events.appendMany(events);

      const read = await store.events.list({ mindId: mind.id, afterSeq: before, limit: 5000 });
      assert.equal(read.length, events.length);
      assert.deepEqual(
        read.map((e) => e.data.i),
        events.map((e) => e.data!.i),
        'seq follows the order given',
      );
      for (const [i, event] of read.entries()) {
        const given = events[i]!;
        assert.equal(event.type, given.type);
        assert.equal(event.planId, given.planId);
        assert.equal(event.stepId, given.stepId);
        assert.deepEqual(event.data, given.data);
      }
    });

    it('refuses a batch with a row that lacks a column, writing none of it, even beyond the first chunk', async () => {
      const { store } = current();
      const at = store.codec.time(store.clock.now());
      const rows = Array.from({ length: 700 }, (_, i) => ({ id: newId(), type: 'plan_started', mind_id: null, intention_id: null, plan_id: null, step_id: null, data: `{"i":${i}}`, created_at: at }));
      const { data: _, ...lacking } = rows[600]!;
      const before = await store.events.latestSeq();
      await assert.rejects(insertRows(store.db, kind, 'events', EVENT_COLUMNS, [...rows.slice(0, 600), lacking, ...rows.slice(601)]), /lacks its data column/);
      assert.equal(await store.events.latestSeq(), before);
    });

    it("inserts a transaction's events with one statement, in order, before its commit; a rollback leaves none", async () => {
      const { config } = current();
      const inserts: string[] = [];
      const store = await openStore(config, { observeQuery: (text) => void (/^\s*insert into "events"/i.test(text) && inserts.push(text)) });
      try {
        const mind = await store.minds.create({ name: `rows-${newId()}` });
        const before = await store.events.latestSeq();
        const seen = await store.transaction(async (tx) => {
          await tx.events.appendMany([{ type: 'plan_started', mindId: mind.id, data: { n: 1 } }]);
          await tx.events.appendMany([
            { type: 'plan_step_started', mindId: mind.id, data: { n: 2 } },
            { type: 'plan_step_completed', mindId: mind.id, data: { n: 3 } },
          ]);
          assert.equal(inserts.length, 0, 'queued, not yet written');
          // A read inside the transaction sees what it appended.
          const inside = await tx.events.list({ mindId: mind.id, afterSeq: before });
          await tx.events.appendMany([{ type: 'plan_completed', mindId: mind.id, data: { n: 4 } }]);
          return inside.length;
        });
        assert.equal(seen, 3);
        assert.equal(inserts.length, 2, 'one insert before the read, one for the rest at the commit');
        const read = await store.events.list({ mindId: mind.id, afterSeq: before });
        assert.deepEqual(
          read.map((e) => [e.type, e.data.n]),
          [
            ['plan_started', 1],
            ['plan_step_started', 2],
            ['plan_step_completed', 3],
            ['plan_completed', 4],
          ],
        );

        const latest = await store.events.latestSeq();
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.events.appendMany([{ type: 'plan_started', mindId: mind.id }]);
            throw new Error('changed my mind');
          }),
          /changed my mind/,
        );
        assert.equal(await store.events.latestSeq(), latest, 'nothing of a rolled back transaction is written');
        // An unknown type is refused when it is appended, not when the transaction commits.
        await assert.rejects(
          store.transaction(async (tx) => {
            await assert.rejects(tx.events.appendMany([{ type: 'no_such_event' as NewEvent['type'] }]), /unknown event type: no_such_event/);
            throw new Error('refused as it should be');
          }),
          /refused as it should be/,
        );
      } finally {
        await store.close();
      }
    });

    it('inserts a batch of executions with every outcome column as given', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `rows-${newId()}` });
      const started = {
        id: newId(),
        mindId: mind.id,
        capability: 'service.restart',
        target: 'atlas-worker.service',
        params: { unit: 'atlas-worker.service' },
        origin: `step:${newId()}`,
        correlationId: '',
        evidence: {},
        status: 'started' as const,
      };
      const done = {
        id: newId(),
        mindId: mind.id,
        capability: 'service.status',
        target: 'atlas "worker"',
        params: { unit: 'a\\b' },
        origin: `step:${newId()}`,
        correlationId: newId(),
        evidence: { why: ['x'] },
        status: 'failed' as const,
        result: { code: 3 },
        error: "it's down",
        retrySafe: true,
      };
      await store.executions.insertMany([started, done]);

      const first = await store.executions.get(started.id);
      assert.equal(first?.status, 'started');
      assert.equal(first?.finishedAt, null);
      assert.equal(first?.retrySafe, false);
      const second = await store.executions.get(done.id);
      assert.equal(second?.status, 'failed');
      assert.equal(second?.target, 'atlas "worker"');
      assert.deepEqual(second?.params, { unit: 'a\\b' });
      assert.deepEqual(second?.result, { code: 3 });
      assert.equal(second?.error, "it's down");
      assert.equal(second?.retrySafe, true);
      assert.ok(second?.finishedAt);
    });
    it('runs a statement over a row table with values bound ahead of its own, and refuses one where they would not be', async () => {
      const { store } = current();
      const columns = { n: 'integer', t: 'text' };
      const rows = Array.from({ length: 3 }, (_, i) => ({ n: i, t: `row ${i} ' "` }));
      const got = await withRowTable(
        store.db,
        kind,
        columns,
        rows,
        (table) => sql<{ n: number; t: string; x: string }>`with v (n, t) as (${table}) select n, t, ${'after'} as x from v where n >= ${1} order by n`,
      );
      assert.deepEqual(
        got.map((r) => ({ ...r, n: Number(r.n) })),
        [
          { n: 1, t: 'row 1 \' "', x: 'after' },
          { n: 2, t: 'row 2 \' "', x: 'after' },
        ],
      );
      if (kind === 'sqlite') {
        await assert.rejects(
          withRowTable(store.db, kind, columns, rows, (table) => sql`select ${'before'} as x, v.* from (${table}) as v`),
          /first parameterised part/,
        );
      }
    });
  });
}
