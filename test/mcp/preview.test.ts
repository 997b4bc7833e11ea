// preview_plan over MCP, on both stores: an agent sees what its proposal would meet and cost
// before proposing it, for its own mind only, and nothing is stored.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Store } from '../../src/store/index.ts';
import { exampleRestart } from '../daemon/process.ts';
import { makeWorld } from '../execution/support.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { connect, ok, refused, serveMcp, tokenFor } from './support.ts';

async function planRows(store: Store): Promise<number[]> {
  const counts: number[] = [];
  for (const table of ['plans', 'plan_steps', 'intentions', 'approval_requests', 'capability_requests', 'events']) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
    counts.push(Number(rows[0]!.n));
  }
  return counts;
}

for (const kind of STORE_KINDS) {
  describe(`preview_plan over MCP (${kind})`, () => {
    const current = useStore(kind);
    const cleanup: (() => Promise<void> | void)[] = [];
    after(async () => {
      for (const done of cleanup.reverse()) await done();
    });

    it('previews a proposal for the agent’s mind and stores nothing', async () => {
      const w = await makeWorld(current(), { simulated: true });
      const http = await serveMcp(w);
      const agent = await connect(http.url, await tokenFor(w, 'agent'));
      cleanup.push(
        () => w.host?.remove(),
        () => http.close(),
        () => agent.close(),
      );
      const before = await planRows(w.store);

      const preview = await ok(agent, 'preview_plan', { plan: exampleRestart() });
      assert.equal(preview.valid, true);
      assert.equal(preview.mind.id, w.mind.id);
      assert.deepEqual(
        preview.steps.map((s: { key: string; needs: string }) => [s.key, s.needs]),
        [
          ['P1', 'approval'],
          ['V1', 'nothing'],
        ],
      );
      assert.equal(preview.attention.approval_requests, 1);
      const invalid = await ok(agent, 'preview_plan', { plan: { ...exampleRestart(), assumptions: [{ statement: 'x', belief_id: '0190a5a0-0000-7000-8000-00000000000a', min_confidence: 0.5 }] } });
      assert.equal(invalid.valid, false);
      assert.equal(invalid.errors[0].code, 'assumption_belief_missing');
      // Something that is no plan at all is refused at `plan`, as propose_plan refuses it.
      const notAPlan = await refused(agent, 'preview_plan', { plan: 'hello' }, /plan/);
      assert.equal(notAPlan.json.error.path, 'plan');
      const other = await w.store.minds.create({ name: `other-${w.mind.id.slice(-6)}` });
      await refused(agent, 'preview_plan', { mind: other.name, plan: exampleRestart() }, /speaks for mind/);
      assert.deepEqual(await planRows(w.store), before);
    });
  });
}
