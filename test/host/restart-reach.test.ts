// service.restart reads what a restart would really start before asking for it: a unit under
// another name (an alias of systemd-poweroff.service), a unit whose success reboots the host
// (SuccessAction=), the units a socket, timer or path triggers, and what a start pulls in
// (Requires=, Wants=, BindsTo=, Upholds=, OnSuccess=). The simulated host's calls.log holds the
// argv of every call, so "what was read" and "never restarted" are checked there.

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { argvOf } from '../../src/capabilities/host/commands.ts';
import { MAX_PULLED_IN_UNITS, MAX_TRIGGERED_UNITS, hostStateReason, pulledInHostState, reachOf, unitList } from '../../src/capabilities/host/restart-reach.ts';
import { HOST_STATE_SERVICES, HOST_STATE_TARGETS } from '../../src/capabilities/unit-name.ts';
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

interface Shown {
  successAction?: string;
  triggers?: string[];
  requires?: string[];
  wants?: string[];
  bindsTo?: string[];
  upholds?: string[];
  onSuccess?: string[];
}

/** systemd 252's answer for a unit (services print MainPID first; see test/host/support/captured/). */
function show(id: string, { successAction = 'none', triggers = [], requires = ['sysinit.target', 'system.slice'], wants = [], bindsTo = [], upholds = [], onSuccess = [] }: Shown = {}): string {
  const list = (names: string[]) => names.join(' ');
  return (
    `MainPID=0\nId=${id}\nRequires=${list(requires)}\nWants=${list(wants)}\nBindsTo=${list(bindsTo)}\nUpholds=${list(upholds)}\nOnSuccess=${list(onSuccess)}\n` +
    `Triggers=${list(triggers)}\nLoadState=loaded\nActiveState=inactive\nSubState=dead\nStateChangeTimestamp=\nSuccessAction=${successAction}\n`
  );
}

describe('what a restart would start (pure)', () => {
  it('reads Id, SuccessAction and the space-separated Triggers; lacking Id or SuccessAction is no answer', () => {
    const defaults = [
      { property: 'Requires', unit: 'sysinit.target' },
      { property: 'Requires', unit: 'system.slice' },
    ];
    assert.deepEqual(reachOf(show('a.timer', { triggers: ['b.service', 'c.service'] })), { id: 'a.timer', successAction: 'none', triggers: ['b.service', 'c.service'], pullsIn: defaults });
    assert.deepEqual(reachOf(show('a.service')), { id: 'a.service', successAction: 'none', triggers: [], pullsIn: defaults });
    assert.equal(reachOf('LoadState=loaded\nActiveState=active\nSubState=running\n'), null);
    assert.equal(reachOf('Id=a.service\n'), null);
  });

  it('reads what a start pulls in, property by property; not OnFailure= (a recovery), and a list systemd does not print is empty', () => {
    const text = `${show('a.service', { wants: ['b.service', 'reboot.target'], bindsTo: ['c.socket'], upholds: ['d.timer'], onSuccess: ['e.service'] })}OnFailure=poweroff.target\nRequisite=halt.target\n`;
    assert.deepEqual(reachOf(text)?.pullsIn, [
      { property: 'Requires', unit: 'sysinit.target' },
      { property: 'Requires', unit: 'system.slice' },
      { property: 'Wants', unit: 'b.service' },
      { property: 'Wants', unit: 'reboot.target' },
      { property: 'BindsTo', unit: 'c.socket' },
      { property: 'Upholds', unit: 'd.timer' },
      { property: 'OnSuccess', unit: 'e.service' },
    ]);
    // systemd before 249 has no Upholds= or OnSuccess= and does not print them.
    assert.deepEqual(reachOf('Id=a.service\nRequires=b.service\nSuccessAction=none\n')?.pullsIn, [{ property: 'Requires', unit: 'b.service' }]);
  });

  it('reads a list as systemctl quotes it: an escaped name in double quotes, its backslash doubled', () => {
    assert.deepEqual(unitList('"system-praxis\\\\x2dtpl.slice" sysinit.target'), ['system-praxis\\x2dtpl.slice', 'sysinit.target']);
    assert.deepEqual(unitList('a.service "b\\\\x2dc.service" "d\\"e.service"'), ['a.service', 'b\\x2dc.service', 'd"e.service']);
    assert.deepEqual(unitList(''), []);
    for (const broken of ['"a.service', '"a.service"b.service', '"a\\']) assert.equal(unitList(broken), null, broken);
    assert.equal(reachOf('Id=a.service\nWants="b.service\nSuccessAction=none\n'), null, 'a list that does not read is no answer');
  });

  it('a pulled-in unit changes the host when its name is a host-state target or service; ordinary targets, slices and mounts do not', () => {
    for (const unit of [...HOST_STATE_TARGETS, ...HOST_STATE_SERVICES]) assert.match(pulledInHostState(unit) ?? '', /changes the state of the whole host/, unit);
    for (const unit of ['sysinit.target', 'basic.target', 'network-online.target', 'multi-user.target', 'system.slice', '-.mount', 'final.target']) {
      assert.equal(pulledInHostState(unit), null, unit);
    }
    for (const unit of [
      'poweroff.target',
      'reboot.target',
      'halt.target',
      'kexec.target',
      'soft-reboot.target',
      'rescue.target',
      'emergency.target',
      'shutdown.target',
      'exit.target',
      'ctrl-alt-del.target',
      'suspend.target',
      'hibernate.target',
    ]) {
      assert.ok(HOST_STATE_TARGETS.has(unit), unit);
    }
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
      assert.match(hostStateReason('x.service', { id: 'x.service', successAction: action, triggers: [], pullsIn: [] }) ?? '', new RegExp(`SuccessAction=${action}:`), action);
    }
    for (const action of ['none', '']) assert.equal(hostStateReason('x.service', { id: 'x.service', successAction: action, triggers: [], pullsIn: [] }), null);
    assert.match(
      hostStateReason('sleep-now.service', { id: 'systemd-suspend.service', successAction: 'none', triggers: [], pullsIn: [] }) ?? '',
      /sleep-now\.service is an alias of systemd-suspend\.service/,
    );
    assert.equal(hostStateReason('sshd.service', { id: 'ssh.service', successAction: 'none', triggers: [], pullsIn: [] }), null, 'an ordinary alias');
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
    // What a start pulls in.
    host.setUnit('wants-reboot.service', { active_state: 'inactive', sub_state: 'dead', wants: ['reboot.target'] });
    host.setUnit('needs-poweroff.service', { active_state: 'inactive', sub_state: 'dead', requires: ['systemd-poweroff.service'] });
    host.setUnit('then-reboot.service', { active_state: 'inactive', sub_state: 'dead', on_success: ['nightly-reboot.service'] });
    host.setUnit('halt-after.service', { active_state: 'inactive', sub_state: 'dead', wants: ['poweroff.target'] });
    host.setUnit('halt-soon.timer', { active_state: 'active', sub_state: 'waiting', triggers: ['halt-after.service'] });
    host.setUnit('by-way-of.service', { active_state: 'inactive', sub_state: 'dead', wants: ['wants-reboot.service'] });
    // An ordinary unit with ordinary dependencies: targets, a slice, a mount and a device are
    // only named; the services and the socket (and what the socket triggers) are read, once each.
    host.setUnit('app.service', {
      active_state: 'active',
      sub_state: 'running',
      main_pid: 900,
      requires: ['postgres.service', 'var-lib-app.mount', 'app.slice'],
      wants: ['network-online.target', 'app-metrics.socket', 'app@blue\\x2dgreen.service', 'dev-sdb.device'],
      binds_to: ['postgres.service'],
      on_success: ['app-report.service'],
    });
    host.setUnit('postgres.service', { active_state: 'active', sub_state: 'running', main_pid: 901, wants: ['network-online.target'] });
    host.setUnit('app-metrics.socket', { active_state: 'active', sub_state: 'listening', triggers: ['app-metrics.service'] });
    host.setUnit('app-metrics.service', { active_state: 'inactive', sub_state: 'dead', requires: ['app-metrics.socket'] });
    host.setUnit('app@blue\\x2dgreen.service', { active_state: 'active', sub_state: 'running', main_pid: 902 });
    host.setUnit('app-report.service', { active_state: 'inactive', sub_state: 'dead', requires: ['app.service'] });
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

  it('a unit that wants reboot.target is refused without reading the target, and never restarted', async () => {
    await assert.rejects(
      restart('wants-reboot.service'),
      refused('wants-reboot.service', /refused to restart wants-reboot\.service: wants-reboot\.service wants reboot\.target: reboot\.target changes the state of the whole host/),
    );
    assert.deepEqual(newCalls(), [showArgv('wants-reboot.service')]);
    assert.equal(host.unit('wants-reboot.service')?.restarts, undefined);
  });

  it('a unit that requires a host-state service is refused by that name, without reading it', async () => {
    await assert.rejects(
      restart('needs-poweroff.service'),
      refused('needs-poweroff.service', /needs-poweroff\.service requires systemd-poweroff\.service: systemd-poweroff\.service changes the state/),
    );
    assert.deepEqual(newCalls(), [showArgv('needs-poweroff.service')]);
  });

  it('OnSuccess= a unit with SuccessAction=reboot is refused after reading that unit', async () => {
    await assert.rejects(
      restart('then-reboot.service'),
      refused('then-reboot.service', /then-reboot\.service is followed on success by nightly-reboot\.service: nightly-reboot\.service has SuccessAction=reboot/),
    );
    assert.deepEqual(newCalls(), [showArgv('then-reboot.service'), showArgv('nightly-reboot.service')]);
    assert.equal(host.unit('nightly-reboot.service')?.restarts, undefined);
  });

  it('a timer that triggers a service that wants poweroff.target is refused, naming the chain', async () => {
    await assert.rejects(
      restart('halt-soon.timer'),
      refused('halt-soon.timer', /halt-soon\.timer triggers halt-after\.service, which wants poweroff\.target: poweroff\.target changes the state of the whole host/),
    );
    assert.deepEqual(newCalls(), [showArgv('halt-soon.timer'), showArgv('halt-after.service')]);
  });

  it('a service in between hides nothing: a unit that wants a unit that wants reboot.target is refused', async () => {
    await assert.rejects(restart('by-way-of.service'), refused('by-way-of.service', /by-way-of\.service wants wants-reboot\.service, which wants reboot\.target: reboot\.target/));
    assert.deepEqual(newCalls(), [showArgv('by-way-of.service'), showArgv('wants-reboot.service')]);
  });

  it('BindsTo=, Upholds= and every host-state target are refused the same way', async () => {
    const cases: [Partial<Record<'binds_to' | 'upholds' | 'wants' | 'requires', string[]>>, RegExp][] = [
      [{ binds_to: ['suspend.target'] }, /custom\.service binds to suspend\.target: suspend\.target changes/],
      [{ upholds: ['rescue.target'] }, /custom\.service upholds rescue\.target: rescue\.target changes/],
      ...[...HOST_STATE_TARGETS].map((target): [Partial<Record<'wants', string[]>>, RegExp] => [
        { wants: ['network-online.target', target] },
        new RegExp(`custom\\.service wants ${target.replaceAll('.', '\\.')}: `),
      ]),
    ];
    for (const [dependencies, says] of cases) {
      host.setUnit('custom.service', { active_state: 'active', sub_state: 'running', ...dependencies });
      before = host.calls().length;
      await assert.rejects(restart('custom.service'), refused('custom.service', says));
      assert.deepEqual(newCalls(), [showArgv('custom.service')], String(says));
    }
    assert.equal(host.unit('custom.service')?.restarts, undefined);
  });

  it('an ordinary unit with ordinary dependencies is restarted: its services, socket and what that triggers are read once each, the rest only named', async () => {
    await restart('app.service');
    assert.deepEqual(newCalls(), [
      showArgv('app.service'),
      showArgv('postgres.service'),
      showArgv('app-metrics.socket'),
      // Read under its own, escaped, name: systemctl printed it in quotes.
      showArgv('app@blue\\x2dgreen.service'),
      showArgv('app-report.service'),
      showArgv('app-metrics.service'),
      restartArgv('app.service'),
    ]);
    assert.equal(host.unit('app.service')?.restarts, 1);
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

  it(`more than ${MAX_PULLED_IN_UNITS} pulled-in services, sockets, timers and paths are refused rather than read one by one; targets do not count`, async () => {
    const many = Array.from({ length: MAX_PULLED_IN_UNITS + 1 }, (_, i) => `dep-${i}.service`);
    const targets = Array.from({ length: 40 }, (_, i) => `stage-${i}.target`);
    const runner = fakeRunner((command) => commandResult(show(command.unit, { wants: command.unit === 'big.service' ? [...targets, ...many] : [] })));
    await assert.rejects(
      builtinImplementations({ runner })['service.restart']!({ unit: 'big.service' }, context()),
      refused('big.service', /pulls in more than 16 services, sockets, timers and paths/),
    );
    assert.deepEqual(
      runner.calls.map((c) => c.command.operation),
      ['show'],
      'refused before reading any of them',
    );

    const enough = fakeRunner((command) => commandResult(command.operation === 'show' ? show(command.unit, { wants: command.unit === 'big.service' ? [...targets, ...many.slice(1)] : [] }) : ''));
    await builtinImplementations({ runner: enough })['service.restart']!({ unit: 'big.service' }, context());
    assert.deepEqual(
      enough.calls.map((c) => c.command.operation),
      [...Array(1 + MAX_PULLED_IN_UNITS).fill('show'), 'restart'],
    );
  });

  it('units that pull in one another are read once each', async () => {
    const runner = fakeRunner((command) =>
      commandResult(
        command.operation === 'show' ? show(command.unit, { requires: command.unit === 'a.service' ? ['b.service'] : ['a.service'], bindsTo: command.unit === 'b.service' ? ['a.service'] : [] }) : '',
      ),
    );
    await builtinImplementations({ runner })['service.restart']!({ unit: 'a.service' }, context());
    assert.deepEqual(
      runner.calls.map((c) => [c.command.operation, c.command.unit]),
      [
        ['show', 'a.service'],
        ['show', 'b.service'],
        ['restart', 'a.service'],
      ],
    );
  });

  it('a pulled-in service named past the unit-name rule is refused, not read; a list that does not read is command_failed, safe to retry', async () => {
    const odd = fakeRunner((command) => commandResult(show(command.unit, { wants: ['-x.service'] })));
    await assert.rejects(
      builtinImplementations({ runner: odd })['service.restart']!({ unit: 'a.service' }, context()),
      refused('a.service', /a\.service wants -x\.service, which cannot be read to check it: the unit name starts with "-"/),
    );
    assert.equal(odd.calls.length, 1);

    const broken = fakeRunner((command) => commandResult(show(command.unit).replace('Wants=', 'Wants="b.service')));
    await assert.rejects(builtinImplementations({ runner: broken })['service.restart']!({ unit: 'a.service' }, context()), (error: unknown) => {
      assert.ok(error instanceof CapabilityError);
      assert.deepEqual([error.code, error.retrySafe], ['command_failed', true]);
      return true;
    });
    assert.deepEqual(
      broken.calls.map((c) => c.command.operation),
      ['show'],
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
