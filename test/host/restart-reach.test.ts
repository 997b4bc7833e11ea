// service.restart reads what a restart would really start before asking for it: a unit under
// another name (an alias of systemd-poweroff.service), a unit whose success reboots the host
// (SuccessAction=), and the units a socket, timer or path triggers. The simulated host's
// calls.log holds the argv of every call, so "never restarted" is checked there.

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { argvOf } from '../../src/capabilities/host/commands.ts';
import { MAX_TRIGGERED_UNITS, hostStateReason, reachOf } from '../../src/capabilities/host/restart-reach.ts';
import { commandResult, fakeRunner } from '../../src/capabilities/host/runner.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';

const context = () => ({ signal: new AbortController().signal });

function refused(unit: string, says: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof CapabilityError, String(error));
    assert.deepEqual([error.code, error.retrySafe], ['unit_changes_host_state', false], `${unit}: ${error.message}`);
    assert.match(error.message, says);
    return true;
  };
}

/** systemd 252's answer for a unit (services print MainPID first; see test/host/support/captured/). */
function show(id: string, { successAction = 'none', triggers = [] as string[] } = {}): string {
  return `MainPID=0\nId=${id}\nTriggers=${triggers.join(' ')}\nLoadState=loaded\nActiveState=inactive\nSubState=dead\nStateChangeTimestamp=\nSuccessAction=${successAction}\n`;
}

describe('what a restart would start (pure)', () => {
  it('reads Id, SuccessAction and the space-separated Triggers; lacking Id or SuccessAction is no answer', () => {
    assert.deepEqual(reachOf(show('a.timer', { triggers: ['b.service', 'c.service'] })), { id: 'a.timer', successAction: 'none', triggers: ['b.service', 'c.service'] });
    assert.deepEqual(reachOf(show('a.service')), { id: 'a.service', successAction: 'none', triggers: [] });
    assert.equal(reachOf('LoadState=loaded\nActiveState=active\nSubState=running\n'), null);
    assert.equal(reachOf('Id=a.service\n'), null);
  });

  it('every SuccessAction but none (or empty) changes the host; so does an Id among HOST_STATE_SERVICES', () => {
    for (const action of [
      'reboot',
      'reboot-force',
      'reboot-immediate',
      'poweroff',
      'poweroff-force',
      'poweroff-immediate',
      'halt',
      'halt-force',
      'kexec',
      'exit',
      'exit-force',
      'soft-reboot',
      'soft-reboot-force',
    ]) {
      assert.match(hostStateReason('x.service', { id: 'x.service', successAction: action, triggers: [] }) ?? '', new RegExp(`SuccessAction=${action}:`), action);
    }
    for (const action of ['none', '']) assert.equal(hostStateReason('x.service', { id: 'x.service', successAction: action, triggers: [] }), null);
    assert.match(hostStateReason('sleep-now.service', { id: 'systemd-suspend.service', successAction: 'none', triggers: [] }) ?? '', /sleep-now\.service is an alias of systemd-suspend\.service/);
    assert.equal(hostStateReason('sshd.service', { id: 'ssh.service', successAction: 'none', triggers: [] }), null, 'an ordinary alias');
  });
});

describe('service.restart on the simulated host: what the restart would start is read first', () => {
  const host = SimulatedHost.create();
  const impl = builtinImplementations({ runner: host.runner() });
  const restart = (unit: string) => impl['service.restart']!({ unit }, context());
  const showArgv = (unit: string) => argvOf({ program: 'systemctl', operation: 'show', unit });
  const restartArgv = (unit: string) => argvOf({ program: 'systemctl', operation: 'restart', unit });
  let before = 0;
  /** The argv of every systemctl call since the test began. */
  const newCalls = () =>
    host
      .calls()
      .slice(before)
      .map((c) => c.argv);

  beforeEach(() => {
    host.setBehaviour('systemctl', null);
    // As Debian 12 ships them: systemd-poweroff.service powers off by SuccessAction=; rescue.service by what it runs.
    host.setUnit('systemd-poweroff.service', { active_state: 'inactive', sub_state: 'dead', success_action: 'poweroff-force' });
    host.setUnit('rescue.service', { active_state: 'inactive', sub_state: 'dead' });
    host.setAlias('shutdown-now.service', 'systemd-poweroff.service');
    host.setAlias('single-user.service', 'rescue.service');
    host.setUnit('nightly-reboot.service', { active_state: 'inactive', sub_state: 'dead', success_action: 'reboot' });
    host.setUnit('nightly-reboot.timer', { active_state: 'active', sub_state: 'waiting', triggers: ['nightly-reboot.service'] });
    host.setUnit('spool.path', { active_state: 'active', sub_state: 'waiting', triggers: ['nightly-reboot.timer'] });
    host.setUnit('reboot-soon.timer', { active_state: 'active', sub_state: 'waiting', triggers: ['reboot.target'] });
    host.setUnit('nginx.service', { active_state: 'active', sub_state: 'running', main_pid: 812 });
    host.setAlias('www.service', 'nginx.service');
    host.setUnit('echo.service', { active_state: 'inactive', sub_state: 'dead' });
    host.setUnit('echo.socket', { active_state: 'active', sub_state: 'listening', triggers: ['echo.service'] });
    before = host.calls().length;
  });
  after(() => host.remove());

  it('an alias of systemd-poweroff.service is refused as what it is, and never restarted', async () => {
    await assert.rejects(restart('shutdown-now.service'), refused('shutdown-now.service', /shutdown-now\.service is an alias of systemd-poweroff\.service, which changes the state of the whole host/));
    assert.deepEqual(newCalls(), [showArgv('shutdown-now.service')]);
    assert.equal(host.unit('systemd-poweroff.service')?.restarts, undefined);
  });

  it('an alias of rescue.service (no SuccessAction: it is the name that says it) is refused too', async () => {
    await assert.rejects(restart('single-user.service'), refused('single-user.service', /single-user\.service is an alias of rescue\.service/));
    assert.deepEqual(newCalls(), [showArgv('single-user.service')]);
  });

  it('a custom unit with SuccessAction=reboot is refused', async () => {
    await assert.rejects(restart('nightly-reboot.service'), refused('nightly-reboot.service', /nightly-reboot\.service has SuccessAction=reboot/));
    assert.deepEqual(newCalls(), [showArgv('nightly-reboot.service')]);
  });

  it('a timer that triggers it is refused after reading both; so is a path that triggers the timer', async () => {
    await assert.rejects(restart('nightly-reboot.timer'), refused('nightly-reboot.timer', /nightly-reboot\.timer triggers nightly-reboot\.service: nightly-reboot\.service has SuccessAction=reboot/));
    assert.deepEqual(newCalls(), [showArgv('nightly-reboot.timer'), showArgv('nightly-reboot.service')]);
    await assert.rejects(restart('spool.path'), refused('spool.path', /spool\.path triggers nightly-reboot\.timer, which triggers nightly-reboot\.service: .*SuccessAction=reboot/));
    assert.ok(!host.calls().some((c) => c.argv[0] === 'restart'), 'no restart reached systemctl');
  });

  it('a timer that triggers a target is refused without reading the target (what a target pulls in is not read)', async () => {
    await assert.rejects(
      restart('reboot-soon.timer'),
      refused('reboot-soon.timer', /reboot-soon\.timer triggers reboot\.target, which service\.restart may not start: a \.target unit is not one this takes/),
    );
    assert.deepEqual(newCalls(), [showArgv('reboot-soon.timer')]);
  });

  it('an ordinary unit is read, then restarted; a socket reads its service', async () => {
    const { observation } = await restart('nginx.service');
    assert.equal(observation.requested, true);
    assert.deepEqual(newCalls(), [showArgv('nginx.service'), restartArgv('nginx.service')]);
    assert.equal(host.unit('nginx.service')?.restarts, 1);

    before = host.calls().length;
    await restart('echo.socket');
    assert.deepEqual(newCalls(), [showArgv('echo.socket'), showArgv('echo.service'), restartArgv('echo.socket')]);
  });

  it('an alias of an ordinary unit is refused, naming the unit to restart: rules and approvals cover the name written', async () => {
    await assert.rejects(restart('www.service'), (error: unknown) => {
      assert.ok(error instanceof CapabilityError, String(error));
      assert.deepEqual([error.code, error.retrySafe], ['unit_is_alias', false]);
      assert.match(error.message, /www\.service: it is an alias of nginx\.service.*restart nginx\.service instead/);
      return true;
    });
    assert.deepEqual(newCalls(), [showArgv('www.service')]);
    assert.equal(host.unit('nginx.service')?.restarts, undefined);
  });

  it('a read that fails is safe to retry (nothing was restarted), and no restart call is made', async () => {
    host.setBehaviour('systemctl', { exit_code: 1, stderr: 'Failed to connect to bus: Connection refused' });
    await assert.rejects(restart('nginx.service'), (error: unknown) => {
      assert.ok(error instanceof CapabilityError);
      assert.deepEqual([error.code, error.retrySafe], ['command_failed', true]);
      assert.match(error.message, /^reading nginx\.service before restarting nginx\.service exited with status 1: Failed to connect to bus/);
      return true;
    });
    assert.deepEqual(newCalls(), [showArgv('nginx.service')]);
    assert.equal(host.unit('nginx.service')?.restarts, undefined);
  });

  it('a read that is cancelled while systemctl does not answer is safe to retry too', async () => {
    host.setBehaviour('systemctl', { sleep_seconds: 5 });
    const slow = builtinImplementations({ runner: host.runner() });
    const controller = new AbortController();
    const pending = slow['service.restart']!({ unit: 'nginx.service' }, { signal: controller.signal });
    // Cancelled once the read is under way (the fixture has logged it and sleeps), however slowly it started.
    const deadline = performance.now() + 10_000;
    while (newCalls().length === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof CapabilityError);
      assert.deepEqual([error.code, error.retrySafe], ['aborted', true]);
      return true;
    });
    assert.deepEqual(newCalls(), [showArgv('nginx.service')]);
  });
});

describe('service.restart: reading the triggered units (fake runner)', () => {
  it('a read of a triggered unit that fails is safe to retry, and nothing is restarted', async () => {
    const runner = fakeRunner((command) =>
      command.unit === 'a.timer' ? commandResult(show('a.timer', { triggers: ['a.service'] }).replace('MainPID=0\n', '')) : commandResult('', 1, 'Failed to get properties: Connection timed out\n'),
    );
    await assert.rejects(builtinImplementations({ runner })['service.restart']!({ unit: 'a.timer' }, context()), (error: unknown) => {
      assert.ok(error instanceof CapabilityError);
      assert.deepEqual([error.code, error.retrySafe], ['command_failed', true]);
      assert.match(error.message, /^reading a\.service before restarting a\.timer/);
      return true;
    });
    assert.deepEqual(
      runner.calls.map((c) => [c.command.operation, c.command.unit]),
      [
        ['show', 'a.timer'],
        ['show', 'a.service'],
      ],
    );
  });

  it('an answer without Id or SuccessAction is command_failed, safe to retry, and nothing is restarted', async () => {
    const runner = fakeRunner(() => commandResult('LoadState=loaded\nActiveState=active\nSubState=running\n'));
    await assert.rejects(builtinImplementations({ runner })['service.restart']!({ unit: 'a.service' }, context()), (error: unknown) => {
      assert.ok(error instanceof CapabilityError);
      assert.deepEqual([error.code, error.retrySafe], ['command_failed', true]);
      return true;
    });
    assert.deepEqual(
      runner.calls.map((c) => c.command.operation),
      ['show'],
    );
  });

  it(`more than ${MAX_TRIGGERED_UNITS} triggered units are refused rather than read one by one`, async () => {
    const many = Array.from({ length: MAX_TRIGGERED_UNITS + 1 }, (_, i) => `conn-${i}.service`);
    const runner = fakeRunner((command) => commandResult(show(command.unit, { triggers: command.unit === 'busy.socket' ? many : [] })));
    await assert.rejects(builtinImplementations({ runner })['service.restart']!({ unit: 'busy.socket' }, context()), refused('busy.socket', /triggers more than 8 units/));
    assert.ok(!runner.calls.some((c) => c.command.operation === 'restart'));

    // Exactly the bound is read, unit by unit, and restarted.
    const enough = fakeRunner((command) => commandResult(command.operation === 'show' ? show(command.unit, { triggers: command.unit === 'busy.socket' ? many.slice(1) : [] }) : ''));
    await builtinImplementations({ runner: enough })['service.restart']!({ unit: 'busy.socket' }, context());
    assert.deepEqual(
      enough.calls.map((c) => c.command.operation),
      [...Array(1 + MAX_TRIGGERED_UNITS).fill('show'), 'restart'],
    );
  });

  it('a triggered unit named past the unit-name rule is refused, not read', async () => {
    const runner = fakeRunner((command) => commandResult(show(command.unit, { triggers: ['odd;name.service'] })));
    await assert.rejects(
      builtinImplementations({ runner })['service.restart']!({ unit: 'odd.path' }, context()),
      refused('odd.path', /odd\.path triggers odd;name\.service, which service\.restart may not start: the unit name contains ";"/),
    );
    assert.equal(runner.calls.length, 1);
  });

  it('units that trigger one another are read once each', async () => {
    const runner = fakeRunner((command) =>
      commandResult(command.operation === 'show' ? show(command.unit, { triggers: command.unit === 'a.timer' ? ['b.path'] : command.unit === 'b.path' ? ['a.timer'] : [] }) : ''),
    );
    await builtinImplementations({ runner })['service.restart']!({ unit: 'a.timer' }, context());
    assert.deepEqual(
      runner.calls.map((c) => [c.command.operation, c.command.unit]),
      [
        ['show', 'a.timer'],
        ['show', 'b.path'],
        ['restart', 'a.timer'],
      ],
    );
  });
});
