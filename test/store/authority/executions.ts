import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledQuery, type Compilable } from 'kysely';
import { newId } from '../../../src/core/ids.ts';
import { approvalsByOriginQuery } from '../../../src/store/repositories/approvals.ts';
import { capabilityRequestsByOriginQuery } from '../../../src/store/repositories/capability-requests.ts';
import { executionsByOriginQuery } from '../../../src/store/repositories/executions.ts';
import type { Store } from '../../../src/store/store.ts';
import type { TestStore } from '../../support/stores.ts';
import { restartExecution, seedMind, stepOrigin } from './fixtures.ts';

export function executionTests(current: () => TestStore): void {
  describe('executions', () => {
    it('writes an execution ahead as started and reads it back whole', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const approvalId = newId();
      const input = restartExecution(mindId, { approvalId });
      const started = await store.executions.start(input);
      assert.deepEqual(started, {
        id: started.id,
        mindId,
        capability: 'service.restart',
        target: 'nginx.service',
        params: input.params,
        origin: input.origin,
        correlationId: input.correlationId,
        evidence: input.evidence,
        approvalId,
        grantId: null,
        status: 'started',
        result: null,
        error: '',
        retrySafe: false,
        startedAt: clock.now(),
        finishedAt: null,
        createdAt: clock.now(),
      });
      assert.deepEqual(await store.executions.get(started.id), started);
      assert.equal(await store.executions.get(newId()), undefined);
    });

    it('finishes a started execution exactly once', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const started = await store.executions.start(restartExecution(mindId));
      clock.advance(3);
      const result = { exit_code: 0, stdout: 'restarted "nginx" ✓', timings: { ms: 812 } };
      const finished = await store.executions.finish(started.id, { status: 'succeeded', result });
      assert.deepEqual(finished, { ...started, status: 'succeeded', result, finishedAt: clock.now() });

      clock.advance(3);
      assert.equal(await store.executions.finish(started.id, { status: 'failed', error: 'too late', retrySafe: true }), undefined, 'a second outcome loses');
      assert.deepEqual(await store.executions.get(started.id), finished, 'and changes nothing');
      assert.equal(await store.executions.finish(newId(), { status: 'failed' }), undefined);
    });

    it('records a failure with its error and whether a retry is safe', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const grantId = newId();
      const started = await store.executions.start(restartExecution(mindId, { grantId }));
      const failed = await store.executions.finish(started.id, {
        status: 'failed',
        error: 'systemctl timed out before sending the job',
        retrySafe: true,
        result: null,
      });
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.grantId, grantId);
      assert.equal(failed?.error, 'systemctl timed out before sending the job');
      assert.equal(failed?.retrySafe, true);

      const read = await store.executions.record({
        ...restartExecution(mindId, { capability: 'service.status', params: { unit: 'nginx.service' } }),
        status: 'succeeded',
        result: { active_state: 'active', sub_state: 'running' },
      });
      assert.equal(read.status, 'succeeded');
      assert.deepEqual(read.result, { active_state: 'active', sub_state: 'running' });
      assert.equal(read.retrySafe, false);
      assert.deepEqual(read.startedAt, clock.now());
      assert.deepEqual(read.finishedAt, clock.now());
      assert.equal(await store.executions.finish(read.id, { status: 'failed' }), undefined, 'already finished');
    });

    it('finds what an origin caused, newest first, and nothing for an empty origin', async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const origin = stepOrigin();
      const first = await store.executions.start(restartExecution(mindId, { origin }));
      clock.advance(1);
      const second = await store.executions.record({ ...restartExecution(mindId, { origin }), status: 'failed', error: 'x' });
      await store.executions.start(restartExecution(mindId));
      await store.executions.start(restartExecution(mindId, { origin: '' }));
      assert.deepEqual(
        (await store.executions.listByOrigin(origin)).map((e) => e.id),
        [second.id, first.id],
      );
      assert.deepEqual(await store.executions.listByOrigin(''), []);
      assert.deepEqual(await store.executions.listByOrigin(stepOrigin()), []);
    });

    it("lists a mind's executions newest first, all of them unless limited", async () => {
      const { store, clock } = current();
      const mindId = await seedMind(store);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        ids.push((await store.executions.start(restartExecution(mindId))).id);
        clock.advance(1);
      }
      await store.executions.start(restartExecution(await seedMind(store)));
      assert.deepEqual(
        (await store.executions.listByMind(mindId)).map((e) => e.id),
        [...ids].reverse(),
      );
      assert.deepEqual(
        (await store.executions.listByMind(mindId, { limit: 2 })).map((e) => e.id),
        [ids[3], ids[2]],
      );
    });

    it('looks executions, approvals and capability requests up by origin through their partial indexes', async () => {
      const { store } = current();
      const origin = stepOrigin();
      const queries: [string, Compilable<unknown>][] = [
        ['tool_executions_origin_idx', executionsByOriginQuery(store.db, origin)],
        ['approval_requests_origin_idx', approvalsByOriginQuery(store.db, origin)],
        ['capability_requests_origin_idx', capabilityRequestsByOriginQuery(store.db, origin)],
      ];
      for (const [index, query] of queries) {
        const text = await explain(store, query);
        assert.match(text, new RegExp(index), text);
      }
    });
  });
}

async function explain(store: Store, query: Compilable<unknown>): Promise<string> {
  const compiled = query.compile();
  const plan =
    store.kind === 'sqlite'
      ? await store.db.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))
      : await store.db.transaction().execute(async (tx) => {
          // The test tables are tiny, so the planner would rightly prefer a scan; forbid it to
          // learn whether the index is usable at all.
          await tx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
          return tx.executeQuery(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
        });
  return plan.rows.map((row) => Object.values(row as object).join(' ')).join('\n');
}
