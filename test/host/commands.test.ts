import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { argvOf } from '../../src/capabilities/host/commands.ts';
import type { HostCommand } from '../../src/capabilities/host/commands.ts';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { commandResult, fakeRunner } from '../../src/capabilities/host/runner.ts';

const options = { timeoutMs: 1000 };

function refusal(code = 'command_refused') {
  return (error: unknown) => error instanceof CapabilityError && error.code === code && error.retrySafe === false;
}

describe('argument shapes', () => {
  it('systemctl show asks for a fixed property list, with -- before the unit', () => {
    assert.deepEqual(argvOf({ program: 'systemctl', operation: 'show', unit: 'nginx.service' }), [
      'show',
      '--property=LoadState,ActiveState,SubState,StateChangeTimestamp,MainPID,Id,SuccessAction,Triggers,Requires,Wants,BindsTo,Upholds,OnSuccess',
      '--no-pager',
      '--',
      'nginx.service',
    ]);
  });

  it('systemctl restart queues the job without blocking or prompting, with -- before the unit', () => {
    assert.deepEqual(argvOf({ program: 'systemctl', operation: 'restart', unit: 'getty@tty1.service' }), ['restart', '--no-block', '--no-ask-password', '--no-pager', '--', 'getty@tty1.service']);
  });

  it('systemctl restarts no target, slice, scope, mount, swap or device; journalctl reads no slice', () => {
    for (const unit of [
      'poweroff.target',
      'system.slice',
      'session-1.scope',
      'home.mount',
      'home.automount',
      'swapfile.swap',
      'dev-sda.device',
      'systemd-poweroff.service',
      'systemd-reboot.service',
      'systemd-kexec.service',
      'rescue.service',
    ]) {
      assert.throws(() => argvOf({ program: 'systemctl', operation: 'restart', unit }), refusal(), unit);
    }
    for (const unit of ['nginx.service', 'echo.socket', 'backup.timer', 'spool.path']) {
      assert.equal(argvOf({ program: 'systemctl', operation: 'restart', unit }).at(-1), unit);
    }
    assert.throws(() => argvOf({ program: 'journalctl', operation: 'read', unit: 'system.slice', lines: 10 }), refusal());
    assert.ok(argvOf({ program: 'journalctl', operation: 'read', unit: 'init.scope', lines: 10 }).includes('--unit=init.scope'));
    assert.equal(argvOf({ program: 'systemctl', operation: 'show', unit: 'system.slice' }).at(-1), 'system.slice');
  });

  it('journalctl gets fixed options and every value glued to its option', () => {
    assert.deepEqual(argvOf({ program: 'journalctl', operation: 'read', unit: 'nginx.service', lines: 50 }), [
      '--no-pager',
      '--quiet',
      '--output=short-iso',
      '--reverse',
      '--unit=nginx.service',
      '--lines=50',
    ]);
    assert.deepEqual(
      argvOf({
        program: 'journalctl',
        operation: 'read',
        unit: 'nginx.service',
        lines: 10,
        since: '2026-12-02 11:00:00',
        until: '-5min',
        priority: 'err',
        grep: '-f --vacuum-size=1 ; rm -rf /',
      }),
      [
        '--no-pager',
        '--quiet',
        '--output=short-iso',
        '--reverse',
        '--unit=nginx.service',
        '--lines=10',
        '--since=2026-12-02 11:00:00',
        '--until=-5min',
        '--priority=err',
        '--grep=-f --vacuum-size=1 ; rm -rf /',
      ],
    );
  });

  it('never produces follow, vacuum, rotate, directory, machine or root options', () => {
    const argv = argvOf({ program: 'journalctl', operation: 'read', unit: 'a.service', lines: 1, grep: 'x', since: '-1h', until: '-1s', priority: '3' });
    for (const arg of argv) {
      assert.doesNotMatch(arg, /^(?:-f|--follow|--vacuum|--rotate|--directory|-D|--machine|-M|--root|--file|--merge|-m)(?:=|$)/);
    }
  });
});

describe('refusals happen before anything runs', () => {
  const cases: [string, unknown][] = [
    ['an unknown program', { program: 'bash', operation: 'show', unit: 'nginx.service' }],
    ['a program given as a path', { program: '/usr/bin/systemctl', operation: 'show', unit: 'nginx.service' }],
    ['an inherited property name as program', { program: 'toString', operation: 'show', unit: 'nginx.service' }],
    ['an unknown systemctl verb', { program: 'systemctl', operation: 'stop', unit: 'nginx.service' }],
    ['a journalctl verb on systemctl', { program: 'systemctl', operation: 'read', unit: 'nginx.service', lines: 1 }],
    ['a systemctl verb on journalctl', { program: 'journalctl', operation: 'restart', unit: 'nginx.service' }],
    ['a prototype key as verb', { program: 'systemctl', operation: 'constructor', unit: 'nginx.service' }],
    ['a string command line', 'systemctl restart nginx.service'],
    ['an option as unit', { program: 'systemctl', operation: 'restart', unit: '--help.service' }],
    ['a unit with a shell separator', { program: 'systemctl', operation: 'show', unit: 'nginx.service;id' }],
    ['a unit with a newline', { program: 'journalctl', operation: 'read', unit: 'a.service\n', lines: 1 }],
    ['a glob unit', { program: 'journalctl', operation: 'read', unit: 'a*.service', lines: 1 }],
    ['an extra field', { program: 'systemctl', operation: 'show', unit: 'nginx.service', args: ['--all'] }],
    ['too many lines', { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 10_001 }],
    ['fractional lines', { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 1.5 }],
    ['an ISO since (the capability converts it first)', { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 1, since: '2026-12-02T11:00:00Z' }],
    ['a since with words', { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 1, since: 'yesterday' }],
    ['an unknown priority', { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 1, priority: 'err..crit' }],
    ['a long grep', { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 1, grep: 'x'.repeat(129) }],
    ['a grep with a newline', { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 1, grep: 'a\nb' }],
  ];
  for (const [name, command] of cases) {
    it(`refuses ${name}`, async () => {
      let called = false;
      const runner = fakeRunner(() => {
        called = true;
        return commandResult('');
      });
      await assert.rejects(runner.run(command as HostCommand, options), refusal());
      assert.equal(called, false);
      assert.equal(runner.calls.length, 0);
    });
  }
});

describe('fakeRunner', () => {
  it('records the structured command and the argv it implies', async () => {
    const runner = fakeRunner((command) => commandResult(command.operation === 'show' ? 'LoadState=loaded\n' : ''));
    const result = await runner.run({ program: 'systemctl', operation: 'show', unit: 'nginx.service' }, options);
    assert.equal(result.stdout, 'LoadState=loaded\n');
    assert.deepEqual(runner.calls, [
      {
        command: { program: 'systemctl', operation: 'show', unit: 'nginx.service' },
        argv: [
          'show',
          '--property=LoadState,ActiveState,SubState,StateChangeTimestamp,MainPID,Id,SuccessAction,Triggers,Requires,Wants,BindsTo,Upholds,OnSuccess',
          '--no-pager',
          '--',
          'nginx.service',
        ],
      },
    ]);
  });

  it('refuses to start when already cancelled', async () => {
    const runner = fakeRunner(() => commandResult(''));
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      runner.run({ program: 'systemctl', operation: 'show', unit: 'nginx.service' }, { ...options, signal: controller.signal }),
      (error: unknown) => error instanceof CapabilityError && error.code === 'aborted' && error.retrySafe,
    );
    assert.equal(runner.calls.length, 0);
  });
});
