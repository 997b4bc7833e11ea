// service.status through Praxis's real runner against systemd 252 as PID 1 of the container.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { capability, context, failsWith, property, runner, settle, status } from './support/container.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/;

/** systemd's own MainPID, read directly for a cross-check. */
function mainPid(unit: string): number | null {
  const pid = Number(property(unit, 'MainPID') || '0');
  return pid > 0 ? pid : null;
}

describe('service.status on real systemd', () => {
  it('a loaded, running service: states, a main PID systemd agrees on, and since in UTC', async () => {
    const observation = await settle('praxis-healthy.service', ['active']);
    assert.equal(observation.load_state, 'loaded');
    assert.equal(observation.sub_state, 'running');
    assert.equal(observation.main_pid, mainPid('praxis-healthy.service'));
    assert.match(String(observation.since), ISO);
    // The PID is a real process of this namespace, running the unit's program.
    const comm = readFileSync(`/proc/${observation.main_pid}/comm`, 'utf8').trim();
    assert.equal(comm, 'healthy');
    // since is when the unit entered its state: not in the future, not before the boot.
    const since = Date.parse(String(observation.since));
    assert.ok(since <= Date.now() + 1000, 'since is not in the future');
    assert.ok(since >= Date.now() - 10 * 60_000, 'since is after this container booted');
  });

  it('a service that failed after starting: failed (failed), no main PID, since the failure', async () => {
    const observation = await settle('praxis-flaky.service', ['failed']);
    assert.deepEqual(
      { load: observation.load_state, active: observation.active_state, sub: observation.sub_state, pid: observation.main_pid },
      { load: 'loaded', active: 'failed', sub: 'failed', pid: null },
    );
    assert.match(String(observation.since), ISO);
    const { summary } = await capability('service.status')({ unit: 'praxis-flaky.service' }, context());
    assert.match(summary, /^praxis-flaky\.service is failed \(failed\) since \d{4}-/);
  });

  it('a masked unit is an observation (masked, inactive), not an error, and has no since', async () => {
    const observation = await status('praxis-masked.service');
    assert.deepEqual(observation, {
      unit: 'praxis-masked.service',
      load_state: 'masked',
      active_state: 'inactive',
      sub_state: 'dead',
      since: null,
      main_pid: null,
    });
  });

  it('a unit systemd does not know is unit_not_found (systemctl itself exits 0 for it)', async () => {
    const raw = await runner.run({ program: 'systemctl', operation: 'show', unit: 'praxis-nonexistent.service' }, { timeoutMs: 8000 });
    assert.equal(raw.exitCode, 0);
    assert.match(raw.stdout, /^LoadState=not-found$/m);
    await assert.rejects(capability('service.status')({ unit: 'praxis-nonexistent.service' }, context()), failsWith('unit_not_found', true));
  });

  it('a templated unit: the enabled instance runs, another instance loads from the template and is inactive', async () => {
    const alpha = await settle('praxis-tpl@alpha.service', ['active']);
    assert.equal(alpha.sub_state, 'running');
    assert.equal(typeof alpha.main_pid, 'number');
    const beta = await status('praxis-tpl@beta.service');
    assert.deepEqual(
      { load: beta.load_state, active: beta.active_state, sub: beta.sub_state, since: beta.since, pid: beta.main_pid },
      { load: 'loaded', active: 'inactive', sub: 'dead', since: null, pid: null },
    );
  });

  it('an escaped instance name reaches systemd intact', async () => {
    const observation = await status('praxis-tpl@a\\x2db.service');
    assert.equal(observation.load_state, 'loaded');
    assert.equal(property('praxis-tpl@a\\x2db.service', 'Id'), 'praxis-tpl@a\\x2db.service');
  });

  it('a template without its instance is refused before anything runs', async () => {
    await assert.rejects(capability('service.status')({ unit: 'praxis-tpl@.service' }, context()), failsWith('invalid_params', false));
  });

  it('a socket (listening) and a timer (waiting) have no main PID: systemctl prints no MainPID line for them', async () => {
    const raw = await runner.run({ program: 'systemctl', operation: 'show', unit: 'praxis-echo.socket' }, { timeoutMs: 8000 });
    assert.doesNotMatch(raw.stdout, /^MainPID=/m);
    const socket = await status('praxis-echo.socket');
    assert.deepEqual([socket.load_state, socket.active_state, socket.sub_state, socket.main_pid], ['loaded', 'active', 'listening', null]);
    assert.match(String(socket.since), ISO);
    const timer = await status('praxis-tick.timer');
    assert.deepEqual([timer.load_state, timer.active_state, timer.sub_state, timer.main_pid], ['loaded', 'active', 'waiting', null]);
  });

  it('the oneshot service the timer ran: inactive (dead), yet with a since (it ran and finished)', async () => {
    const observation = await status('praxis-tick.service');
    assert.deepEqual([observation.active_state, observation.sub_state, observation.main_pid], ['inactive', 'dead', null]);
    assert.match(String(observation.since), ISO);
  });

  it('since agrees with systemd to the second', async () => {
    const observation = await status('praxis-healthy.service');
    const micros = Number(property('praxis-healthy.service', 'StateChangeTimestampMonotonic'));
    assert.ok(micros > 0);
    const text = property('praxis-healthy.service', 'StateChangeTimestamp');
    assert.match(text, /^[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/, 'systemctl prints UTC under TZ=UTC');
    assert.equal(observation.since, new Date(`${text.slice(4, 23).replace(' ', 'T')}Z`).toISOString());
  });
});
