// The commands whose real answers are kept as fixtures (test/host/support/captured/<name>.json).

import type { HostCommand } from '../../../src/capabilities/host/runner.ts';

const show = (unit: string): HostCommand => ({ program: 'systemctl', operation: 'show', unit });
const restart = (unit: string): HostCommand => ({ program: 'systemctl', operation: 'restart', unit });
const read = (unit: string, extra: Partial<{ grep: string; priority: 'warning'; lines: number }> = {}): HostCommand => ({
  program: 'journalctl',
  operation: 'read',
  unit,
  lines: 100,
  ...extra,
});

export const CAPTURES: Record<string, HostCommand> = {
  'show-running': show('praxis-healthy.service'),
  'show-failed': show('praxis-flaky.service'),
  'show-masked': show('praxis-masked.service'),
  'show-not-found': show('praxis-nonexistent.service'),
  'show-instance-inactive': show('praxis-tpl@beta.service'),
  'show-socket': show('praxis-echo.socket'),
  'show-timer': show('praxis-tick.timer'),
  'show-oneshot-finished': show('praxis-tick.service'),
  // What service.restart reads before a restart: an alias of systemd-poweroff.service, a unit
  // whose success reboots the host, and a timer (not enabled) that would start it.
  'show-alias-poweroff': show('praxis-shutdown-now.service'),
  'show-success-action': show('praxis-reboot-after.service'),
  'show-timer-triggering': show('praxis-reboot-later.timer'),
  // What a start pulls in: reboot.target (Wants=), an alias of systemd-poweroff.service
  // (Requires=, printed under its Id), a unit with SuccessAction=reboot (OnSuccess=), a timer
  // whose service requires that alias, and an ordinary unit with ordinary dependencies.
  'show-wants-reboot': show('praxis-wants-reboot.service'),
  'show-requires-poweroff': show('praxis-needs-poweroff.service'),
  'show-on-success-reboot': show('praxis-then-reboot.service'),
  'show-timer-pulling-poweroff': show('praxis-poweroff-later.timer'),
  'show-ordinary-dependencies': show('praxis-calls-web.service'),
  'restart-masked': restart('praxis-masked.service'),
  'restart-not-found': restart('praxis-nonexistent.service'),
  'journal-all': read('praxis-healthy.service'),
  'journal-grep-marks': read('praxis-healthy.service', { grep: 'mark' }),
  'journal-grep-multiline': read('praxis-healthy.service', { grep: 'config dump|key material' }),
  'journal-grep-none': read('praxis-healthy.service', { grep: 'no entry says this' }),
  'journal-grep-bad-pattern': read('praxis-healthy.service', { grep: '(' }),
  'journal-priority-warning': read('praxis-healthy.service', { priority: 'warning' }),
  'journal-failed-unit': read('praxis-flaky.service'),
  'journal-unknown-unit': read('praxis-nonexistent.service'),
};

/**
 * Text that differs from one boot to the next (times, PIDs, and the order of the names in a
 * dependency list, which is systemd's hash order), replaced by placeholders or sorted, so a
 * live answer can be compared with a captured one.
 */
export function normalised(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000/g, 'TIME')
    .replace(/[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/g, 'TIMESTAMP')
    .replace(/\[\d+\]:/g, '[PID]:')
    .replace(/^MainPID=[1-9]\d*$/gm, 'MainPID=PID')
    .replace(/^(Requires|Wants|BindsTo|Upholds|OnSuccess|Triggers)=(.+)$/gm, (_, name: string, list: string) => `${name}=${list.split(' ').sort().join(' ')}`);
}
