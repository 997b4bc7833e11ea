// The host capabilities on what systemd 252 really printed (captured by
// `scripts/host-root.sh capture` in the real-host suite's container; that suite checks the live
// answers still match these files). Each captured answer is replayed through a fake runner that
// insists on the very command it was captured for.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { reachOf } from '../../src/capabilities/host/restart-reach.ts';
import { fakeRunner } from '../../src/capabilities/host/runner.ts';
import type { CommandResult, HostCommand } from '../../src/capabilities/host/runner.ts';

type Captured = CommandResult & { command: HostCommand };
const dir = new URL('./support/captured/', import.meta.url);
const captured = (name: string): Captured => JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8')) as Captured;
const context = () => ({ signal: new AbortController().signal });

/**
 * The host capabilities with a runner that answers the captured commands, in the order given,
 * and nothing else. The last one is the command the capability is for; a restart first reads
 * the unit (and what it triggers), so its captured reads come before it.
 */
function replay(...names: string[]) {
  const answers = names.map(captured);
  const runner = fakeRunner((command) => {
    const answer = answers.shift();
    assert.ok(answer, `no capture left for ${JSON.stringify(command)}`);
    assert.deepEqual(command, answer.command, `the capture was made for another command than ${JSON.stringify(command)}`);
    return { exitCode: answer.exitCode, stdout: answer.stdout, stderr: answer.stderr, truncated: answer.truncated };
  });
  return { host: builtinImplementations({ runner }), command: captured(names.at(-1)!).command as HostCommand & { unit: string }, runner };
}

async function observe(...names: string[]): Promise<Record<string, unknown>> {
  const { host, command } = replay(...names);
  const capability = command.program === 'journalctl' ? 'logs.query' : command.operation === 'show' ? 'service.status' : 'service.restart';
  const params: Record<string, string | number> = { unit: command.unit };
  if (command.program === 'journalctl') {
    for (const key of ['grep', 'priority', 'lines'] as const) if (command[key] !== undefined) params[key] = command[key]!;
  }
  return (await host[capability]!(params, context())).observation;
}

async function failure(...names: string[]): Promise<CapabilityError> {
  try {
    await observe(...names);
  } catch (error) {
    assert.ok(error instanceof CapabilityError);
    return error;
  }
  assert.fail(`${names.join(', ')} did not fail`);
}

const body = (lines: unknown) => (lines as string[]).map((l) => l.replace(/^\S+ praxis-host \S+\[\d+\]: /, ''));

describe('host capabilities on captured systemd 252 output', () => {
  it('has every capture', () => {
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.json')).length, 26);
  });

  it('show: a running service (MainPID printed first, as systemd orders it)', async () => {
    assert.match(captured('show-running').stdout, /^MainPID=\d+\nId=praxis-healthy\.service\nRequires=[^\n]*\nWants=\nBindsTo=\nUpholds=\nOnSuccess=\nTriggers=\nLoadState=/);
    assert.deepEqual(await observe('show-running'), {
      unit: 'praxis-healthy.service',
      load_state: 'loaded',
      active_state: 'active',
      sub_state: 'running',
      since: '2026-12-07T12:41:45.000Z',
      main_pid: 91,
    });
  });

  it('show: a failed service, a masked one, an inactive template instance, a finished oneshot', async () => {
    assert.deepEqual(await observe('show-failed'), {
      unit: 'praxis-flaky.service',
      load_state: 'loaded',
      active_state: 'failed',
      sub_state: 'failed',
      since: '2026-12-07T12:41:48.000Z',
      main_pid: null,
    });
    assert.deepEqual(await observe('show-masked'), {
      unit: 'praxis-masked.service',
      load_state: 'masked',
      active_state: 'inactive',
      sub_state: 'dead',
      since: null,
      main_pid: null,
    });
    assert.deepEqual(await observe('show-instance-inactive'), {
      unit: 'praxis-tpl@beta.service',
      load_state: 'loaded',
      active_state: 'inactive',
      sub_state: 'dead',
      since: null,
      main_pid: null,
    });
    const oneshot = await observe('show-oneshot-finished');
    assert.deepEqual([oneshot.active_state, oneshot.since, oneshot.main_pid], ['inactive', '2026-12-07T12:41:46.000Z', null]);
  });

  it('show: a socket and a timer, for which systemd prints no MainPID line at all', async () => {
    assert.doesNotMatch(captured('show-socket').stdout, /MainPID/);
    const socket = await observe('show-socket');
    assert.deepEqual([socket.active_state, socket.sub_state, socket.main_pid], ['active', 'listening', null]);
    const timer = await observe('show-timer');
    assert.deepEqual([timer.active_state, timer.sub_state, timer.main_pid, timer.since], ['active', 'waiting', null, '2026-12-07T12:41:46.000Z']);
  });

  it('show: an unknown unit (systemctl exits 0 with LoadState=not-found) is unit_not_found', async () => {
    assert.equal(captured('show-not-found').exitCode, 0);
    const error = await failure('show-not-found');
    assert.deepEqual([error.code, error.retrySafe], ['unit_not_found', true]);
  });

  it('restart: masked (status 1) is unit_masked, unknown (status 5) unit_not_found, neither retry-safe', async () => {
    // The read before the restart passes both (systemd shows a masked and an unknown unit under their own Id).
    const masked = await failure('show-masked', 'restart-masked');
    assert.deepEqual([masked.code, masked.retrySafe], ['unit_masked', false]);
    assert.match(masked.message, /Unit praxis-masked\.service is masked\./);
    const unknown = await failure('show-not-found', 'restart-not-found');
    assert.deepEqual([unknown.code, unknown.retrySafe], ['unit_not_found', false]);
  });

  it('restart: only systemd\'s "is masked" sentence makes unit_masked, not a unit whose name says masked', async () => {
    const answer = captured('restart-masked');
    // systemd 252's refusal of a unit with RefuseManualStart=yes, for a unit named like a masked one.
    const refused = 'Failed to restart praxis-masked.service: Operation refused, unit praxis-masked.service may be requested by dependency only (it is configured to refuse manual start/stop).\n';
    const show = captured('show-masked');
    const host = builtinImplementations({
      runner: fakeRunner((command) => (command.operation === 'show' ? show : { exitCode: 1, stdout: '', stderr: refused, truncated: false })),
    });
    await assert.rejects(host['service.restart']!({ unit: answer.command.unit! }, context()), (error: unknown) => {
      assert.ok(error instanceof CapabilityError);
      assert.deepEqual([error.code, error.retrySafe], ['command_failed', false]);
      assert.match(error.message, /Operation refused/);
      return true;
    });
  });

  it('restart: an alias of systemd-poweroff.service, a unit with SuccessAction=reboot and a timer that triggers it are refused after the read, never restarted', async () => {
    const cases = [
      { unit: 'praxis-shutdown-now.service', reads: ['show-alias-poweroff'], says: /praxis-shutdown-now\.service is an alias of systemd-poweroff\.service, which changes the state of the whole host/ },
      { unit: 'praxis-reboot-after.service', reads: ['show-success-action'], says: /praxis-reboot-after\.service has SuccessAction=reboot/ },
      {
        unit: 'praxis-reboot-later.timer',
        reads: ['show-timer-triggering', 'show-success-action'],
        says: /praxis-reboot-later\.timer triggers praxis-reboot-after\.service: praxis-reboot-after\.service has SuccessAction=reboot/,
      },
    ];
    for (const { unit, reads, says } of cases) {
      const { host, runner } = replay(...reads);
      await assert.rejects(host['service.restart']!({ unit }, context()), (error: unknown) => {
        assert.ok(error instanceof CapabilityError);
        assert.deepEqual([error.code, error.retrySafe], ['unit_changes_host_state', false], unit);
        assert.match(error.message, says);
        return true;
      });
      assert.deepEqual(
        runner.calls.map((c) => c.command.operation),
        reads.map(() => 'show'),
        `${unit}: read, never restarted`,
      );
    }
  });

  it('restart: a unit that pulls in reboot.target, requires an alias of systemd-poweroff.service, or is followed on success by a SuccessAction=reboot unit, and a timer that triggers one, are refused after the reads, never restarted', async () => {
    const cases = [
      { unit: 'praxis-wants-reboot.service', reads: ['show-wants-reboot'], says: /praxis-wants-reboot\.service wants reboot\.target: reboot\.target changes the state of the whole host/ },
      // systemd lists the dependency under the Id it resolved: the alias is not needed to see it.
      { unit: 'praxis-needs-poweroff.service', reads: ['show-requires-poweroff'], says: /praxis-needs-poweroff\.service requires systemd-poweroff\.service: systemd-poweroff\.service changes/ },
      {
        unit: 'praxis-then-reboot.service',
        reads: ['show-on-success-reboot', 'show-success-action'],
        says: /praxis-then-reboot\.service is followed on success by praxis-reboot-after\.service: praxis-reboot-after\.service has SuccessAction=reboot/,
      },
      {
        unit: 'praxis-poweroff-later.timer',
        reads: ['show-timer-pulling-poweroff', 'show-requires-poweroff'],
        says: /praxis-poweroff-later\.timer triggers praxis-needs-poweroff\.service, which requires systemd-poweroff\.service: systemd-poweroff\.service changes/,
      },
    ];
    for (const { unit, reads, says } of cases) {
      const { host, runner } = replay(...reads);
      await assert.rejects(host['service.restart']!({ unit }, context()), (error: unknown) => {
        assert.ok(error instanceof CapabilityError);
        assert.deepEqual([error.code, error.retrySafe], ['unit_changes_host_state', false], unit);
        assert.match(error.message, says);
        return true;
      });
      assert.deepEqual(
        runner.calls.map((c) => c.command.unit),
        reads.map((name) => captured(name).command.unit),
        `${unit}: read, never restarted`,
      );
    }
  });

  it('show: dependency lists as systemd prints them, an escaped name in quotes, read back as the unit names', () => {
    assert.match(captured('show-instance-inactive').stdout, /^Requires=.*"system-praxis\\\\x2dtpl\.slice"/m);
    assert.deepEqual(
      reachOf(captured('show-instance-inactive').stdout)
        ?.pullsIn.map((p) => p.unit)
        .sort(),
      ['sysinit.target', 'system-praxis\\x2dtpl.slice'],
    );
    const ordinary = reachOf(captured('show-ordinary-dependencies').stdout);
    assert.deepEqual(ordinary?.pullsIn.map(({ property, unit }) => `${property} ${unit}`).sort(), [
      'Requires praxis-tick.service',
      'Requires sysinit.target',
      'Requires system.slice',
      'Wants network-online.target',
      'Wants praxis-echo.socket',
      'Wants praxis-tpl@calls\\x2dweb.service',
    ]);
  });

  it('journal: newest-first output comes back in time order, masked, multi-line entries whole', async () => {
    const observation = await observe('journal-all');
    const lines = observation.lines as string[];
    assert.equal(lines.length, 9 + 3 + 4);
    assert.deepEqual(body(lines).slice(-3), ['healthy: mark 2', 'healthy: mark 3', 'healthy: ready']);
    const text = lines.join('\n');
    for (const secret of ['hunter2', 's3cr3t-pass', 'AKIAIOSFODNN7EXAMPLE', 'eyJhbGci', 'tkn-0123', 'MIIEvQ', 'alice@example.com']) {
      assert.ok(!text.includes(secret), secret);
    }
    const dump = lines.findIndex((l) => l.endsWith('healthy: config dump'));
    assert.deepEqual(
      lines.slice(dump + 1, dump + 4).map((l) => l.trim()),
      ['listen = [ipv4]:8080', 'token: [secret]', 'end of dump'],
    );
    const key = lines.findIndex((l) => l.endsWith('healthy: key material follows'));
    assert.deepEqual(
      lines.slice(key + 1, key + 3).map((l) => l.trim()),
      ['[private-key]', 'healthy: key material done'],
    );
  });

  it('journal: --grep output (which 252 prints newest first) in time order', async () => {
    assert.match(captured('journal-grep-marks').stdout, /mark 3\n.*mark 2\n.*mark 1\n$/);
    assert.deepEqual(body((await observe('journal-grep-marks')).lines), ['healthy: mark 1', 'healthy: mark 2', 'healthy: mark 3']);
    const multiline = body((await observe('journal-grep-multiline')).lines);
    assert.equal(multiline.length, 4 + 3);
    assert.deepEqual([multiline[0], multiline[4]], ['healthy: config dump', 'healthy: key material follows']);
  });

  it('journal: a grep without matches (status 1, silent) is empty; a bad pattern (status 1, Bad pattern) fails', async () => {
    assert.deepEqual([captured('journal-grep-none').exitCode, captured('journal-grep-none').stdout], [1, '']);
    assert.deepEqual((await observe('journal-grep-none')).lines, []);
    const bad = await failure('journal-grep-bad-pattern');
    assert.deepEqual([bad.code, bad.retrySafe], ['command_failed', true]);
    assert.match(bad.message, /Bad pattern "\(": missing closing parenthesis/);
  });

  it('journal: priority, a failed unit, an unknown unit', async () => {
    assert.deepEqual(body((await observe('journal-priority-warning')).lines), [
      'healthy: retrying login for [email] with password=[secret] api_key=[secret]',
      'healthy: upstream refused Authorization: Bearer [secret]',
    ]);
    assert.deepEqual(body((await observe('journal-failed-unit')).lines), ['flaky: starting worker', 'flaky: fatal: cannot open /var/lib/flaky/queue: No such file or directory']);
    assert.deepEqual((await observe('journal-unknown-unit')).lines, []);
  });
});
