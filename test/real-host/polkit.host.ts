// Praxis as a service: packaging/praxis.service passes systemd-analyze verify and has a low
// exposure, and as the unprivileged praxis user Praxis's real runner may restart the units
// packaging/praxis-polkit.rules names and is refused for any other.

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { settle, systemctl, waitFor } from './support/container.ts';

const sh = (program: string, ...args: string[]) =>
  execFileSync(program, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', TZ: 'UTC', LANG: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });

function asPraxis(allowed: string, other: string): Record<string, any> {
  const out = sh(
    '/usr/bin/systemd-run', '--quiet', '--wait', '--pipe', '--collect', '--uid=praxis', '--gid=praxis',
    '--property=SupplementaryGroups=systemd-journal', '--property=WorkingDirectory=/praxis', '--setenv=HOME=/tmp',
    '--', '/usr/local/bin/node', '--import', 'tsx', 'test/real-host/support/as-praxis.ts', allowed, other,
  );
  return JSON.parse(out) as Record<string, any>;
}

describe('Praxis as a service, unprivileged, through polkit', () => {
  before(() => {
    mkdirSync('/etc/sysusers.d', { recursive: true });
    copyFileSync('/praxis/packaging/praxis.sysusers', '/etc/sysusers.d/praxis.conf');
    sh('/usr/bin/systemd-sysusers');
    copyFileSync('/praxis/packaging/praxis-polkit.rules', '/etc/polkit-1/rules.d/50-praxis.rules');
    copyFileSync('/praxis/packaging/praxis.service', '/etc/systemd/system/praxis.service');
    // Where the unit expects Node.js and the installed project.
    if (!existsSync('/usr/bin/node')) symlinkSync('/usr/local/bin/node', '/usr/bin/node');
    mkdirSync('/opt', { recursive: true });
    if (!existsSync('/opt/praxis')) symlinkSync('/praxis', '/opt/praxis');
    systemctl('daemon-reload');
  });

  it('the praxis user exists, unprivileged, in the journal group', () => {
    const id = sh('/usr/bin/id', 'praxis');
    assert.match(id, /uid=\d+\(praxis\)/);
    assert.doesNotMatch(id, /uid=0\b/);
    assert.match(id, /systemd-journal/);
  });

  it('systemd-analyze verify passes on packaging/praxis.service', () => {
    const out = sh('/usr/bin/systemd-analyze', 'verify', '/etc/systemd/system/praxis.service');
    assert.equal(out.trim(), '');
  });

  it('systemd-analyze security rates its exposure 2.0 or lower', () => {
    const out = sh('/usr/bin/systemd-analyze', 'security', '--no-pager', 'praxis.service');
    const level = /Overall exposure level for praxis\.service: (\d+\.\d+)/.exec(out);
    assert.ok(level, out.slice(-400));
    assert.ok(Number(level[1]) <= 2.0, `exposure ${level[1]}`);
  });

  it('as praxis: restart of a unit the rule names is requested, of any other refused (permission_denied), reads work', async () => {
    await settle('praxis-tpl@alpha.service', ['active']);
    const before = Number(systemctl('show', '--property=MainPID', '--value', '--', 'praxis-tpl@alpha.service').trim());
    const healthyBefore = systemctl('show', '--property=MainPID', '--value', '--', 'praxis-healthy.service').trim();
    const result = asPraxis('praxis-tpl@alpha.service', 'praxis-healthy.service');
    assert.ok(result.uid > 0, `ran as uid ${result.uid}`);
    assert.equal(result.allowed.ok, true, JSON.stringify(result.allowed));
    assert.equal(result.allowed.observation.requested, true);
    assert.deepEqual([result.other.ok, result.other.code, result.other.retrySafe], [false, 'permission_denied', false], JSON.stringify(result.other));
    assert.match(result.other.message, /Access denied|Interactive authentication required/);
    assert.equal(result.status.ok, true);
    assert.equal(result.status.observation.active_state, 'active');
    assert.equal(result.logs.ok, true, JSON.stringify(result.logs));
    assert.ok(result.logs.observation.lines.some((l: string) => l.includes('flaky: starting worker')));
    // The allowed restart really happened; the refused one did not.
    await waitFor('the allowed unit to restart', () => {
      const pid = Number(systemctl('show', '--property=MainPID', '--value', '--', 'praxis-tpl@alpha.service').trim());
      return pid > 0 && pid !== before ? true : undefined;
    });
    assert.equal(systemctl('show', '--property=MainPID', '--value', '--', 'praxis-healthy.service').trim(), healthyBefore);
  });
});
