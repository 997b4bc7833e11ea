// The events' indexes by mind, intention and plan (migration 0015) hold only the events that name
// one. Every read of one mind's, intention's or plan's events still goes through its index, and
// returns exactly what a filter over the whole log would, events naming none left out as before.
// Both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import type { EventType } from '../../src/core/vocabulary.ts';
import { eventsQuery, type EventQuery, type EventRecord } from '../../src/store/repositories/events.ts';
import { queryPlan } from '../support/query-plan.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const SCOPED = [
  ['events_mind_idx', 'mind_id', 'mindId'],
  ['events_intention_idx', 'intention_id', 'intentionId'],
  ['events_plan_idx', 'plan_id', 'planId'],
] as const;

for (const kind of STORE_KINDS) {
  describe(`the events' indexes by mind, intention and plan (${kind})`, () => {
    const current = useStore(kind);

    it('are partial: only events that name a mind, an intention or a plan are in them', async () => {
      const { store } = current();
      const definitions =
        kind === 'sqlite'
          ? (await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'index' and tbl_name = 'events'`.execute(store.db)).rows
          : (await sql<{ name: string; sql: string }>`select indexname as name, indexdef as sql from pg_indexes where tablename = 'events' and schemaname = current_schema()`.execute(store.db)).rows;
      for (const [index, column] of SCOPED) {
        const found = definitions.find((d) => d.name === index);
        assert.ok(found, `${index} exists`);
        assert.match(found.sql, new RegExp(`${column}"? is not null`, 'i'), `${index} leaves out events without ${column}`);
      }
    });

    it("reads one mind's, intention's or plan's events, with or without types and a cursor, through its index", async () => {
      const { store } = current();
      for (const [index, , key] of SCOPED) {
        const one = { [key]: newId() } as EventQuery;
        assert.match(await queryPlan(store.db, kind, eventsQuery(store.db, kind, { ...one, afterSeq: 0, limit: 51 }).compile()), new RegExp(index), `${key} alone`);
        assert.match(
          await queryPlan(store.db, kind, eventsQuery(store.db, kind, { ...one, types: ['plan_step_completed', 'tool_executed'], limit: 51 }).compile()),
          new RegExp(index),
          `${key} with types`,
        );
      }
    });

    it('returns what a filter over the whole log would, events naming none left out, page by page', async () => {
      const { store } = current();
      const mind = newId();
      const intention = newId();
      const plan = newId();
      const types: EventType[] = ['policy_decision', 'tool_authorised', 'tool_executed', 'plan_step_completed', 'plan_started', 'intention_fulfilled'];
      // A capability call's records name the mind and intention but no plan; some events name no mind at all.
      for (let i = 0; i < 36; i += 1) {
        const type = types[i % types.length]!;
        const call = type.startsWith('policy') || type.startsWith('tool');
        await store.events.append({
          type,
          mindId: i % 7 === 0 ? null : mind,
          intentionId: i % 5 === 0 ? null : intention,
          planId: call || type === 'intention_fulfilled' ? null : plan,
          data: { i },
        });
      }
      const all = await store.events.list({ limit: 1000 });
      const scopes: [EventQuery, (e: EventRecord) => boolean][] = [
        [{ mindId: mind }, (e) => e.mindId === mind],
        [{ intentionId: intention }, (e) => e.intentionId === intention],
        [{ planId: plan }, (e) => e.planId === plan],
        [{ intentionId: intention, types: ['tool_executed'] }, (e) => e.intentionId === intention && e.type === 'tool_executed'],
      ];
      for (const [query, keep] of scopes) {
        const expected = all.filter(keep).map((e) => e.seq);
        assert.ok(expected.length > 0);
        const pages: number[] = [];
        let afterSeq: number | undefined;
        for (;;) {
          const page = await store.events.list({ ...query, limit: 4, ...(afterSeq !== undefined ? { afterSeq } : {}) });
          if (page.length === 0) break;
          pages.push(...page.map((e) => e.seq));
          afterSeq = page.at(-1)!.seq;
        }
        assert.deepEqual(pages, expected, JSON.stringify(query));
      }
    });
  });
}
