// `praxis plan show` shows the budget the executor enforces: a plan that stated none is held to 20
// invocations and says so (text and --json), as the API's plan detail does. A real process.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { praxis as run, storeEnv, type Finished } from '../daemon/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-budget-'));
const db = join(dir, 'praxis.db');
const praxis = (args: string[]): Promise<Finished> => run(args, storeEnv({ kind: 'sqlite', path: db }));

describe('praxis plan show: the enforced budget', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the default cap of a plan without a budget, and a stated cap beside it', async () => {
    assert.equal((await praxis(['mind', 'create', 'ops'])).code, 0);
    const step = { key: 'S1', title: 'Look at nginx', kind: 'capability', capability: 'service.status', params: { unit: 'nginx.service' } };
    const silent = join(dir, 'silent.json');
    writeFileSync(silent, JSON.stringify({ objective: 'Look at nginx', steps: [step] }));
    const capped = join(dir, 'capped.json');
    writeFileSync(capped, JSON.stringify({ objective: 'Look at nginx, asking once at most', budget: { approvals: 1 }, steps: [step] }));

    const ids: string[] = [];
    for (const file of [silent, capped]) {
      const submitted = await praxis(['plan', 'submit', '--mind', 'ops', '--json', file]);
      assert.equal(submitted.code, 0, submitted.stdout + submitted.stderr);
      ids.push((JSON.parse(submitted.stdout) as { plan_id: string }).plan_id);
    }
    const [silentId, cappedId] = ids;

    const json = await praxis(['plan', 'show', '--json', silentId!]);
    assert.deepEqual((JSON.parse(json.stdout) as { budget: object }).budget, { invocations: 20 });
    const text = await praxis(['plan', 'show', silentId!]);
    assert.match(text.stdout, /^budget: invocations 20$/m);
    const stated = await praxis(['plan', 'show', '--json', cappedId!]);
    assert.deepEqual((JSON.parse(stated.stdout) as { budget: object }).budget, { approvals: 1, invocations: 20 });
  });
});
