// Migration 0007 on a database made before it, on both stores: a pending request keeps its
// unkeyed digest and gains an empty author_named_by; the events table takes the audit and tamper
// types; a keyed service refuses the old request (unkeyed_digest) and closes it, while a service
// without a key, as before the upgrade, could still approve it.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { actionDigest, approvalKeyFrom } from '../../src/capabilities/policy/action-digest.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { newId } from '../../src/core/ids.ts';
import { EVENT_TYPES } from '../../src/core/vocabulary.ts';
import { refreshEventTypeCheck } from '../../src/store/migrations/event-type-check.ts';
import { migrateTo, migrateToLatest } from '../../src/store/migrations/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { testImplementations, testRegistry } from '../support/test-capabilities.ts';

const NEW_TYPES: readonly string[] = ['approval_author_named', 'approval_tampered', 'policy_rule_set', 'policy_rule_removed', 'token_created', 'token_revoked'];

for (const kind of STORE_KINDS) {
  describe(`migration 0007 on an older database (${kind})`, () => {
    const current = useStore(kind, { migrate: false });

    it('keeps old requests with their unkeyed digest, which a keyed service refuses and closes', async () => {
      const { store, clock } = current();
      const db = store.db as never as import('kysely').Kysely<any>;
      await migrateTo(store.db, kind, '0006_claimant');
      const now = clock.now().toISOString();
      const mindId = newId();
      await db.insertInto('minds').values({ id: mindId, name: 'before-0007', created_at: now, updated_at: now }).execute();
      const action = { capability: 'test.write', target: 'svc', params: { name: 'svc' } };
      const ids = [newId(), newId()];
      for (const id of ids) {
        await db
          .insertInto('approval_requests')
          .values({
            id,
            mind_id: mindId,
            capability: action.capability,
            target: action.target,
            params: JSON.stringify(action.params),
            digest: actionDigest(action),
            authored_by: 'alice',
            expires_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
      // The check as a database created before 0007 had it (0001 builds it from the code's vocabulary).
      await refreshEventTypeCheck(
        db,
        kind,
        EVENT_TYPES.filter((t) => !NEW_TYPES.includes(t)),
      );
      await assert.rejects(store.events.append({ type: 'approval_tampered', mindId, data: {} }), /check|constraint/i);

      assert.ok((await migrateToLatest(store.db, kind)).includes('0007_audit_and_keyed_approvals'));
      const old = (await store.approvals.get(ids[0]!))!;
      assert.deepEqual([old.status, old.authorNamedBy, old.digest], ['pending', '', actionDigest(action)]);
      await store.events.append({ type: 'policy_rule_set', mindId, data: { operator: 'adam' } });

      const keyed = new CapabilityService(store, testRegistry, testImplementations({ calls: [] }), { approvalKey: approvalKeyFrom(randomBytes(32)) });
      const refused = await keyed.approve(ids[0]!, 'bob');
      assert.equal(refused.status === 'refused' && refused.code, 'unkeyed_digest');
      assert.equal((await store.approvals.get(ids[0]!))?.status, 'failed');
      const event = (await store.events.list({ mindId, limit: 50 })).find((e) => e.type === 'approval_tampered');
      assert.deepEqual([event?.data.approval_id, event?.data.code], [ids[0], 'unkeyed_digest']);

      const unkeyed = new CapabilityService(store, testRegistry, testImplementations({ calls: [] }));
      assert.equal((await unkeyed.approve(ids[1]!, 'bob')).status, 'approved');
    });
  });
}
