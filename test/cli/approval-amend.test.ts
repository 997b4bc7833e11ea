// `praxis approval amend` as an operator runs it: a real process on a SQLite store. The amended
// action replaces the pending one, the original stays on the request, the amending operator
// cannot approve it, and bad input exits 2 changing nothing.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { praxis as run, storeEnv, type Finished } from '../daemon/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-amend-'));
const db = join(dir, 'praxis.db');
const praxis = (args: string[]): Promise<Finished> => run(args, storeEnv({ kind: 'sqlite', path: db }));

describe('praxis approval amend', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('amends a pending invocation; the amender cannot approve it, another operator can', async () => {
    assert.equal((await praxis(['mind', 'create', 'ops'])).code, 0);
    const invoked = await praxis(['invoke', 'service.restart', '--mind', 'ops', '--params', '{"unit":"nginx.service"}', '--as', 'alice', '--json']);
    assert.equal(invoked.code, 0, invoked.stderr);
    const pending = JSON.parse(invoked.stdout) as { status: string; approvalId: string };
    assert.equal(pending.status, 'pending');
    const id = pending.approvalId;

    const listed = async () =>
      (JSON.parse((await praxis(['approvals', '--all', '--json'])).stdout) as { id: string; target: string; params: object; amendments: { operator: string; from: { params: object } }[] }[]).find(
        (a) => a.id === id,
      )!;

    // Refused input changes nothing: unreadable or invalid parameters exit 2.
    const notJson = await praxis(['approval', 'amend', id, '--params', '{unit:', '--as', 'bob']);
    assert.equal(notJson.code, 2);
    assert.match(notJson.stdout + notJson.stderr, /--params/);
    const badUnit = await praxis(['approval', 'amend', id, '--params', '{"unit":"nginx;id"}', '--as', 'bob', '--json']);
    assert.equal(badUnit.code, 2, badUnit.stdout + badUnit.stderr);
    assert.equal((JSON.parse(badUnit.stdout) as { errors: { code: string }[] }).errors[0]!.code, 'invalid_params');
    // A target that differs from the one the parameters imply is refused (the catalogue's exit for target_mismatch, as a plan's).
    const mismatch = await praxis(['approval', 'amend', id, '--params', '{"unit":"nginx-worker.service"}', '--target', 'nginx.service', '--as', 'bob']);
    assert.equal(mismatch.code, 1);
    assert.match(mismatch.stderr, /target_mismatch/);
    assert.deepEqual((await listed()).amendments, []);

    const amended = await praxis(['approval', 'amend', id, '--params', '{"unit":"nginx-worker.service"}', '--reason', 'only the worker needs it', '--as', 'bob']);
    assert.equal(amended.code, 0, amended.stderr);
    assert.match(amended.stdout, /amended .*service.restart on nginx-worker.service/);
    assert.match(amended.stdout, /other than its authors \(alice, bob\)/);
    const stored = await listed();
    assert.equal(stored.target, 'nginx-worker.service');
    assert.equal(stored.amendments[0]!.operator, 'bob');
    assert.deepEqual(stored.amendments[0]!.from.params, { unit: 'nginx.service' });

    const byAmender = await praxis(['approve', id, '--as', 'bob']);
    assert.equal(byAmender.code, 1);
    assert.match(byAmender.stderr, /self_approval.*amended this action/);
    const unchanged = await praxis(['approval', 'amend', id, '--params', '{"unit":"nginx-worker.service"}', '--as', 'carol']);
    assert.equal(unchanged.code, 1);
    assert.match(unchanged.stderr, /unchanged/);
    const approved = await praxis(['approve', id, '--as', 'carol']);
    assert.equal(approved.code, 0, approved.stderr);
    const late = await praxis(['approval', 'amend', id, '--params', '{"unit":"nginx.service"}', '--as', 'dave']);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /not_pending/);
  });
});
