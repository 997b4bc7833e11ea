import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkUnitName, isUnitName } from '../../src/capabilities/unit-name.ts';

const accepted = [
  'nginx.service',
  'getty@tty1.service',
  'systemd-fsck@dev-disk-by\\x2duuid-1234.service',
  'atlas-worker.service',
  'payments-api.service',
  'sshd.socket',
  'multi-user.target',
  'logrotate.timer',
  'home.mount',
  'proc-sys-fs-binfmt_misc.automount',
  'dev-sda2.swap',
  'cups.path',
  'user.slice',
  'session-2.scope',
  'dev-sda.device',
  'user@1000.service',
  'foo.bar.service',
  'Upper_Case:1.service',
  'a.service',
  `${'a'.repeat(247)}.service`, // exactly 255 characters
];

const refused: [name: unknown, why: RegExp][] = [
  ['--help.service', /starts with "-"/],
  ['-o', /"-"|unit type/],
  ['foo=bar.service', /"="/],
  ['nginx.service;id', /";"/],
  ['a*.service', /"\*"/],
  ['foo', /unit type/],
  ['../x.service', /"\/"/],
  ['x/../y.service', /"\/"/],
  [`${'a'.repeat(248)}.service`, /longer than 255/],
  ['my unit.service', /a space/],
  ['nginx.service\n', /control character/],
  ['nginx\t.service', /control character/],
  ['ngïnx.service', /non-ASCII/],
  ['nginx\u200b.service', /non-ASCII/],
  ['😀.service', /non-ASCII character U\+1F600/],
  ['foo@.service', /instance/],
  ['@foo.service', /nothing before "@"/],
  ['a@b@c.service', /more than one "@"/],
  ['.service', /starts with "\."/],
  ['foo..service', /"\.\."/],
  ['foo.exe', /unit type/],
  ['foo.Service', /unit type/],
  ['foo.service.', /unit type/],
  ['', /empty/],
  ['foo\\.service', /\\xNN/],
  ['foo\\x2.service', /\\xNN/],
  ['foo\\xZZ.service', /\\xNN/],
  ['$(reboot).service', /"\$"/],
  ['`id`.service', /"`"/],
  ['foo|bar.service', /"\|"/],
  ['foo>bar.service', /">"/],
  ["foo'.service", /"'"/],
  ['foo".service', /"""/],
  ['/etc/passwd', /"\/"/],
  ['~root.service', /"~"/],
  [42, /string/],
  [null, /string/],
];

describe('checkUnitName', () => {
  for (const name of accepted) {
    it(`accepts ${JSON.stringify(name).slice(0, 60)}`, () => {
      assert.equal(checkUnitName(name), null);
      assert.equal(isUnitName(name), true);
    });
  }
  for (const [name, why] of refused) {
    it(`refuses ${JSON.stringify(name)?.slice(0, 60)}`, () => {
      const reason = checkUnitName(name);
      assert.notEqual(reason, null);
      assert.match(reason!, why);
      assert.equal(isUnitName(name), false);
    });
  }

  it('has a corpus of at least thirty cases', () => {
    assert.ok(accepted.length + refused.length >= 30);
  });

  it('accepts exactly 255 characters and refuses 256', () => {
    assert.equal(checkUnitName(`${'a'.repeat(247)}.service`), null);
    assert.equal(`${'a'.repeat(248)}.service`.length, 256);
    assert.notEqual(checkUnitName(`${'a'.repeat(248)}.service`), null);
  });
});
