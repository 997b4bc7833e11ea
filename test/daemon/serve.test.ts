// `praxis serve` as a real process on both stores: probes, metrics from the store, and a prompt,
// clean exit on SIGTERM.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { submitPlan } from '../../src/drafting/submit-plan.ts';
import { METRIC_NAMES } from '../../src/daemon/metrics.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { praxis, ROOT, startServe, storeEnv } from './process.ts';

const restartPlan = JSON.parse(readFileSync(`${ROOT}/examples/restart-atlas-worker.json`, 'utf8')) as unknown;

for (const kind of STORE_KINDS) {
  describe(`praxis serve (${kind})`, () => {
    const current = useStore(kind);

    it('answers health, readiness and metrics read from the store, then exits 0 promptly on SIGTERM', async () => {
      const { store, config } = current();
      // A mind bound to another host: this daemon counts its plan but never runs it, so no test
      // touches a real unit.
      const mind = await store.minds.create({ name: 'elsewhere', host: 'some-other-host' });
      const submitted = await submitPlan(store, builtinRegistry(), { mindId: mind.id, input: restartPlan, origin: 'operator' });
      assert.ok(submitted.stored && submitted.plan.status === 'validated');

      const daemon = await startServe(['--executor-host', 'test-host', '--tick-ms', '200'], storeEnv(config));
      try {
        const health = await fetch(`${daemon.url}/healthz`);
        assert.equal(health.status, 200);
        const ready = await fetch(`${daemon.url}/readyz`);
        assert.equal(ready.status, 200, 'ready once migrated and the executor runs');

        // The first pass may still be running right after readiness; wait for it (bounded).
        let metrics = '';
        for (let i = 0; i < 50 && !/^praxis_ticks_total [1-9]/m.test(metrics); i += 1) {
          if (i > 0) await new Promise((r) => setTimeout(r, 100));
          metrics = await (await fetch(`${daemon.url}/metrics`)).text();
        }
        for (const name of METRIC_NAMES) assert.match(metrics, new RegExp(`^# TYPE ${name} `, 'm'), `${name} is exported`);
        assert.match(metrics, /^praxis_steps\{status="pending",kind="capability"\} 1$/m, 'the seeded plan is counted');
        assert.match(metrics, /^praxis_steps\{status="pending",kind="verify"\} 1$/m);
        assert.match(metrics, /^praxis_approvals_pending 0$/m);
        assert.match(metrics, /^praxis_ticks_total [1-9]\d*$/m, 'the executor loop has ticked');
        // A pass that has run has spent time on finding due steps: every pass looks for them.
        assert.match(metrics, /^praxis_pass_phase_seconds_total\{phase="finding due steps"\} (?!0$)\d/m, 'the parts of the passes are timed');
        assert.match(metrics, /^praxis_pass_phase_seconds_total\{phase="moving"\} \d/m, 'every part is exported from the start');
        assert.match(metrics, /^process_cpu_user_seconds_total /m, 'process metrics too');

        const unauthenticated = await fetch(`${daemon.url}/api/v1/minds`);
        assert.equal(unauthenticated.status, 401, 'without --anonymous every API request needs a token');
        assert.equal((await store.plans.get(submitted.plan.id))?.status, 'validated', "another host's plan is left alone");
      } finally {
        const stopped = await daemon.stop('SIGTERM');
        assert.equal(stopped.code, 0, daemon.stderr());
        assert.ok(stopped.ms < 10_000, `stopped in ${stopped.ms} ms`);
      }
      const events = daemon.lines.map((l) => l.event).filter(Boolean);
      assert.deepEqual(events.slice(-2), ['stopping', 'stopped']);
      assert.ok(
        daemon.lines.every((l) => !('unparsed' in l)),
        'every log line is JSON',
      );
    });

    it('does not hang on an open event stream when stopped', async () => {
      const { config } = current();
      const daemon = await startServe(['--anonymous', 'viewer'], storeEnv(config));
      const controller = new AbortController();
      let streamStatus = 0;
      try {
        const stream = await fetch(`${daemon.url}/api/v1/stream`, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
        streamStatus = stream.status;
      } catch {
        streamStatus = -1;
      }
      const stopped = await daemon.stop('SIGINT');
      controller.abort();
      assert.equal(stopped.code, 0, daemon.stderr());
      assert.ok(stopped.ms < 10_000, `stopped in ${stopped.ms} ms with a stream open (stream answered ${streamStatus})`);
    });
  });
}

describe('praxis serve on a PostgreSQL that never answers', () => {
  it('exits 3 naming the failure and makes no daemon secret for it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'praxis-serve-unreached-'));
    try {
      // Port 1 on loopback: nothing listens, the connection is refused at once.
      const finished = await praxis(['serve', '--port', '0'], { PRAXIS_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/praxis', PRAXIS_DB: '', PRAXIS_SECRET_FILE: '' }, { cwd });
      assert.equal(finished.code, 3, finished.stderr);
      assert.match(finished.stderr, /ECONNREFUSED/);
      assert.equal(existsSync(join(cwd, '.praxis', 'daemon.secret')), false, 'no secret for a database never reached');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
