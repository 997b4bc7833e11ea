// The command line under the same rules (issue 15): the input rule over JSON parameters and plan
// files (exit 2, nothing stored), an author recorded for every one-off call (`--as`, else the OS
// user name), and four eyes comparing normalised names.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { praxis as run, storeEnv, type Finished } from '../daemon/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-cli-security-'));
const db = join(dir, 'praxis.db');
const praxis = (args: string[]): Promise<Finished> => run(args, storeEnv({ kind: 'sqlite', path: db }));

describe('praxis command under the input rule and four eyes', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a control character in --params or a plan file is exit 2 naming the field; nothing is stored', async () => {
    assert.equal((await praxis(['mind', 'create', 'ops'])).code, 0);
    const params = await praxis(['invoke', 'service.status', '--mind', 'ops', '--params', '{"unit":"nginx\\u0000.service"}', '--json']);
    assert.equal(params.code, 2, params.stdout + params.stderr);
    assert.equal(JSON.parse(params.stdout).errors[0].path, '--params.unit');
    assert.equal(JSON.parse(params.stdout).errors[0].code, 'control_character');

    const file = join(dir, 'nul.json');
    writeFileSync(file, JSON.stringify({ objective: 'nul\u0000', steps: [{ key: 'S1', title: 't', kind: 'capability', capability: 'host.memory.status' }] }));
    const submitted = await praxis(['plan', 'submit', '--mind', 'ops', file, '--json']);
    assert.equal(submitted.code, 2, submitted.stdout + submitted.stderr);
    assert.equal(JSON.parse(submitted.stdout).errors[0].path, 'objective');
    const plans = await praxis(['plans', '--mind', 'ops', '--json']);
    assert.deepEqual(JSON.parse(plans.stdout).items ?? JSON.parse(plans.stdout), []);
  });

  it('invoke without --as records the OS user as author; approve --as compares names normalised', async () => {
    assert.equal((await praxis(['policy', 'set', '--mind', 'ops', 'service.restart', '*', 'ask'])).code, 0);
    const raised = await praxis(['invoke', 'service.restart', '--mind', 'ops', '--params', '{"unit":"nginx.service"}', '--json']);
    assert.equal(raised.code, 0, raised.stderr);
    const first = JSON.parse(raised.stdout) as { status: string; approvalId: string };
    assert.equal(first.status, 'pending');
    const listed = JSON.parse((await praxis(['approvals', '--json'])).stdout) as { id: string; authoredBy: string }[];
    assert.equal(listed.find((a) => a.id === first.approvalId)?.authoredBy, userInfo().username);

    const byOper = JSON.parse((await praxis(['invoke', 'service.restart', '--mind', 'ops', '--params', '{"unit":"atlas.service"}', '--as', 'oper', '--json'])).stdout) as {
      approvalId: string;
    };
    const self = await praxis(['approve', byOper.approvalId, '--as', 'OPER', '--json']);
    assert.equal(self.code, 1, self.stdout + self.stderr);
    assert.equal(JSON.parse(self.stdout).errors[0].code, 'self_approval');
    const widened = await praxis(['approve', byOper.approvalId, '--as', ' Ｏper ', '--json']);
    assert.equal(JSON.parse(widened.stdout).errors[0].code, 'self_approval');
    const pending = JSON.parse((await praxis(['approvals', '--json'])).stdout) as { id: string; status: string }[];
    assert.equal(pending.find((a) => a.id === byOper.approvalId)?.status, 'pending');
  });
});
