// `praxis wants --mind M` from the built command, on both stores.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { praxis, storeEnv } from '../daemon/process.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`praxis wants (${kind})`, () => {
    const current = useStore(kind);

    it('lists a mind’s wants newest first, filtered by status, as a table or JSON', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const mind = await store.minds.create({ name: `wants-${kind}` });
      const open = await store.wants.create({ mindId: mind.id, statement: 'keep the disk below 80%', origin: 'dream' });
      const intention = await store.intentions.create({ mindId: mind.id, objective: 'write a haiku', origin: 'operator' });
      await store.wants.create({ mindId: mind.id, statement: 'write a haiku', origin: 'intention', status: 'suppressed', reason: 'no_possible_plan', intentionId: intention.id });

      const table = await praxis(['wants', '--mind', mind.name], env);
      assert.equal(table.code, 0, table.stderr);
      const lines = table.stdout.trim().split('\n');
      assert.match(lines[0]!, /^ID\s+STATUS\s+ORIGIN\s+REASON\s+AGE\s+STATEMENT$/);
      assert.match(lines[1]!, /suppressed\s+intention\s+no_possible_plan\s+\d+[smhd]\s+write a haiku$/);
      assert.match(lines[2]!, new RegExp(`^${open.id}\\s+open\\s+dream\\s+-\\s+\\d+[smhd]\\s+keep the disk below 80%$`));
      const onlyOpen = JSON.parse((await praxis(['wants', '--mind', mind.name, '--status', 'open', '--json'], env)).stdout) as { id: string }[];
      assert.deepEqual(
        onlyOpen.map((w) => w.id),
        [open.id],
      );
      const bad = await praxis(['wants', '--mind', mind.name, '--status', 'maybe'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /invalid_status at --status/);
    });
  });
}
