import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { programArgs } from '../support/programs.ts';

function runCrashInvoker(config: unknown, mindId: string, origin: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...programArgs(new URL('../support/crash-invoker.ts', import.meta.url)), JSON.stringify(config), mindId, origin], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, output }));
  });
}

for (const kind of STORE_KINDS) {
  describe(`write-ahead execution records (${kind})`, () => {
    const current = useStore(kind);

    it('leaves a `started` record, findable by origin, when the process dies before the side effect', async () => {
      const { store, config } = current();
      const mind = await store.minds.create({ name: 'crashy' });
      await store.policyRules.set({ mindId: mind.id, capability: 'test.write', targetPattern: '*', decision: 'allow', approvers: 1 });
      const origin = `plan_step:${crypto.randomUUID()}`;
      const run = await runCrashInvoker(config, mind.id, origin);
      assert.equal(run.signal, 'SIGKILL', `the invoker should have been killed mid-action: ${run.output}`);
      const found = await store.executions.listByOrigin(origin);
      assert.equal(found.length, 1);
      assert.equal(found[0]!.status, 'started');
      assert.equal(found[0]!.capability, 'test.write');
      assert.equal(found[0]!.target, 'crash-target');
      assert.equal(found[0]!.finishedAt, null);
    });
  });
}
