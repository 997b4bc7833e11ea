// Migration 0011 on a database made before it: approval requests gain an empty list of
// amendments, a request signed before it still verifies against its keyed digest (the digest
// covers amendments only once there is one), and the events table takes approval_amended. Both stores.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { approvalDigest, approvalKeyFrom, checkApprovalDigest } from '../../src/capabilities/policy/action-digest.ts';
import { newId } from '../../src/core/ids.ts';
import { EVENT_TYPES } from '../../src/core/vocabulary.ts';
import { refreshEventTypeCheck } from '../../src/store/migrations/event-type-check.ts';
import { migrateTo, migrateToLatest } from '../../src/store/migrations/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`migration 0011 on an older database (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it('keeps pending requests verifiable, with no amendments, and takes approval_amended', async () => {
      const { store, clock } = current();
      const db = store.db;
      await migrateTo(db, kind, '0010_plan_pauses');
      await refreshEventTypeCheck(
        db,
        kind,
        EVENT_TYPES.filter((t) => t !== 'approval_amended'),
      );
      await assert.rejects(store.events.append({ type: 'approval_amended', data: {} }), /check|constraint/i);

      const key = approvalKeyFrom(randomBytes(32));
      const mindId = newId();
      const now = clock.now();
      await db
        .insertInto('minds')
        .values({ id: mindId, name: `m-${mindId}`, created_at: store.codec.time(now), updated_at: store.codec.time(now) } as never)
        .execute();
      const raised = {
        id: newId(),
        mindId,
        capability: 'service.restart',
        target: 'atlas.service',
        params: { unit: 'atlas.service' },
        origin: 'operator:alice',
        correlationId: '',
        evidence: {},
        explanation: { what: 'restart atlas' },
        approversRequired: 1,
        authoredBy: 'alice',
        authorNamedBy: '',
        expiresAt: new Date(now.getTime() + 3_600_000),
      };
      const digest = approvalDigest(key, raised);
      await db
        .insertInto('approval_requests')
        .values({
          id: raised.id,
          mind_id: mindId,
          capability: raised.capability,
          target: raised.target,
          params: store.codec.json(raised.params),
          origin: raised.origin,
          correlation_id: '',
          evidence: store.codec.json({}),
          explanation: store.codec.json(raised.explanation),
          digest,
          status: 'pending',
          approvers_required: 1,
          decisions: store.codec.json([]),
          authored_by: 'alice',
          author_named_by: '',
          batch_key: '',
          execution_id: null,
          expires_at: store.codec.time(raised.expiresAt),
          decided_at: null,
          created_at: store.codec.time(now),
          updated_at: store.codec.time(now),
        } as never)
        .execute();

      assert.ok((await migrateToLatest(db, kind)).includes('0011_approval_amendments'));
      const migrated = (await store.approvals.get(raised.id))!;
      assert.deepEqual(migrated.amendments, []);
      assert.equal(checkApprovalDigest(key, migrated, migrated.digest), 'intact', 'a request signed before 0011 still verifies');
      await store.events.append({ type: 'approval_amended', data: { approval_id: raised.id } });
    });
  });
}
