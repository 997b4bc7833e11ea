import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import type { NewEvent } from '../../src/store/index.ts';
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

    it('inserts a batch of executions with every outcome column as given', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `rows-${newId()}` });
      const started = { id: newId(), mindId: mind.id, capability: 'service.restart', target: 'atlas-worker.service', params: { unit: 'atlas-worker.service' }, origin: `step:${newId()}`, correlationId: '', evidence: {}, status: 'started' as const };
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
  });
}
