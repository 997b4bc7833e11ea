// `praxis plan preview` from the built command, on both stores: a table or JSON of what each
// step would meet now, exit 0 for a valid plan and 1 for an invalid one, 2 for an unknown mind
// or a missing file, and nothing stored.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXAMPLE_RESTART, exampleRestart, praxis, storeEnv } from '../daemon/process.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-preview-'));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const kind of STORE_KINDS) {
  describe(`praxis plan preview (${kind})`, () => {
    const current = useStore(kind);

    it('prints each step’s decision and needs, exits by validity, and stores nothing', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const mind = await store.minds.create({ name: `preview-${kind}` });
      await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 2 });

      const table = await praxis(['plan', 'preview', EXAMPLE_RESTART, '--mind', mind.name], env);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^STEP\s+KIND\s+DECISION\s+NEEDS\s+ACTION\s+WHY$/m);
      assert.match(table.stdout, /^P1\s+capability\s+ask\s+two_approvals\s+service\.restart atlas-worker\.service\s+rule service\.restart \* → ask$/m);
      assert.match(table.stdout, /^operators: 1 approval request\(s\), 0 capability request\(s\), 2 decision\(s\); 0 grant operation\(s\)$/m);

      const json = await praxis(['plan', 'preview', EXAMPLE_RESTART, '--mind', mind.name, '--json'], env);
      assert.equal(json.code, 0, json.stderr);
      const preview = JSON.parse(json.stdout);
      assert.deepEqual(
        preview.steps.map((s: { key: string; decision: string }) => [s.key, s.decision]),
        [
          ['P1', 'ask'],
          ['V1', 'none'],
        ],
      );
      assert.deepEqual(preview.budget, { invocations: 10, approvals: 1, wall_seconds: 300 });

      const invalidFile = join(dir, `invalid-${kind}.json`);
      writeFileSync(invalidFile, JSON.stringify({ ...exampleRestart(), assumptions: [{ statement: 'x', min_confidence: 7 }] }));
      const invalid = await praxis(['plan', 'preview', invalidFile, '--mind', mind.name], env);
      assert.equal(invalid.code, 1);
      assert.match(invalid.stdout, /error invalid_min_confidence at assumptions\[0\]\.min_confidence/);

      const unknown = await praxis(['plan', 'preview', EXAMPLE_RESTART, '--mind', 'nobody'], env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown_mind/);
      const missing = await praxis(['plan', 'preview', join(dir, 'none.json'), '--mind', mind.name], env);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /unreadable_file/);
      assert.deepEqual(await store.plans.listByMind(mind.id), []);
      assert.deepEqual(await store.events.list({ mindId: mind.id }), []);
    });
  });
}
