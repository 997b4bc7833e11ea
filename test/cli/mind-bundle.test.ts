// `praxis mind fork`, `praxis mind export` and `praxis mind import` from the built command, on
// both stores: a fork in the same store, an export file imported into another store, and
// refusals (a taken name, a bundle of another version, a file that is not JSON) that exit 2
// naming the problem and write nothing.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import { exampleRestart, praxis, storeEnv } from '../daemon/process.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-bundle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const kind of STORE_KINDS) {
  describe(`praxis mind fork, export, import (${kind})`, () => {
    const source = useStore(kind);
    const target = useStore(kind);

    it('forks in place, exports to a file and imports it elsewhere; refusals exit as their codes say (a taken name 1, bad input 2) and write nothing', async () => {
      const { store, config } = source();
      const env = storeEnv(config);
      const mind = await store.minds.create({ name: `atlas-${kind}` });
      await store.beliefs.create({ mindId: mind.id, statement: 'atlas-worker recovers from a restart', confidence: 0.7 });
      await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 2 });
      const submitted = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: exampleRestart(), origin: 'operator', authoredBy: 'alice' });
      assert.ok(submitted.stored && submitted.plan.status === 'validated');

      const fork = await praxis(['mind', 'fork', mind.name, 'atlas-try', '--operator', 'adam', '--json'], env);
      assert.equal(fork.code, 0, fork.stderr);
      const forked = JSON.parse(fork.stdout) as { mind: { id: string; status: string; sandbox: boolean }; quiesced: Record<string, number> };
      assert.equal(forked.mind.status, 'disabled');
      assert.equal(forked.mind.sandbox, true);
      assert.deepEqual(forked.quiesced, { plans: 1, steps: 2, intentions: 1 });
      assert.equal((await store.policyRules.listByMind(forked.mind.id))[0]?.approvers, 2);
      assert.equal((await store.plans.get(submitted.plan.id))?.status, 'validated', 'the source plan is untouched');

      const taken = await praxis(['mind', 'fork', mind.name, 'atlas-try', '--operator', 'adam'], env);
      // A taken name is a refusal of what was asked (409 on the API), not a mistake in the command line.
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /error name_taken at name: a mind named "atlas-try" already exists/);

      const file = join(dir, `atlas-${kind}.json`);
      const exported = await praxis(['mind', 'export', mind.name, '--out', file], env);
      assert.equal(exported.code, 0, exported.stderr);
      const bundle = JSON.parse(readFileSync(file, 'utf8')) as { format: string; version: number; tables: Record<string, unknown[]> };
      assert.equal(bundle.format, 'praxis.mind');
      assert.equal(bundle.version, 1);
      assert.equal(bundle.tables.beliefs!.length, 1);

      const elsewhere = storeEnv(target().config);
      const imported = await praxis(['mind', 'import', file, '--as', 'atlas-moved', '--operator', 'adam'], elsewhere);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^imported mind atlas-moved \(.+, active\); quiesced 1 plan\(s\), 2 step\(s\), 1 intention\(s\)$/m);
      const moved = await target().store.minds.getByName('atlas-moved');
      assert.ok(moved);
      const [plan] = await target().store.plans.listByMind(moved.id);
      assert.equal(plan?.status, 'blocked');

      const minds = (await target().store.minds.list()).length;
      const newer = join(dir, `v2-${kind}.json`);
      writeFileSync(newer, JSON.stringify({ ...bundle, version: 2 }));
      const wrongVersion = await praxis(['mind', 'import', newer, '--as', 'atlas-v2', '--operator', 'adam'], elsewhere);
      assert.equal(wrongVersion.code, 2);
      assert.match(wrongVersion.stderr, /error unsupported_bundle_version at version: this Praxis reads mind bundles of version 1, not 2/);
      const notJson = join(dir, `broken-${kind}.json`);
      writeFileSync(notJson, '{ "format": ');
      const broken = await praxis(['mind', 'import', notJson, '--operator', 'adam'], elsewhere);
      assert.equal(broken.code, 2);
      assert.match(broken.stderr, /error malformed_input at file/);
      const again = await praxis(['mind', 'import', file, '--as', 'atlas-moved', '--operator', 'adam', '--json'], elsewhere);
      assert.equal(again.code, 1);
      assert.equal(JSON.parse(again.stdout).errors[0].code, 'name_taken');
      assert.equal((await target().store.minds.list()).length, minds);
    });
  });
}
