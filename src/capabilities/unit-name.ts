// The unit names Praxis will hand to systemctl and journalctl. The rule is deliberately
// narrower than systemd's own: a name must look like exactly one concrete unit, never like an
// option, a glob, a path or a template without its instance, so that even a mistake further
// down (an argument built the wrong way) cannot turn it into something else.

export const UNIT_TYPES = ['service', 'socket', 'target', 'timer', 'mount', 'automount', 'swap', 'path', 'slice', 'scope', 'device'] as const;
export type UnitType = (typeof UNIT_TYPES)[number];

/**
 * The units `service.restart` may restart: services, and the sockets, timers and paths that
 * start them. Never a target (restarting `poweroff.target` or `rescue.target` powers the host
 * off or isolates it), a slice or a scope (every process in it stops), a mount, an automount or
 * a swap (storage goes away under its users), or a device (not restartable): a grant or rule for
 * `service.restart *` must not reach any of those.
 */
export const RESTARTABLE_UNIT_TYPES: readonly UnitType[] = ['service', 'socket', 'timer', 'path'];

/**
 * Services whose start changes the host's state as a whole: systemd's stock units power off,
 * reboot, halt, kexec, suspend or hibernate the machine once started (`SuccessAction=` and the
 * like), and rescue and emergency take it to single-user mode. A restart of one is never a
 * service restart. Checked here by name, and by the Id systemd resolves a name to before a
 * restart (host/restart-reach.ts), since an alias of one passes every name rule.
 */
export const HOST_STATE_SERVICES: ReadonlySet<string> = new Set([
  'systemd-poweroff.service',
  'systemd-reboot.service',
  'systemd-halt.service',
  'systemd-kexec.service',
  'systemd-soft-reboot.service',
  'systemd-suspend.service',
  'systemd-hibernate.service',
  'systemd-hybrid-sleep.service',
  'systemd-suspend-then-hibernate.service',
  'rescue.service',
  'emergency.service',
]);

/**
 * Targets whose start changes the host's state as a whole. `service.restart` never restarts a
 * target itself (RESTARTABLE_UNIT_TYPES), but a unit can pull one in (`Wants=reboot.target`), and
 * the restart then starts it too; so a unit whose start pulls in one of these is refused by the
 * name alone (host/restart-reach.ts). systemd prints a dependency under the Id it resolves to,
 * so an alias of one of these is seen by its own name.
 */
export const HOST_STATE_TARGETS: ReadonlySet<string> = new Set([
  // Each pulls in the service of the same name (systemd-poweroff.service and so on), which
  // stops the machine.
  'poweroff.target',
  'reboot.target',
  'halt.target',
  'kexec.target',
  'soft-reboot.target',
  // systemd's name for the Ctrl-Alt-Del key; a link to reboot.target on every stock system.
  'ctrl-alt-del.target',
  // Pulls in systemd-exit.service (SuccessAction=exit-force): the service manager itself ends,
  // and with PID 1 the container or machine it runs.
  'exit.target',
  // Every unit with default dependencies conflicts with it: starting it stops them all.
  'shutdown.target',
  // Every mount conflicts with it: starting it unmounts the file systems.
  'umount.target',
  // Pull in rescue.service and emergency.service (HOST_STATE_SERVICES): single-user mode.
  'rescue.target',
  'emergency.target',
  // The others pull in systemd-suspend.service and the like. sleep.target alone suspends
  // nothing, but starting it runs what is hooked to run before every sleep (units that stop,
  // lock or unmount things), and no ordinary unit pulls it in.
  'sleep.target',
  'suspend.target',
  'hibernate.target',
  'hybrid-sleep.target',
  'suspend-then-hibernate.target',
]);

/**
 * The units `logs.query` reads the journal of: every type but a slice, for which journalctl also
 * matches every unit inside it (`system.slice` is the whole system's log), so that its one name
 * as the policy target would stand for units that rules and commitments name one by one.
 */
export const JOURNAL_UNIT_TYPES: readonly UnitType[] = UNIT_TYPES.filter((t) => t !== 'slice');

export const MAX_UNIT_NAME_LENGTH = 255;

const ALLOWED = /^[A-Za-z0-9:_.\\@-]$/;
const ESCAPE = /^\\x[0-9A-Fa-f]{2}/;

function describeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return `control character U+${code.toString(16).padStart(4, '0').toUpperCase()}`;
  if (code > 0x7e) return `non-ASCII character U+${code.toString(16).padStart(4, '0').toUpperCase()}`;
  if (ch === ' ') return 'a space';
  return `"${ch}"`;
}

/** Null when `name` is an acceptable unit name of one of `types`, otherwise why it is not. */
export function checkUnitName(name: unknown, types: readonly UnitType[] = UNIT_TYPES): string | null {
  if (typeof name !== 'string') return 'a unit name must be a string';
  if (name.length === 0) return 'the unit name is empty';
  if (name.length > MAX_UNIT_NAME_LENGTH) return `the unit name is longer than ${MAX_UNIT_NAME_LENGTH} characters`;

  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    if (!ALLOWED.test(ch)) {
      // Report the whole code point, not half of a surrogate pair.
      const whole = String.fromCodePoint(name.codePointAt(i) ?? 0);
      return `the unit name contains ${describeChar(whole)}`;
    }
    if (ch === '\\') {
      if (!ESCAPE.test(name.slice(i))) return 'a backslash may only start a \\xNN escape';
      i += 3;
    }
  }

  if (name.startsWith('-')) return 'the unit name starts with "-", which would read as an option';
  if (name.startsWith('.')) return 'the unit name starts with "."';
  if (name.includes('..')) return 'the unit name contains ".."';

  const dot = name.lastIndexOf('.');
  const type = dot >= 0 ? name.slice(dot + 1) : '';
  if (dot < 0 || !(UNIT_TYPES as readonly string[]).includes(type)) {
    return `the unit name must end in a unit type (${UNIT_TYPES.map((t) => `.${t}`).join(' ')})`;
  }
  if (!(types as readonly string[]).includes(type)) return `a .${type} unit is not one this takes (${types.map((t) => `.${t}`).join(' ')})`;
  const stem = name.slice(0, dot);
  if (stem.length === 0) return 'the unit name has nothing before its type';

  const at = stem.indexOf('@');
  if (at >= 0) {
    if (stem.indexOf('@', at + 1) >= 0) return 'the unit name contains more than one "@"';
    if (at === 0) return 'the unit name has nothing before "@"';
    if (at === stem.length - 1) return 'a template unit needs an instance after "@"';
  }
  return null;
}

/** Null when `name` is a unit `service.restart` may restart (RESTARTABLE_UNIT_TYPES, and not HOST_STATE_SERVICES). */
export function checkRestartableUnit(name: unknown): string | null {
  const problem = checkUnitName(name, RESTARTABLE_UNIT_TYPES);
  if (problem !== null) return problem;
  return HOST_STATE_SERVICES.has(name as string) ? `${String(name)} changes the state of the whole host (power, boot or rescue mode): never restarted` : null;
}

export function isUnitName(name: unknown, types: readonly UnitType[] = UNIT_TYPES): name is string {
  return checkUnitName(name, types) === null;
}
