// The audit trail's reads (migration 0014): the events of the audit types, for everyone or for
// one mind, come through `events_audit_idx` rather than a walk over the whole log or the mind's
// whole log, and return exactly what a filter over every event would. Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { AUDIT_EVENT_TYPES, type EventType } from '../../src/core/vocabulary.ts';
import { eventsQuery, type EventQuery, type EventRecord } from '../../src/store/repositories/events.ts';
import type { Store } from '../../src/store/index.ts';
import { queryPlan } from '../support/query-plan.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

function plan(store: Store, query: EventQuery): Promise<string> {
  return queryPlan(store.db, store.kind, eventsQuery(store.db, store.kind, query).compile());
}

for (const kind of STORE_KINDS) {
  describe(`the audit trail's index (${kind})`, () => {
    const current = useStore(kind);

    it('returns the audit events, for everyone and for one mind, in order and page by page', async () => {
      const { store } = current();
      const minds = [newId(), newId()];
      const written: EventType[] = ['plan_started', 'policy_rule_set', 'tool_executed', 'token_created', 'approval_tampered', 'policy_decision', 'policy_rule_removed', 'token_revoked'];
      for (let i = 0; i < 40; i += 1) {
        const type = written[i % written.length]!;
        await store.events.append({ type, mindId: i % 5 === 0 ? null : minds[i % 2]!, data: { i } });
      }
      const all = await store.events.list({ limit: 1000 });
      const expect = (keep: (e: EventRecord) => boolean) => all.filter(keep).map((e) => e.seq);
      const isAudit = (e: EventRecord) => (AUDIT_EVENT_TYPES as readonly string[]).includes(e.type);

      const seqs = async (query: EventQuery) => (await store.events.list(query)).map((e) => e.seq);
      assert.deepEqual(await seqs({ types: AUDIT_EVENT_TYPES, limit: 1000 }), expect(isAudit));
      assert.deepEqual(
        await seqs({ types: AUDIT_EVENT_TYPES, mindId: minds[0], limit: 1000 }),
        expect((e) => isAudit(e) && e.mindId === minds[0]),
      );
      assert.deepEqual(
        await seqs({ types: ['token_created'], limit: 1000 }),
        expect((e) => e.type === 'token_created'),
      );
      // A mix of audit and other types is not limited to the audit index.
      assert.deepEqual(
        await seqs({ types: ['token_created', 'plan_started'], limit: 1000 }),
        expect((e) => e.type === 'token_created' || e.type === 'plan_started'),
      );

      // Page by page from a cursor, as the API pages the trail.
      const pages: number[] = [];
      let afterSeq: number | undefined;
      for (;;) {
        const page = await store.events.list({ types: AUDIT_EVENT_TYPES, limit: 3, ...(afterSeq !== undefined ? { afterSeq } : {}) });
        if (page.length === 0) break;
        pages.push(...page.map((e) => e.seq));
        afterSeq = page.at(-1)!.seq;
      }
      assert.deepEqual(pages, expect(isAudit));
    });

    it('reads the audit events through events_audit_idx, for everyone and for one mind', async () => {
      const { store } = current();
      assert.match(await plan(store, { types: AUDIT_EVENT_TYPES, afterSeq: 0, limit: 51 }), /events_audit_idx/);
      // For one mind, PostgreSQL picks by its statistics between the two indexes (here the mind has
      // no events, so its own index is cheaper); SQLite keeps none and is told.
      assert.match(await plan(store, { types: AUDIT_EVENT_TYPES, mindId: newId(), afterSeq: 0, limit: 51 }), kind === 'sqlite' ? /events_audit_idx/ : /events_audit_idx|events_mind_idx/);
      assert.match(await plan(store, { types: ['token_created', 'token_revoked'], limit: 51 }), /events_audit_idx/);
      // A mind's whole log still goes by the mind's index.
      assert.match(await plan(store, { mindId: newId(), afterSeq: 0, limit: 51 }), /events_mind_idx/);
    });
  });
}
