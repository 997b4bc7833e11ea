// `praxis plans`, `praxis release` and `praxis timeline` against a seeded store, on both stores.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { praxis, ROOT, storeEnv } from '../daemon/process.ts';

const restartPlan = JSON.parse(readFileSync(`${ROOT}/examples/restart-atlas-worker.json`, 'utf8')) as unknown;

for (const kind of STORE_KINDS) {
  describe(`praxis plans, release, timeline (${kind})`, () => {
    const current = useStore(kind);

    async function seed(name: string) {
      const { store } = current();
      const mind = await store.minds.create({ name, host: null });
      const submitted = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: restartPlan, origin: 'operator' });
      assert.ok(submitted.stored);
      return { mind, plan: submitted.plan, intention: submitted.intention };
    }

    it('lists plans newest first, filtered by mind and status, as a table or JSON', async () => {
      const { config } = current();
      const env = storeEnv(config);
      const a = await seed('ops-a');
      const b = await seed('ops-b');
      const all = await praxis(['plans'], env);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /^ID\s+MIND\s+STATUS\s+REV\s+INTENTION\s+AGE\s+OBJECTIVE$/m);
      const lines = all.stdout.trim().split('\n').slice(1);
      assert.ok(lines[0]!.startsWith(b.plan.id) && lines[1]!.startsWith(a.plan.id), 'newest first');
      assert.match(lines[0]!, new RegExp(`ops-b\\s+validated\\s+1\\s+${b.intention.id}\\s+\\d+[smhd]\\s+Restart atlas-worker`));

      const onlyA = JSON.parse((await praxis(['plans', '--mind', 'ops-a', '--json'], env)).stdout) as { id: string }[];
      assert.deepEqual(
        onlyA.map((p) => p.id),
        [a.plan.id],
      );
      assert.match((await praxis(['plans', '--status', 'completed'], env)).stdout, /no plans/);
      assert.equal(JSON.parse((await praxis(['plans', '--limit', '1', '--json'], env)).stdout).length, 1);

      const bad = await praxis(['plans', '--status', 'done', '--limit', '0'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /invalid_limit at --limit/);
      assert.match(bad.stderr, /invalid_status at --status/);
      const unknown = await praxis(['plans', '--mind', 'nobody'], env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown_mind/);
    });

    it('releases a blocked step by key, with the note in the timeline, and refuses one that is not blocked', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const { plan } = await seed('ops-release');
      const p1 = plan.steps.find((s) => s.key === 'P1')!;
      // As recovery leaves a non-idempotent write whose outcome is unknown.
      await store.plans.transition(plan.id, 'validated', 'executing');
      assert.ok(await store.steps.move('block', p1.id, 'pending', { error: 'outcome unknown' }));

      const notBlocked = await praxis(['release', plan.id, 'V1', '--as', 'alice'], env);
      assert.equal(notBlocked.code, 1);
      assert.match(notBlocked.stderr, /not_blocked/);
      const noStep = await praxis(['release', plan.id, 'Z9', '--as', 'alice'], env);
      assert.equal(noStep.code, 2);
      assert.match(noStep.stderr, /not_found at step: .*steps: P1, V1/);

      const released = await praxis(['release', plan.id, 'P1', '--as', 'alice', '--note', 'checked: the unit never restarted'], env);
      assert.equal(released.code, 0, released.stderr);
      assert.match(released.stdout, /released P1/);
      assert.equal((await store.steps.get(p1.id))?.status, 'ready');

      const timeline = await praxis(['timeline', '--plan', plan.id], env);
      assert.equal(timeline.code, 0, timeline.stderr);
      assert.match(timeline.stdout, /^SEQ\s+TIME\s+EVENT\s+STEP\s+DETAIL$/m);
      assert.match(timeline.stdout, /plan_step_released\s+P1\s+operator=alice/);
      assert.match(timeline.stdout, /operator_note\s+P1\s+operator=alice; checked: the unit never restarted/);
    });

    it('shows the newest events of a mind, an intention or a plan, and refuses an ambiguous or bad selection', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const { mind, intention, plan } = await seed('ops-timeline');
      for (let i = 0; i < 3; i += 1) {
        await store.events.append({ type: 'operator_note', mindId: mind.id, intentionId: intention.id, planId: plan.id, data: { note: `note ${i}` } });
      }
      const byIntention = JSON.parse((await praxis(['timeline', '--intention', intention.id, '--json'], env)).stdout) as { type: string; seq: number }[];
      assert.ok(byIntention.length >= 4);
      const seqs = byIntention.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
        'oldest first',
      );
      const newest = JSON.parse((await praxis(['timeline', '--mind', 'ops-timeline', '--limit', '2', '--json'], env)).stdout) as { data: { note: string } }[];
      assert.deepEqual(
        newest.map((e) => e.data.note),
        ['note 1', 'note 2'],
        'the newest two, in order',
      );

      const both = await praxis(['timeline', '--mind', 'ops-timeline', '--plan', plan.id], env);
      assert.equal(both.code, 2);
      assert.match(both.stderr, /invalid_selection/);
      const none = await praxis(['timeline'], env);
      assert.equal(none.code, 2);
      const badId = await praxis(['timeline', '--plan', 'xyz'], env);
      assert.equal(badId.code, 2);
      assert.match(badId.stderr, /invalid_id at --plan/);
    });
  });
}
