// The daemon secret (issue 15) on both stores: made on first start, owner-only, beside the SQLite
// file or where configured, read again on the next start; a file others can read stops the
// daemon before it opens the store; daemons of one database that hold different secrets say so
// at start and refuse each other's requests, which stay pending for the right daemon.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { InputError } from '../../src/core/errors.ts';
import { loadDaemonConfig, resolveDaemonConfig } from '../../src/daemon/config.ts';
import { createLogger } from '../../src/daemon/logger.ts';
import { startDaemon, type Daemon } from '../../src/daemon/serve.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

/** A daemon whose log lines are kept, parsed. */
async function daemonOn(db: string, secretFile: string | undefined, host: SimulatedHost): Promise<{ daemon: Daemon; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadDaemonConfig({ db, port: '0', logLevel: 'info', console: 'none', tickMs: '60000', ...(secretFile ? { secretFile } : {}) }, {});
  const daemon = await startDaemon({ config, logger: createLogger('info', sink), implementations: builtinImplementations({ runner: host.runner() }) });
  return { daemon, lines };
}

for (const kind of STORE_KINDS) {
  describe(`the daemon secret (${kind})`, () => {
    const current = useStore(kind);
    const dir = mkdtempSync(join(tmpdir(), 'praxis-secret-'));
    const host = SimulatedHost.create(join(dir, 'host'));
    after(() => {
      host.remove();
      rmSync(dir, { recursive: true, force: true });
    });
    const db = () => (current().config.kind === 'sqlite' ? (current().config as { path: string }).path : (current().config as { url: string }).url);

    it('is made on first start, owner only, and read again on the next; never logged', async () => {
      const configured = join(dir, 'keys', 'a.secret');
      // SQLite keeps it beside the file unless told otherwise; PostgreSQL is told here.
      const file = kind === 'sqlite' ? `${db()}.secret` : configured;
      const first = await daemonOn(db(), kind === 'sqlite' ? undefined : configured, host);
      await first.daemon.stop('test');
      assert.ok(existsSync(file), file);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const secret = readFileSync(file, 'utf8').trim();
      assert.match(secret, /^[0-9a-f]{64}$/);
      const made = first.lines.find((l) => l.event === 'daemon_secret');
      assert.deepEqual([made?.created, made?.file], [true, file]);
      assert.ok(!JSON.stringify(first.lines).includes(secret), 'the secret is never logged');

      const second = await daemonOn(db(), kind === 'sqlite' ? undefined : configured, host);
      await second.daemon.stop('test');
      const read = second.lines.find((l) => l.event === 'daemon_secret');
      assert.deepEqual([read?.created, read?.key_id], [false, made?.key_id]);
      assert.equal(readFileSync(file, 'utf8').trim(), secret);
    });

    it('a secret file others can read stops the daemon before it starts, naming the file', async () => {
      const file = join(dir, 'open.secret');
      await (await daemonOn(db(), file, host)).daemon.stop('test');
      chmodSync(file, 0o640);
      await assert.rejects(daemonOn(db(), file, host), (error: unknown) => {
        assert.ok(error instanceof InputError);
        assert.equal(error.problems[0]?.code, 'secret_file_exposed');
        assert.ok(error.problems[0]?.message.includes(file));
        return true;
      });
    });

    it('daemons holding different secrets: the newcomer warns at start and refuses, the request stays pending for the signer', async () => {
      const { store } = current();
      const signer = await daemonOn(db(), join(dir, 'signer.secret'), host);
      try {
        const mind = await store.minds.create({ name: `secret-${kind}` });
        await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 1 });
        host.setUnit('atlas-worker.service', { active_state: 'active', sub_state: 'running' });
        const raised = await signer.daemon.capabilities.invoke({
          mindId: mind.id,
          capability: 'service.restart',
          params: { unit: 'atlas-worker.service' },
          origin: 'operator:test',
          authoredBy: 'alice',
        });
        assert.equal(raised.status, 'pending');
        const id = raised.status === 'pending' ? raised.approvalId : '';

        const stranger = await daemonOn(db(), join(dir, 'stranger.secret'), host);
        try {
          const signerKey = signer.lines.find((l) => l.event === 'daemon_secret')?.key_id as string;
          const warning = stranger.lines.find((l) => l.event === 'daemon_secret_mismatch');
          assert.ok(warning, 'the newcomer says so at start');
          assert.equal(warning.level, 40);
          assert.deepEqual(warning.signed_with, [signerKey]);
          assert.match(String(warning.msg), /PRAXIS_SECRET_FILE/);
          const refused = await stranger.daemon.capabilities.approve(id, 'bob');
          assert.equal(refused.status === 'refused' && refused.code, 'digest_key_mismatch');
          assert.equal((await store.approvals.get(id))?.status, 'pending');
        } finally {
          await stranger.daemon.stop('test');
        }
        // The same file on another daemon: nothing to warn about, and it may decide.
        const twin = await daemonOn(db(), join(dir, 'signer.secret'), host);
        try {
          assert.equal(
            twin.lines.find((l) => l.event === 'daemon_secret_mismatch'),
            undefined,
          );
          assert.equal((await twin.daemon.capabilities.approve(id, 'bob')).status, 'approved');
        } finally {
          await twin.daemon.stop('test');
        }
      } finally {
        await signer.daemon.stop('test');
      }
    });
  });
}

describe('secretFile in the configuration', () => {
  const around = { defaultConsoleDir: null, defaultExecutorHost: 'h', consoleAt: (p: string) => p };
  it('comes from --secret-file, PRAXIS_SECRET_FILE or the file, strongest first; a bad one is refused naming its source', () => {
    const file = { path: 'praxis.yaml', values: { secretFile: '/etc/praxis/from-file' } };
    assert.equal(resolveDaemonConfig({}, {}, null, around).secretFile, null);
    assert.equal(resolveDaemonConfig({}, {}, file, around).secretFile, '/etc/praxis/from-file');
    assert.equal(resolveDaemonConfig({}, { PRAXIS_SECRET_FILE: '/run/env.secret' }, file, around).secretFile, '/run/env.secret');
    assert.equal(resolveDaemonConfig({ secretFile: '/flag.secret' }, { PRAXIS_SECRET_FILE: '/run/env.secret' }, file, around).secretFile, '/flag.secret');
    assert.throws(
      () => resolveDaemonConfig({}, {}, { path: 'praxis.yaml', values: { secretFile: 42 } }, around),
      (error: unknown) => error instanceof InputError && error.problems.some((p) => p.code === 'invalid_secret_file' && p.path === 'praxis.yaml: secretFile'),
    );
  });
});
