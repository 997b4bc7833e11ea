// Faults on real systemd: a PID 1 that stops answering (frozen through its cgroup), output
// over the cap, the journal rotated and vacuumed while being read. Each ends in a typed answer,
// in bounded time, never a hang and never a partial answer presented as whole.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { logsQueryImplementation } from '../../src/capabilities/host/logs-query.ts';
import { execFileRunner } from '../../src/capabilities/host/runner.ts';
import type { CommandRunner, HostCommand } from '../../src/capabilities/host/runner.ts';
import { serviceRestartImplementation } from '../../src/capabilities/host/service-restart.ts';
import { serviceStatusImplementation } from '../../src/capabilities/host/service-status.ts';
import { context, failsWith, runner, status, waitFor } from './support/container.ts';

// systemd runs itself in init.scope of the container's own cgroup2 hierarchy.
const PID1_FREEZE = '/sys/fs/cgroup/init.scope/cgroup.freeze';

// Durations are measured on the monotonic clock: this machine's wall clock has been seen to step
// by seconds in the middle of a test.

async function freezePid1(): Promise<void> {
  assert.match(readFileSync('/proc/1/cgroup', 'utf8'), /^0::\/init\.scope$/m);
  writeFileSync(PID1_FREEZE, '1');
  await waitFor('PID 1 to be frozen', () => (/^frozen 1$/m.test(readFileSync('/sys/fs/cgroup/init.scope/cgroup.events', 'utf8')) ? true : undefined), 5000);
}

async function withPid1Frozen<T>(body: () => Promise<T>): Promise<T> {
  try {
    await freezePid1();
    return await body();
  } finally {
    writeFileSync(PID1_FREEZE, '0');
  }
}

/** Praxis's runner, noting each operation it is asked for, and calling `before` first. */
function watchedRunner(before: (command: HostCommand) => Promise<void> = async () => {}): CommandRunner & { operations: string[] } {
  const operations: string[] = [];
  return {
    operations,
    async run(command, options) {
      operations.push(command.operation);
      await before(command);
      return runner.run(command, options);
    },
  };
}

function systemctlProcesses(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'systemctl';
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('faults on real systemd', () => {
  it('PID 1 not answering: systemctl show is killed at the timeout, `timeout`, retry-safe, nothing left running', async () => {
    const read = serviceStatusImplementation({ runner, timeoutMs: 1500 });
    await withPid1Frozen(async () => {
      const started = performance.now();
      await assert.rejects(read({ unit: 'praxis-healthy.service' }, context()), failsWith('timeout', true));
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 1400 && elapsed < 5000, `stopped after ${elapsed} ms`);
      assert.deepEqual(systemctlProcesses(), [], 'the killed systemctl is gone');
    });
    assert.equal((await status('praxis-healthy.service')).active_state, 'active', 'systemd answers again once thawed');
  });

  it('PID 1 not answering: a restart is killed at the timeout, `timeout`, and never retry-safe', async () => {
    // The read before the restart (restart-reach.ts) is answered; PID 1 stops answering just as
    // the restart itself is asked for.
    const watched = watchedRunner(async (command) => {
      if (command.operation === 'restart') await freezePid1();
    });
    const restart = serviceRestartImplementation({ runner: watched, timeoutMs: 1500 });
    try {
      const started = performance.now();
      // Whether the request reached systemd's socket before systemctl was killed is exactly
      // what "not retry-safe" means: the restart may still happen once PID 1 runs again.
      await assert.rejects(restart({ unit: 'praxis-tpl@beta.service' }, context()), failsWith('timeout', false));
      assert.ok(performance.now() - started < 8000);
      assert.deepEqual(watched.operations, ['show', 'restart']);
      assert.deepEqual(systemctlProcesses(), []);
    } finally {
      writeFileSync(PID1_FREEZE, '0');
    }
  });

  it('PID 1 not answering before a restart: the read is killed at its timeout, `timeout`, retry-safe, and no restart is asked for', async () => {
    const watched = watchedRunner();
    const restart = serviceRestartImplementation({ runner: watched, readTimeoutMs: 1500 });
    await withPid1Frozen(async () => {
      const started = performance.now();
      await assert.rejects(restart({ unit: 'praxis-tpl@beta.service' }, context()), failsWith('timeout', true));
      assert.ok(performance.now() - started < 5000);
      assert.deepEqual(watched.operations, ['show']);
      assert.deepEqual(systemctlProcesses(), []);
    });
  });

  it('cancelling the invocation while PID 1 does not answer stops systemctl at once: `aborted`', async () => {
    const read = serviceStatusImplementation({ runner, timeoutMs: 30_000 });
    await withPid1Frozen(async () => {
      const controller = new AbortController();
      const pending = read({ unit: 'praxis-healthy.service' }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 300);
      const started = performance.now();
      await assert.rejects(pending, failsWith('aborted', true));
      assert.ok(performance.now() - started < 3000);
    });
  });

  it('systemctl output over the cap is a failure of the read, not a partial status', async () => {
    const read = serviceStatusImplementation({ runner: execFileRunner({ maxOutputBytes: 24 }) });
    await assert.rejects(read({ unit: 'praxis-healthy.service' }, context()), failsWith('command_failed', true));
  });

  it('the journal rotated and vacuumed while being read: whole, ordered answers or a typed failure', async () => {
    const exec = promisify(execFile);
    const read = logsQueryImplementation({ runner });
    await waitFor('the flood unit to finish logging', async () => {
      const { observation } = await read({ unit: 'praxis-flood.service', grep: 'flood: done' }, context());
      return (observation.lines as string[]).length === 1 ? true : undefined;
    });
    let answers = 0;
    for (let round = 0; round < 5; round++) {
      const [reading] = await Promise.allSettled([
        read({ unit: 'praxis-flood.service', lines: 1000 }, context()),
        exec('/usr/bin/journalctl', ['--rotate']).then(() => exec('/usr/bin/journalctl', ['--vacuum-files=1'])),
      ]);
      if (reading.status === 'rejected') {
        assert.ok(reading.reason instanceof CapabilityError, String(reading.reason));
        continue;
      }
      answers++;
      const lines = reading.value.observation.lines as string[];
      assert.equal(reading.value.observation.truncated, false);
      // Whatever the vacuum left, what comes back is whole entries in time order.
      const numbers = lines
        .map((l) => /flood: line (\d{4}) /.exec(l)?.[1])
        .filter((n) => n !== undefined)
        .map(Number);
      assert.deepEqual(
        numbers,
        [...numbers].sort((a, b) => a - b),
      );
      for (const line of lines) assert.match(line, /^\S+ praxis-host flood\[\d+\]: flood: (line \d{4} x{100}|done)$/);
    }
    assert.ok(answers > 0, 'at least one read answered');
  });
});
