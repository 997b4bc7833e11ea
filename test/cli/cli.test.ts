// The `praxis` command as an operator runs it: a real process, real files, a SQLite store.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { praxis as run, storeEnv, type Finished } from '../daemon/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'praxis-cli-'));
const db = join(dir, 'praxis.db');

const praxis = (args: string[], input?: string): Promise<Finished> => run(args, storeEnv({ kind: 'sqlite', path: db }), { input });

describe('praxis command', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('validates plan files, with --json and exit codes', async () => {
    const valid = await praxis(['validate', 'examples/restart-atlas-worker.json', 'examples/diagnose-atlas-worker.yaml']);
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /restart-atlas-worker.json: valid/);

    const invalid = await praxis(['validate', '--json', 'examples/invalid/cycle.yaml']);
    assert.equal(invalid.code, 1);
    const report = JSON.parse(invalid.stdout) as { valid: boolean; errors: { code: string; message: string; path: string }[]; warnings: unknown[] };
    assert.equal(report.valid, false);
    assert.deepEqual(Object.keys(report.errors[0]!).sort(), ['code', 'message', 'path']);
    assert.equal(report.errors[0]!.code, 'dependency_cycle');
    assert.match(report.errors[0]!.message, /R2 -> R3 -> R2/);

    const missing = await praxis(['validate', join(dir, 'nope.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stdout, /unreadable_file/);

    const garbage = join(dir, 'garbage.yaml');
    writeFileSync(garbage, 'objective: [unclosed\n');
    const malformed = await praxis(['validate', '--json', garbage]);
    assert.equal(malformed.code, 2, 'not JSON or YAML at all: a usage error, as docs/error-codes.md has malformed_input');
    assert.equal((JSON.parse(malformed.stdout) as { errors: { code: string }[] }).errors[0]!.code, 'malformed_input');
  });

  it('stores an operator plan and a proposal claiming approval without granting it', async () => {
    assert.equal((await praxis(['mind', 'create', 'ops'])).code, 0);
    const proposal = join(dir, 'proposal.json');
    writeFileSync(
      proposal,
      JSON.stringify({
        objective: 'Restart nginx',
        approved: true,
        steps: [
          {
            key: 'P1',
            title: 'Restart nginx',
            kind: 'capability',
            capability: 'service.restart',
            params: { unit: 'nginx.service' },
            require_approval: false,
            status: 'completed',
            expectation: {
              statement: 'nginx is active',
              confidence: 0.9,
              within_seconds: 60,
              check: { capability: 'service.status', params: { unit: 'nginx.service' }, field: 'active_state', comparison: 'equals', value: 'active' },
            },
          },
        ],
      }),
    );
    const submitted = await praxis(['plan', 'submit', '--mind', 'ops', '--json', proposal]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const result = JSON.parse(submitted.stdout) as { status: string; plan_id: string; warnings: { code: string; path: string }[] };
    assert.equal(result.status, 'validated');
    assert.deepEqual(result.warnings.map((w) => w.path).sort(), ['approved', 'steps[0].require_approval', 'steps[0].status']);

    const shown = await praxis(['plan', 'show', '--json', result.plan_id]);
    const plan = JSON.parse(shown.stdout) as { steps: { status: string; requireApproval: boolean; target: string }[] };
    assert.deepEqual(
      plan.steps.map((s) => [s.status, s.requireApproval, s.target]),
      [['pending', false, 'nginx.service']],
    );
    // What the step would meet is exactly what policy says: restarts ask.
    const preview = await praxis(['preview', 'service.restart', '--mind', 'ops', '--params', '{"unit":"nginx.service"}', '--json']);
    assert.equal(preview.code, 0);
    assert.equal((JSON.parse(preview.stdout) as { needs: string }).needs, 'approval');
  });

  it('answers bad input with a typed error and a usage exit code', async () => {
    const badParams = await praxis(['invoke', 'service.status', '--mind', 'ops', '--params', '{"unit":"nginx.service;id"}', '--json']);
    assert.equal(badParams.code, 2);
    assert.equal((JSON.parse(badParams.stdout) as { code: string }).code, 'invalid_params');

    const notJson = await praxis(['invoke', 'service.status', '--mind', 'ops', '--params', '{unit:', '--json']);
    assert.equal(notJson.code, 2);
    assert.equal((JSON.parse(notJson.stdout) as { errors: { path: string }[] }).errors[0]!.path, '--params');

    const badRule = await praxis(['policy', 'set', '--mind', 'ops', 'service.restart', '*', 'sometimes']);
    assert.equal(badRule.code, 2);
    assert.match(badRule.stderr, /invalid_decision at decision/);

    const noMind = await praxis(['policy', 'list', '--mind', 'ghost']);
    assert.equal(noMind.code, 2);
    assert.match(noMind.stderr, /unknown_mind/);

    assert.equal((await praxis(['validate', '--frobnicate'])).code, 2);
  });

  it('sets policy and invokes a denied capability with a refusal exit code', async () => {
    assert.equal((await praxis(['policy', 'set', '--mind', 'ops', 'host.*', '*', 'deny'])).code, 0);
    const denied = await praxis(['invoke', 'host.memory.status', '--mind', 'ops', '--json']);
    assert.equal(denied.code, 1);
    assert.deepEqual((({ status, code }) => ({ status, code }))(JSON.parse(denied.stdout) as { status: string; code: string }), { status: 'denied', code: 'policy_denied' });
  });

  it('forms and plans an intention, and abandons one no strategy can serve', async () => {
    const planned = await praxis(['intend', '--mind', 'ops', '--json', 'investigate nginx.service']);
    assert.equal(planned.code, 0, planned.stderr);
    const result = JSON.parse(planned.stdout) as { planning: { status: string; strategy: string; plan: { status: string; steps: { key: string }[] } } };
    assert.equal(result.planning.status, 'planned');
    assert.equal(result.planning.strategy, 'diagnose');
    assert.equal(result.planning.plan.status, 'validated');
    assert.ok(result.planning.plan.steps.some((s) => s.key === 'S1'));
    const impossible = await praxis(['intend', '--mind', 'ops', 'make coffee']);
    assert.equal(impossible.code, 1);
    assert.match(impossible.stdout, /no possible plan/);
  });

  it('masks standard input', async () => {
    const masked = await praxis(['mask'], 'login ok for bob@example.com from 10.1.2.3 password=hunter2\nplain line\n');
    assert.equal(masked.code, 0);
    assert.ok(!/bob@example.com|10\.1\.2\.3|hunter2/.test(masked.stdout), masked.stdout);
    assert.match(masked.stdout, /plain line/);
  });
});
