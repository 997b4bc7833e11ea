// service.restart through Praxis's real runner, and the verification a plan makes afterwards:
// a later service.status. `--no-block` returns as soon as the job is queued.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkRestartReach } from '../../src/capabilities/host/restart-reach.ts';
import { RESTART_REQUESTED } from '../../src/capabilities/host/service-restart.ts';
import { readFileSync } from 'node:fs';
import { capability, context, failsWith, property, runner, settle, status, systemctl, waitFor } from './support/container.ts';

async function restart(unit: string): Promise<{ elapsedMs: number; observation: Record<string, unknown>; summary: string }> {
  const started = performance.now(); // monotonic: the wall clock may step
  const { observation, summary } = await capability('service.restart')({ unit }, context());
  return { elapsedMs: performance.now() - started, observation, summary };
}

describe('service.restart on real systemd', () => {
  it('a healthy unit: requested (never "healthy"), then verified by status: active again with a new main PID', async () => {
    const unit = 'praxis-tpl@alpha.service';
    const before = await settle(unit, ['active']);
    const { observation, summary } = await restart(unit);
    assert.deepEqual(observation, { unit, requested: true, message: RESTART_REQUESTED });
    assert.equal(summary, `${unit}: ${RESTART_REQUESTED}`);
    const after = await waitFor('a new main PID', async () => {
      const now = await status(unit);
      return now.active_state === 'active' && now.main_pid !== before.main_pid ? now : undefined;
    });
    assert.equal(after.sub_state, 'running');
    assert.ok(Date.parse(String(after.since)) >= Date.parse(String(before.since)));
  });

  it('a unit that fails a few seconds after starting: up at first, then failed again, which verification must catch', async () => {
    const unit = 'praxis-flaky.service';
    await settle(unit, ['failed']);
    const requestedAt = Date.now();
    await restart(unit);
    // The restart itself succeeds: systemd starts the unit and reports it running…
    const running = await settle(unit, ['active'], 5_000);
    assert.equal(running.sub_state, 'running');
    assert.equal(typeof running.main_pid, 'number');
    // …and three seconds later it has failed. A verify step that looked too early would be fooled.
    const failed = await settle(unit, ['failed'], 10_000);
    assert.deepEqual([failed.sub_state, failed.main_pid], ['failed', null]);
    assert.ok(Date.parse(String(failed.since)) >= Math.floor(requestedAt / 1000) * 1000 + 2000, `${failed.since} is after the restart`);
    const { observation } = await capability('logs.query')({ unit, since: new Date(requestedAt - 1000).toISOString(), grep: 'fatal' }, context());
    assert.equal((observation.lines as string[]).length, 1);
  });

  it('--no-block: a restart whose stop hangs is queued and answered at once; status shows it stuck deactivating', async () => {
    const unit = 'praxis-hang.service';
    await settle(unit, ['active']);
    try {
      const { elapsedMs, observation } = await restart(unit);
      assert.equal(observation.requested, true);
      assert.ok(elapsedMs < 3000, `answered in ${elapsedMs} ms`);
      const stuck = await settle(unit, ['deactivating']);
      assert.equal(stuck.sub_state, 'stop');
      // Still stuck a moment later: the job has not ended, and the restart said nothing about health.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal((await status(unit)).active_state, 'deactivating');
      // A second request while the first job is still running is also just queued.
      const again = await restart(unit);
      assert.ok(again.elapsedMs < 3000);
    } finally {
      // Set-up, not the test: kill the hanging stop so the job can finish.
      systemctl('kill', '--kill-whom=all', '--signal=SIGKILL', '--', unit);
    }
    await settle(unit, ['active'], 20_000);
  });

  it('a masked unit is refused by systemd: unit_masked with its words, never retry-safe', async () => {
    await assert.rejects(capability('service.restart')({ unit: 'praxis-masked.service' }, context()), (error: unknown) => {
      failsWith('unit_masked', false)(error);
      assert.match((error as Error).message, /exited with status 1: Failed to restart praxis-masked\.service: Unit praxis-masked\.service is masked\./);
      return true;
    });
  });

  it('a unit systemd does not know: unit_not_found (status 5), never retry-safe', async () => {
    await assert.rejects(capability('service.restart')({ unit: 'praxis-nonexistent.service' }, context()), (error: unknown) => {
      failsWith('unit_not_found', false)(error);
      assert.match((error as Error).message, /exited with status 5: Failed to restart praxis-nonexistent\.service: Unit praxis-nonexistent\.service not found\./);
      return true;
    });
  });

  it('an alias of systemd-poweroff.service, a oneshot with SuccessAction=reboot and a timer that would start it: refused after reading them, systemd still running', async () => {
    // Set-up cross-checks (test/real-host/root/etc/systemd/system/): systemd resolves the alias
    // and the oneshot really carries its SuccessAction=.
    assert.equal(property('praxis-shutdown-now.service', 'Id'), 'systemd-poweroff.service');
    assert.equal(property('praxis-reboot-after.service', 'SuccessAction'), 'reboot');
    assert.equal(property('praxis-reboot-later.timer', 'Triggers'), 'praxis-reboot-after.service');
    const pid1 = () => readFileSync('/proc/1/stat', 'utf8').split(' ')[21]; // its start time: the same PID 1 throughout
    const startedAt = pid1();
    const cases: [string, RegExp][] = [
      ['praxis-shutdown-now.service', /praxis-shutdown-now\.service is an alias of systemd-poweroff\.service/],
      ['praxis-reboot-after.service', /praxis-reboot-after\.service has SuccessAction=reboot/],
      ['praxis-reboot-later.timer', /praxis-reboot-later\.timer triggers praxis-reboot-after\.service: praxis-reboot-after\.service has SuccessAction=reboot/],
    ];
    for (const [unit, says] of cases) {
      await assert.rejects(capability('service.restart')({ unit }, context()), (error: unknown) => {
        failsWith('unit_changes_host_state', false)(error);
        assert.match((error as Error).message, says);
        return true;
      });
    }
    // Had a restart been queued, --no-block would have returned at once and the shutdown begun
    // a moment later: give it that moment.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(pid1(), startedAt, 'the same systemd is PID 1');
    assert.match(systemctl('show', '--property=SystemState', '--value').trim(), /^(running|degraded)$/, 'the manager is not stopping');
    assert.doesNotMatch(systemctl('list-jobs', '--no-legend'), /poweroff|reboot|shutdown/);
    for (const [unit] of cases) assert.equal(property(unit, 'ActiveState'), 'inactive', unit);
  });

  it('units whose start pulls in reboot.target, an alias of systemd-poweroff.service or a SuccessAction=reboot unit, and a timer that would start one: refused after reading them, systemd still running', async () => {
    // Set-up cross-checks: systemd lists each dependency under the Id it resolved (the alias as
    // systemd-poweroff.service), and none of these units is running.
    assert.equal(property('praxis-wants-reboot.service', 'Wants'), 'reboot.target');
    assert.match(property('praxis-needs-poweroff.service', 'Requires'), /(^| )systemd-poweroff\.service( |$)/);
    assert.equal(property('praxis-then-reboot.service', 'OnSuccess'), 'praxis-reboot-after.service');
    assert.equal(property('praxis-poweroff-later.timer', 'Triggers'), 'praxis-needs-poweroff.service');
    const pid1 = () => readFileSync('/proc/1/stat', 'utf8').split(' ')[21];
    const startedAt = pid1();
    const cases: [string, RegExp][] = [
      ['praxis-wants-reboot.service', /praxis-wants-reboot\.service wants reboot\.target: reboot\.target changes the state of the whole host/],
      ['praxis-needs-poweroff.service', /praxis-needs-poweroff\.service requires systemd-poweroff\.service: systemd-poweroff\.service changes the state of the whole host/],
      ['praxis-then-reboot.service', /praxis-then-reboot\.service is followed on success by praxis-reboot-after\.service: praxis-reboot-after\.service has SuccessAction=reboot/],
      ['praxis-poweroff-later.timer', /praxis-poweroff-later\.timer triggers praxis-needs-poweroff\.service, which requires systemd-poweroff\.service: /],
    ];
    for (const [unit, says] of cases) {
      await assert.rejects(capability('service.restart')({ unit }, context()), (error: unknown) => {
        failsWith('unit_changes_host_state', false)(error);
        assert.match((error as Error).message, says);
        return true;
      });
    }
    // Had a restart been queued, the reboot or poweroff job would have begun a moment later.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(pid1(), startedAt, 'the same systemd is PID 1');
    assert.match(systemctl('show', '--property=SystemState', '--value').trim(), /^(running|degraded)$/, 'the manager is not stopping');
    assert.doesNotMatch(systemctl('list-jobs', '--no-legend'), /poweroff|reboot|halt|shutdown/);
    for (const unit of [...cases.map(([unit]) => unit), 'reboot.target', 'systemd-poweroff.service', 'praxis-reboot-after.service']) {
      assert.equal(property(unit, 'ActiveState'), 'inactive', unit);
    }
  });

  it('ordinary units with ordinary dependencies (targets, slices, a socket, services, an escaped instance) still restart', async () => {
    // Every other unit of the suite's root passes the check read-only (atlas-worker.service is
    // restarted for real by praxis-service.host.ts, whose journal count a restart here would spoil).
    for (const unit of [
      'praxis-healthy.service',
      'praxis-echo.socket',
      'praxis-echo.service',
      'praxis-tick.timer',
      'praxis-tick.service',
      'atlas-worker.service',
      'praxis-flood.service',
      'praxis-tpl@beta.service',
    ]) {
      await checkRestartReach(runner, unit);
    }
    // praxis-calls-web.service wants praxis-tpl@calls\x2dweb.service, which systemctl prints in quotes.
    assert.match(property('praxis-calls-web.service', 'Wants'), /"praxis-tpl@calls\\\\x2dweb\.service"/);
    for (const unit of ['praxis-calls-web.service', 'praxis-tick.timer', 'praxis-healthy.service']) {
      const { observation } = await restart(unit);
      assert.equal(observation.requested, true, unit);
    }
    // The restart started what the unit pulls in, the escaped instance among them.
    await settle('praxis-tpl@calls\\x2dweb.service', ['active']);
    await settle('praxis-healthy.service', ['active']);
  });

  it('an alias of an ordinary unit is refused, naming the unit itself, and the unit is not restarted', async () => {
    // praxis-well.service links to praxis-healthy.service: a rule or approval for the alias is not one for the unit.
    assert.equal(property('praxis-well.service', 'Id'), 'praxis-healthy.service');
    const before = property('praxis-healthy.service', 'ExecMainStartTimestampMonotonic');
    await assert.rejects(capability('service.restart')({ unit: 'praxis-well.service' }, context()), (error: unknown) => {
      failsWith('unit_is_alias', false)(error);
      assert.match((error as Error).message, /praxis-well\.service: it is an alias of praxis-healthy\.service.*restart praxis-healthy\.service instead/);
      return true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(property('praxis-healthy.service', 'ExecMainStartTimestampMonotonic'), before, 'praxis-healthy.service was not restarted');
  });

  it('a socket unit can be restarted too, and keeps listening', async () => {
    await restart('praxis-echo.socket');
    const socket = await settle('praxis-echo.socket', ['active']);
    assert.equal(socket.sub_state, 'listening');
  });
});
