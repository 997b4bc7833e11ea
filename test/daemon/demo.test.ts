// `praxis demo --auto` end to end as a real process: the whole story plays in real time on the
// simulated host and the process exits 0 once the escalation note is written.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../../src/store/index.ts';
import { BIN, praxis } from './process.ts';

describe('praxis demo --auto', () => {
  it('plays the story: approval, refuted restart, replan, granted log access, summary, escalation note', { timeout: 150_000 }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'praxis-demo-'));
    // The demo's own temporary directory, so its simulated host is told apart from those of tests
    // running beside it.
    const temp = join(cwd, 'tmp');
    mkdirSync(temp);
    try {
      const run = await praxis(['demo', '--auto', '--port', '0'], { PRAXIS_DATABASE_URL: '', PRAXIS_DB: '', TMPDIR: temp }, { cwd, timeoutMs: 140_000 });
      assert.equal(run.code, 0, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
      assert.match(run.stdout, /http:\/\/127\.0\.0\.1:\d+\/#token=praxis_\S+/, 'the console address carries the token');
      assert.match(run.stdout, /approval requested for service\.restart on atlas-worker\.service/);
      assert.match(run.stdout, /prediction_error/);
      assert.match(run.stdout, /plan_replanned/);
      assert.match(run.stdout, /capability request: logs\.query on atlas-worker\.service/);
      assert.match(run.stdout, /escalation note: .*not being repeated/);
      // The note carries what the diagnosis found in the journal (issue 16).
      assert.match(run.stdout, /escalation note: .*Findings S1: Found: atlas-worker\.service logged: fatal: pool exhausted for \[email\]/);

      // The story is in the demo database for anyone to look at afterwards.
      const db = join(cwd, '.praxis', 'demo.db');
      assert.ok(existsSync(db));
      // Its directory is its owner's alone, whatever the umask (the store and secret go in it).
      assert.equal(statSync(join(cwd, '.praxis')).mode & 0o777, 0o700);
      const store = await openStore({ kind: 'sqlite', path: db });
      try {
        const mind = await store.minds.getByName('demo');
        const plans = await store.plans.listPage({ mindId: mind!.id, limit: 10 });
        assert.deepEqual(
          plans.map((p) => [p.revision, p.strategy, p.status]),
          [
            [2, 'diagnose_then_escalate', 'completed'],
            [1, 'direct', 'superseded'],
          ],
        );
        const approvals = await store.approvals.list({ mindId: mind!.id });
        assert.deepEqual(
          approvals.map((a) => [a.capability, a.status]),
          [['service.restart', 'executed']],
        );
        const restarts = (await store.executions.listByMind(mind!.id)).filter((e) => e.capability === 'service.restart');
        assert.equal(restarts.length, 1, 'the failed restart was never repeated');
        // `praxis plan show` on the diagnosis lists the finding.
        const shown = await praxis(['plan', 'show', plans[0]!.id], { PRAXIS_DB: db, PRAXIS_DATABASE_URL: '' }, { cwd });
        assert.equal(shown.code, 0, shown.stderr);
        assert.match(shown.stdout, /findings of S1:\n {2}fatal {4}atlas-worker\.service logged: fatal: pool exhausted for \[email\]\n/);
      } finally {
        await store.close();
      }
      assert.deepEqual(
        readdirSync(temp).filter((n) => n.startsWith('praxis-simhost-')),
        [],
        'the simulated host directory was removed',
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('Ctrl-C stops it cleanly: exit 1 saying so, the simulated host directory removed, the demo lock let go', { timeout: 60_000 }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'praxis-demo-'));
    const temp = join(cwd, 'tmp');
    mkdirSync(temp);
    try {
      const child = spawn(process.execPath, [BIN, 'demo', '--auto', '--port', '0'], {
        cwd,
        env: { ...process.env, PRAXIS_DATABASE_URL: '', PRAXIS_DB: '', TMPDIR: temp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
          if (/approval requested for/.test(stdout)) resolve();
        });
        exited.then(() => reject(new Error(`the demo ended before its approval: ${stdout}\n${stderr}`)));
      });
      assert.equal(readdirSync(temp).filter((n) => n.startsWith('praxis-simhost-')).length, 1, 'the story runs on a simulated host of its own');
      child.kill('SIGINT');
      assert.equal(await exited, 1, `stdout:\n${stdout}\nstderr:\n${stderr}`);
      assert.match(stderr, /praxis demo: interrupted \(SIGINT\)/);
      assert.deepEqual(
        readdirSync(temp).filter((n) => n.startsWith('praxis-simhost-')),
        [],
        'the simulated host directory was removed',
      );
      // Let go: another demo starts on the same directory instead of being told one is running.
      const again = await praxis(['demo', '--auto', '--port', '0', '--timeout', '1'], { PRAXIS_DATABASE_URL: '', PRAXIS_DB: '', TMPDIR: temp }, { cwd, timeoutMs: 30_000 });
      assert.doesNotMatch(again.stderr, /already running/);
      assert.match(again.stderr, /did not finish within 1 s/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
