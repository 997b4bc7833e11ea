import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../src/core/plan.ts';
import { BUILTIN_CAPABILITIES } from '../../src/capabilities/catalogue/index.ts';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import type { CapabilityImplementation } from '../../src/capabilities/implementation.ts';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { journalCommand, toJournalTime } from '../../src/capabilities/host/logs-query.ts';
import { commandResult, fakeRunner } from '../../src/capabilities/host/runner.ts';
import { parseSystemdTimestamp } from '../../src/capabilities/host/service-status.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';

const context = () => ({ signal: new AbortController().signal });

function observesOf(name: string): string[] {
  const definition = BUILTIN_CAPABILITIES.find((d) => d.name === name);
  assert.ok(definition, name);
  return [...definition.observes].sort();
}

function assertObservationShape(name: string, observation: JsonObject): void {
  assert.deepEqual(Object.keys(observation).sort(), observesOf(name), `${name} observation fields`);
}

function code(expected: string, retrySafe?: boolean) {
  return (error: unknown) => error instanceof CapabilityError && error.code === expected && (retrySafe === undefined || error.retrySafe === retrySafe);
}

describe('service.status (fake runner)', () => {
  it('parses systemctl show output into the observation', async () => {
    const runner = fakeRunner(() => commandResult('MainPID=812\nLoadState=loaded\nActiveState=active\nSubState=running\nStateChangeTimestamp=Wed 2026-12-02 11:00:00 UTC\n'));
    const { observation, summary } = await builtinImplementations({ runner })['service.status']!({ unit: 'nginx.service' }, context());
    assert.deepEqual(observation, {
      unit: 'nginx.service',
      load_state: 'loaded',
      active_state: 'active',
      sub_state: 'running',
      since: '2026-12-02T11:00:00.000Z',
      main_pid: 812,
    });
    assertObservationShape('service.status', observation);
    assert.match(summary, /nginx\.service is active \(running\)/);
  });

  it('reports no PID and no time as null', async () => {
    const runner = fakeRunner(() => commandResult('LoadState=loaded\nActiveState=inactive\nSubState=dead\nStateChangeTimestamp=\nMainPID=0\n'));
    const { observation } = await builtinImplementations({ runner })['service.status']!({ unit: 'idle.service' }, context());
    assert.equal(observation.since, null);
    assert.equal(observation.main_pid, null);
  });

  it('an unknown unit is unit_not_found (retry-safe: a read)', async () => {
    const runner = fakeRunner(() => commandResult('LoadState=not-found\nActiveState=inactive\nSubState=dead\nStateChangeTimestamp=\nMainPID=0\n'));
    await assert.rejects(builtinImplementations({ runner })['service.status']!({ unit: 'nope.service' }, context()), code('unit_not_found', true));
  });

  it('a failing systemctl is command_failed with its own words, masked', async () => {
    const runner = fakeRunner(() => commandResult('', 1, 'Failed to connect to bus at 10.0.0.9: Connection refused\n'));
    await assert.rejects(builtinImplementations({ runner })['service.status']!({ unit: 'nginx.service' }, context()), (error: unknown) => {
      assert.ok(error instanceof CapabilityError);
      assert.equal(error.code, 'command_failed');
      assert.equal(error.retrySafe, true);
      assert.match(error.message, /Failed to connect to bus at \[ipv4\]/);
      return true;
    });
  });

  it('checks the unit again, whatever the schema did', async () => {
    const runner = fakeRunner(() => commandResult(''));
    await assert.rejects(builtinImplementations({ runner })['service.status']!({ unit: '--all' }, context()), code('invalid_params', false));
    assert.equal(runner.calls.length, 0);
  });

  it('parses systemd timestamps, refusing ambiguous zones', () => {
    assert.equal(parseSystemdTimestamp('Wed 2026-12-02 11:00:00 UTC'), '2026-12-02T11:00:00.000Z');
    assert.equal(parseSystemdTimestamp('Wed 2026-12-02 11:00:00.250000 UTC'), '2026-12-02T11:00:00.250Z');
    assert.equal(parseSystemdTimestamp('Wed 2026-12-02 12:00:00 +0100'), '2026-12-02T11:00:00.000Z');
    assert.equal(parseSystemdTimestamp('Wed 2026-12-02 12:00:00 CET'), null);
    assert.equal(parseSystemdTimestamp('n/a'), null);
    assert.equal(parseSystemdTimestamp(''), null);
  });
});

/** systemctl show of an ordinary service (its own Id, no SuccessAction, triggering nothing), as systemd 252 prints it. */
const ordinaryShow = (unit: string) => commandResult(`MainPID=0\nId=${unit}\nTriggers=\nLoadState=loaded\nActiveState=failed\nSubState=failed\nStateChangeTimestamp=\nSuccessAction=none\n`);

/** A fake runner that shows every unit as an ordinary one and answers the restart with `restart`. */
function restartRunner(restart: () => ReturnType<typeof commandResult>) {
  return fakeRunner((command) => (command.operation === 'show' ? ordinaryShow(command.unit) : restart()));
}

describe('service.restart (fake runner)', () => {
  it('requests a restart and claims nothing about health', async () => {
    const runner = restartRunner(() => commandResult(''));
    const { observation, summary, lowTrust } = await builtinImplementations({ runner })['service.restart']!({ unit: 'nginx.service' }, context());
    assert.deepEqual(observation, { unit: 'nginx.service', requested: true, message: 'restart requested (health not yet verified)' });
    assertObservationShape('service.restart', observation);
    assert.match(summary, /restart requested \(health not yet verified\)/);
    assert.doesNotMatch(summary, /healthy|running|active/);
    assert.equal(lowTrust, undefined);
    assert.deepEqual(
      runner.calls.map((c) => c.command),
      // What the restart would start is read first (restart-reach.test.ts).
      [
        { program: 'systemctl', operation: 'show', unit: 'nginx.service' },
        { program: 'systemctl', operation: 'restart', unit: 'nginx.service' },
      ],
    );
  });

  it('failures of the restart itself are never retry-safe', async () => {
    const notFound = restartRunner(() => commandResult('', 5, 'Failed to restart x.service: Unit x.service not found.\n'));
    await assert.rejects(builtinImplementations({ runner: notFound })['service.restart']!({ unit: 'x.service' }, context()), code('unit_not_found', false));
    const denied = restartRunner(() => commandResult('', 1, 'Failed to restart x.service: Interactive authentication required.\n'));
    await assert.rejects(builtinImplementations({ runner: denied })['service.restart']!({ unit: 'x.service' }, context()), code('permission_denied', false));
    const other = restartRunner(() => commandResult('', 1, 'Job failed\n'));
    await assert.rejects(builtinImplementations({ runner: other })['service.restart']!({ unit: 'x.service' }, context()), code('command_failed', false));
  });
});

describe('logs.query parameters', () => {
  it('converts ISO times to UTC journal times and passes the rest through', () => {
    assert.deepEqual(toJournalTime('2026-12-02T12:30:00+01:00'), { value: '2026-12-02 11:30:00', at: Date.UTC(2026, 11, 2, 11, 30) });
    assert.equal(toJournalTime('2026-12-02T11:30:00.123456Z')?.value, '2026-12-02 11:30:00.123456');
    assert.equal(toJournalTime('2026-12-02T11:30')?.value, '2026-12-02 11:30:00');
    assert.equal(toJournalTime('2026-12-02 11:30')?.value, '2026-12-02 11:30:00');
    assert.equal(toJournalTime('2026-12-02')?.value, '2026-12-02 00:00:00');
    assert.deepEqual(toJournalTime('-15min'), { value: '-15min', at: null });
    for (const bad of ['2026-02-30', '2026-13-01T00:00:00Z', 'yesterday', '-0min', '2026-12-02T11:30:00+25:00', '--since=x', '-15 min']) {
      assert.equal(toJournalTime(bad), null, bad);
    }
  });

  it('refuses out-of-bounds values with invalid_params', () => {
    const bad: JsonObject[] = [
      { unit: 'a.service', lines: 0 },
      { unit: 'a.service', lines: 1001 },
      { unit: 'a.service', lines: 2.5 },
      { unit: 'a.service', since: 'last week' },
      { unit: 'a.service', since: '2026-12-02T12:00:00Z', until: '2026-12-02T11:00:00Z' },
      { unit: 'a.service', priority: 'loud' },
      { unit: 'a.service', grep: '' },
      { unit: 'a.service', grep: 'x'.repeat(129) },
      { unit: 'a.service', grep: 'a\u0007b' },
      { unit: 'foo' },
    ];
    for (const params of bad) {
      assert.throws(() => journalCommand(params), code('invalid_params'), JSON.stringify(params));
    }
  });

  it('defaults to 100 lines', () => {
    assert.deepEqual(journalCommand({ unit: 'a.service' }), { program: 'journalctl', operation: 'read', unit: 'a.service', lines: 100 });
  });
});

describe('logs.query (fake runner)', () => {
  it('masks every line and marks the result low-trust', async () => {
    const runner = fakeRunner(() =>
      commandResult(
        // Newest first, as the read operation asks journalctl for it.
        '2026-12-02T11:00:01+0000 web app[1]: key dump -----BEGIN PRIVATE KEY-----\n' +
          '                                       MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n' +
          '                                       -----END PRIVATE KEY----- done\n' +
          '2026-12-02T11:00:00+0000 web app[1]: login alice@example.com from 10.1.2.3\n',
      ),
    );
    const outcome = await builtinImplementations({ runner })['logs.query']!({ unit: 'app.service', lines: 5, grep: 'login|key' }, context());
    assert.deepEqual(outcome.observation, {
      unit: 'app.service',
      lines: ['2026-12-02T11:00:00+0000 web app[1]: login [email] from [ipv4]', '2026-12-02T11:00:01+0000 web app[1]: key dump [private-key] done'],
      truncated: false,
      masked: true,
    });
    assertObservationShape('logs.query', outcome.observation);
    assert.equal(outcome.lowTrust, true);
    assert.deepEqual(runner.calls[0]!.argv, ['--no-pager', '--quiet', '--output=short-iso', '--reverse', '--unit=app.service', '--lines=5', '--grep=login|key']);
  });

  it('drops the line cut by the output cap and says so, oldest kept entry last in the output', async () => {
    const runner = fakeRunner(() => ({ exitCode: null, stdout: 'three\ntwo\non', stderr: '', truncated: true }));
    const { observation } = await builtinImplementations({ runner })['logs.query']!({ unit: 'app.service' }, context());
    assert.deepEqual(observation.lines, ['two', 'three']);
    assert.equal(observation.truncated, true);
  });

  it('a cut inside a continuation line (or right after a line) drops the whole entry it may belong to', async () => {
    for (const stdout of ['c head\nb head\n  b more\n  b mo', 'c head\nb head\n  b more\n']) {
      const runner = fakeRunner(() => ({ exitCode: null, stdout, stderr: '', truncated: true }));
      const { observation } = await builtinImplementations({ runner })['logs.query']!({ unit: 'app.service' }, context());
      assert.deepEqual(observation.lines, ['c head'], JSON.stringify(stdout));
    }
  });

  it('a grep that matched nothing (journalctl 252 exits 1, silently) is an empty answer', async () => {
    const runner = fakeRunner(() => commandResult('', 1, ''));
    const { observation } = await builtinImplementations({ runner })['logs.query']!({ unit: 'app.service', grep: 'nothing' }, context());
    assert.deepEqual(observation.lines, []);
    const silentWithoutGrep = fakeRunner(() => commandResult('', 1, ''));
    await assert.rejects(builtinImplementations({ runner: silentWithoutGrep })['logs.query']!({ unit: 'app.service' }, context()), code('command_failed', true));
    const badPattern = fakeRunner(() => commandResult('', 1, 'Bad pattern "(": missing closing parenthesis\n'));
    await assert.rejects(builtinImplementations({ runner: badPattern })['logs.query']!({ unit: 'app.service', grep: '(' }, context()), code('command_failed', true));
  });
});

describe('service and log capabilities on the simulated host', () => {
  let host: SimulatedHost;
  let impl: Record<string, CapabilityImplementation>;
  const t0 = new Date('2026-12-02T11:00:00Z');

  before(() => {
    host = SimulatedHost.create().setClock(t0);
    host.setUnit('nginx.service', { active_state: 'active', sub_state: 'running', main_pid: 812, since: '2026-12-01T08:00:00Z' });
    host.setUnit('payments-api.service', {
      active_state: 'failed',
      sub_state: 'failed',
      main_pid: 0,
      since: '2026-12-02T10:55:00Z',
      restart: { outcome: 'active', delay_seconds: 5 },
    });
    host.setUnit('worker.service', { active_state: 'active', sub_state: 'running', main_pid: 99, restart: { outcome: 'failed' } });
    host.addJournal('payments-api.service', [
      { time: '2026-12-02T10:50:00Z', message: 'starting on 0.0.0.0:8443', priority: 6 },
      { time: '2026-12-02T10:52:00Z', message: 'payment for bob@example.com from 203.0.113.7 ok', priority: 6 },
      { time: '2026-12-02T10:54:00Z', message: 'upstream refused: Authorization: Bearer abcdef0123456789XYZ', priority: 3 },
      { time: '2026-12-02T10:54:30Z', message: 'db postgres://pay:hunter2@10.0.4.12/pay unreachable', priority: 2 },
      { time: '2026-12-02T10:55:00Z', message: 'exiting', priority: 2 },
    ]);
    impl = builtinImplementations({ runner: host.runner() });
  });
  after(() => host.remove());

  it('reads a running and a failed unit', async () => {
    const running = await impl['service.status']!({ unit: 'nginx.service' }, context());
    assert.deepEqual(running.observation, {
      unit: 'nginx.service',
      load_state: 'loaded',
      active_state: 'active',
      sub_state: 'running',
      since: '2026-12-01T08:00:00.000Z',
      main_pid: 812,
    });
    const failed = await impl['service.status']!({ unit: 'payments-api.service' }, context());
    assert.equal(failed.observation.active_state, 'failed');
    assert.equal(failed.observation.main_pid, null);
    await assert.rejects(impl['service.status']!({ unit: 'ghost.service' }, context()), code('unit_not_found'));
  });

  it('a restart is requested, then observed activating, then active', async () => {
    const restart = await impl['service.restart']!({ unit: 'payments-api.service' }, context());
    assert.equal(restart.observation.requested, true);
    const soon = await impl['service.status']!({ unit: 'payments-api.service' }, context());
    assert.equal(soon.observation.active_state, 'activating');
    host.advanceClock(6);
    const later = await impl['service.status']!({ unit: 'payments-api.service' }, context());
    assert.equal(later.observation.active_state, 'active');
    assert.equal(later.observation.sub_state, 'running');
    assert.equal(later.observation.since, '2026-12-02T11:00:05.000Z');
    assert.ok(typeof later.observation.main_pid === 'number' && later.observation.main_pid > 0);
    assert.equal(host.unit('payments-api.service')?.restarts, 1);
  });

  it('a restart that fails is still only "requested"; the failure shows in a later read', async () => {
    const restart = await impl['service.restart']!({ unit: 'worker.service' }, context());
    assert.match(restart.summary, /health not yet verified/);
    const status = await impl['service.status']!({ unit: 'worker.service' }, context());
    assert.equal(status.observation.active_state, 'failed');
  });

  it("a journalctl that writes a flood of warnings still gives its lines, and is not 'cut at the output cap'", async () => {
    host.setBehaviour('journalctl', { stderr_flood_bytes: 200 * 1024 });
    try {
      const read = await impl['logs.query']!({ unit: 'payments-api.service', lines: 5 }, context());
      assert.equal((read.observation.lines as string[]).length, 5);
      assert.equal(read.observation.truncated, false);
      assert.doesNotMatch(read.summary, /output cap/);
    } finally {
      host.setBehaviour('journalctl', null);
    }
  });

  it('restarting an unknown unit is unit_not_found', async () => {
    await assert.rejects(impl['service.restart']!({ unit: 'ghost.service' }, context()), code('unit_not_found', false));
  });

  it('reads logs with since, priority and grep, masked', async () => {
    const { observation, lowTrust } = await impl['logs.query']!({ unit: 'payments-api.service', since: '2026-12-02T11:51:00+01:00', priority: 'err', grep: 'refused|unreachable' }, context());
    assert.equal(lowTrust, true);
    assert.deepEqual(observation.lines, [
      '2026-12-02T10:54:00+0000 simhost payments-api[1]: upstream refused: Authorization: Bearer [secret]',
      '2026-12-02T10:54:30+0000 simhost payments-api[1]: db postgres://[secret]@[ipv4]/pay unreachable',
    ]);
    const calls = host.calls().filter((c) => c.program === 'journalctl');
    assert.deepEqual(calls.at(-1)?.argv, [
      '--no-pager',
      '--quiet',
      '--output=short-iso',
      '--reverse',
      '--unit=payments-api.service',
      '--lines=100',
      '--since=2026-12-02 10:51:00',
      '--priority=err',
      '--grep=refused|unreachable',
    ]);
  });

  it('reads the last lines with a relative since, including systemd restart entries', async () => {
    const { observation } = await impl['logs.query']!({ unit: 'payments-api.service', since: '-10min', lines: 3 }, context());
    const lines = observation.lines as string[];
    assert.equal(lines.length, 3);
    assert.match(lines.at(-1)!, /systemd\[1\]: Started payments-api\.$/);
    for (const line of lines) assert.doesNotMatch(line, /@example\.com|203\.0\.113\.7|hunter2/);
  });

  it('a bad grep pattern is reported by journalctl as a failure', async () => {
    await assert.rejects(impl['logs.query']!({ unit: 'payments-api.service', grep: '(' }, context()), code('command_failed', true));
  });
});

describe('the example estate for demonstrations', () => {
  it('seeds units and logs that read back masked', async () => {
    const host = SimulatedHost.create();
    try {
      const now = new Date('2026-12-02T11:00:00Z');
      host.setClock(now).seedExample(now);
      const impl = builtinImplementations({ runner: host.runner() });
      const failed = await impl['service.status']!({ unit: 'payments-api.service' }, context());
      assert.equal(failed.observation.active_state, 'failed');
      const { observation } = await impl['logs.query']!({ unit: 'payments-api.service' }, context());
      const text = (observation.lines as string[]).join('\n');
      assert.equal((observation.lines as string[]).length, 5);
      assert.doesNotMatch(text, /alice@|203\.0\.113\.7|sk_test|hunter2|10\.0\.4\.12/);
      assert.match(text, /\[email\].*\[ipv4\]/);
    } finally {
      host.remove();
    }
  });
});
