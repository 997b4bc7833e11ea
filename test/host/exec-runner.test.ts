// The real runner against the fixture programs. No test here touches a real unit: every
// program path points into src/capabilities/host/simulated/.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import type { HostCommand } from '../../src/capabilities/host/commands.ts';
import { execFileRunner, HOST_ENVIRONMENT } from '../../src/capabilities/host/runner.ts';
import { SIMULATED_PROGRAMS, SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('execFileRunner against the simulated host', () => {
  let host: SimulatedHost;
  before(() => {
    host = SimulatedHost.create();
    host.setUnit('nginx.service', { active_state: 'active', sub_state: 'running', main_pid: 812, since: '2026-12-01T08:00:00Z' });
  });
  after(() => host.remove());

  it('runs a show and gets systemd-format output', async () => {
    const result = await host.runner().run({ program: 'systemctl', operation: 'show', unit: 'nginx.service' }, { timeoutMs: 5000 });
    assert.equal(result.exitCode, 0);
    assert.equal(result.truncated, false);
    assert.equal(
      result.stdout,
      // In systemd 252's own order (test/host/support/captured/show-running.json).
      // A loaded service requires sysinit.target and its slice by default, as systemd adds.
      'MainPID=812\nId=nginx.service\nRequires=sysinit.target system.slice\nWants=\nBindsTo=\nUpholds=\nOnSuccess=\nTriggers=\nLoadState=loaded\nActiveState=active\nSubState=running\nStateChangeTimestamp=Tue 2026-12-01 08:00:00 UTC\nSuccessAction=none\n',
    );
  });

  it('gives the program only the fixed environment (plus the simulated host directory)', async () => {
    process.env.PRAXIS_TEST_LEAK = 'must-not-be-seen';
    host.setBehaviour('systemctl', { print_env: true });
    try {
      const result = await host.runner().run({ program: 'systemctl', operation: 'show', unit: 'nginx.service' }, { timeoutMs: 5000 });
      const line = result.stdout.split('\n').find((l) => l.startsWith('ENV='));
      assert.ok(line, result.stdout);
      const env = JSON.parse(line.slice(4)) as Record<string, string>;
      assert.deepEqual(env, { ...HOST_ENVIRONMENT, PRAXIS_SIM_HOST_DIR: host.dir });
      assert.deepEqual(Object.keys(HOST_ENVIRONMENT).sort(), ['LANG', 'PATH', 'SYSTEMD_COLORS', 'SYSTEMD_PAGER', 'SYSTEMD_PAGERSECURE', 'TZ']);
    } finally {
      delete process.env.PRAXIS_TEST_LEAK;
      host.setBehaviour('systemctl', null);
    }
  });

  it('refuses disallowed commands without starting a process', async () => {
    const runner = host.runner();
    const before = host.calls().length;
    const refused: unknown[] = [
      { program: 'sh', operation: 'show', unit: 'nginx.service' },
      { program: 'systemctl', operation: 'stop', unit: 'nginx.service' },
      { program: 'systemctl', operation: 'show', unit: '-H.service' },
      { program: 'journalctl', operation: 'read', unit: 'nginx.service', lines: 1, since: 'today; reboot' },
    ];
    for (const command of refused) {
      await assert.rejects(runner.run(command as HostCommand, { timeoutMs: 5000 }), (e: unknown) => e instanceof CapabilityError && e.code === 'command_refused');
    }
    assert.equal(host.calls().length, before);
  });

  it('the fixture itself rejects any other argument shape', async () => {
    // Bypass the runner's builder on purpose, to prove the fixture is strict (so the
    // end-to-end tests really pin the shape).
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(SIMULATED_PROGRAMS.systemctl, ['show', 'nginx.service'], {
      env: { ...HOST_ENVIRONMENT, PRAXIS_SIM_HOST_DIR: host.dir },
      encoding: 'utf8',
    });
    assert.equal(run.status, 64);
    assert.match(run.stderr, /unexpected arguments/);
  });

  it('kills a program that runs past the timeout', async () => {
    host.setBehaviour('journalctl', { sleep_seconds: 30 });
    try {
      // The timeout leaves the fixture (a node script) time to start and write its PID even on
      // a loaded CI machine: 300 ms once killed it before it had, and there was no PID to check.
      // The sleeper asks for 30 s, so a runner that waited for it still shows plainly.
      const started = Date.now();
      await assert.rejects(
        host.runner().run({ program: 'journalctl', operation: 'read', unit: 'nginx.service', lines: 5 }, { timeoutMs: 3000 }),
        (e: unknown) => e instanceof CapabilityError && e.code === 'timeout' && e.retrySafe === true,
      );
      assert.ok(Date.now() - started < 15_000, 'the runner waited for the sleeper');
      const pid = host.lastPid('journalctl');
      assert.ok(pid !== undefined, 'the fixture never started: no PID to check');
      assert.equal(isAlive(pid), false, 'the timed-out program is still running');
    } finally {
      host.setBehaviour('journalctl', null);
    }
  });

  it('a timed-out restart is not safe to retry', async () => {
    host.setBehaviour('systemctl', { sleep_seconds: 30 });
    try {
      await assert.rejects(
        host.runner().run({ program: 'systemctl', operation: 'restart', unit: 'nginx.service' }, { timeoutMs: 300 }),
        (e: unknown) => e instanceof CapabilityError && e.code === 'timeout' && e.retrySafe === false,
      );
    } finally {
      host.setBehaviour('systemctl', null);
    }
  });

  it('stops a program on cancellation', async () => {
    host.setBehaviour('journalctl', { sleep_seconds: 30 });
    try {
      const controller = new AbortController();
      const pending = host.runner().run({ program: 'journalctl', operation: 'read', unit: 'nginx.service', lines: 5 }, { timeoutMs: 10_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 200);
      await assert.rejects(pending, (e: unknown) => e instanceof CapabilityError && e.code === 'aborted');
    } finally {
      host.setBehaviour('journalctl', null);
    }
  });

  it('caps a flood of output, marks it truncated and stops the program', async () => {
    host.setBehaviour('journalctl', { flood_bytes: 20 * 1024 * 1024 });
    try {
      const started = Date.now();
      const result = await host.runner({ maxOutputBytes: 64 * 1024 }).run({ program: 'journalctl', operation: 'read', unit: 'nginx.service', lines: 5 }, { timeoutMs: 10_000 });
      assert.equal(result.truncated, true);
      assert.equal(Buffer.byteLength(result.stdout), 64 * 1024);
      assert.equal(result.exitCode, null);
      assert.ok(Date.now() - started < 5000);
    } finally {
      host.setBehaviour('journalctl', null);
    }
  });

  it('keeps the first 64 KiB of a flood on standard error, without stopping the program or marking its output cut', async () => {
    host.setBehaviour('systemctl', { stderr_flood_bytes: 1024 * 1024 });
    try {
      const result = await host.runner({ maxOutputBytes: 512 * 1024 }).run({ program: 'systemctl', operation: 'show', unit: 'nginx.service' }, { timeoutMs: 10_000 });
      assert.equal(result.exitCode, 0);
      assert.equal(result.truncated, false);
      assert.equal(Buffer.byteLength(result.stderr), 64 * 1024);
      assert.match(result.stdout, /^MainPID=812\n/);
    } finally {
      host.setBehaviour('systemctl', null);
    }
  });

  it('reports a program that cannot be started', async () => {
    const runner = execFileRunner({ programs: { systemctl: '/nonexistent/systemctl' } });
    await assert.rejects(
      runner.run({ program: 'systemctl', operation: 'show', unit: 'nginx.service' }, { timeoutMs: 1000 }),
      (e: unknown) => e instanceof CapabilityError && e.code === 'command_failed',
    );
  });

  it('insists on absolute program paths', () => {
    assert.throws(() => execFileRunner({ programs: { systemctl: 'systemctl' } }), /absolute/);
    assert.throws(() => execFileRunner({ simulatedHostDir: 'relative/dir' }), /absolute/);
  });
});
