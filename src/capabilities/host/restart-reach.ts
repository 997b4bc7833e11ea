// What a restart would really start, read from systemd before service.restart asks for it.
// The name check (HOST_STATE_SERVICES) only sees the name a caller wrote, and systemd acts on
// more than that name: it resolves an alias (`shutdown-now.service` linked to
// systemd-poweroff.service restarts systemd-poweroff.service), a unit of any name can power the
// host off once it has started (`SuccessAction=poweroff`, exactly how systemd's own
// systemd-poweroff.service does it), a socket, timer or path starts the units it triggers (a
// timer with OnActiveSec= fires right after its restart), and a start pulls in what the unit
// names in Requires=, Wants=, BindsTo=, Upholds= and OnSuccess= (`Wants=reboot.target` reboots
// the host as surely as SuccessAction=reboot does). So the unit, and every unit its restart
// would start, is read with the one `systemctl show` shape, and the restart is refused when any
// of them changes the state of the whole host.
//
// How far the walk goes, deliberately:
// - Every unit a start pulls in is compared by name with HOST_STATE_TARGETS and
//   HOST_STATE_SERVICES, without reading it. systemd prints a dependency under the Id it
//   resolved, so an alias of reboot.target is seen as reboot.target.
// - Only the pulled-in units of the types service.restart takes itself (services, sockets,
//   timers, paths) are read, each once: their Id, their SuccessAction, what they trigger and
//   what they pull in in turn. A service is where a reboot hides under an ordinary name, and one
//   service in between (a.service wants b.service, which wants reboot.target) must not be
//   enough to hide it.
// - Targets, slices, mounts and devices are never read. Every unit pulls in sysinit.target and
//   its slice by default, and a target's own dependencies are the whole system: reading them
//   would refuse every unit or read hundreds. So a custom target that itself wants
//   reboot.target is not seen (docs/host-capabilities.md, "What the check does not see").
// - The walk is bounded (MAX_TRIGGERED_UNITS, MAX_PULLED_IN_UNITS) and refuses past a bound
//   rather than reading on; no ordinary unit comes near either (the real-host suite restarts
//   its ordinary units through this check).
//
// The decisions on what was read are pure (reachOf, hostStateReason, pulledInHostState,
// triggeredUnitProblem); checkRestartReach is the shell that reads and walks.
//
// An alias of an ordinary unit is refused too, by its own code: policy, grants and approvals
// name the unit as the caller wrote it, so an alias would get past a rule for the real unit.
//
// What is deliberately not refused: FailureAction=, OnFailure=, StartLimitAction= and
// JobTimeoutAction= are what the operator configured to happen when the unit goes wrong, a
// recovery; refusing them would leave the units that matter most unrestartable
// (docs/host-capabilities.md, "What a restart may reach").

import { CapabilityError } from '../implementation.ts';
import { HOST_STATE_SERVICES, HOST_STATE_TARGETS, RESTARTABLE_UNIT_TYPES, checkUnitName } from '../unit-name.ts';
import { commandFailure } from './failures.ts';
import type { CommandRunner } from './runner.ts';
import { parseShowOutput } from './service-status.ts';

/** More triggered units than this (over the whole walk) is refused rather than read one by one. */
export const MAX_TRIGGERED_UNITS = 8;
/**
 * More pulled-in services, sockets, timers and paths than this (over the whole walk) is refused
 * rather than read one by one. Targets, slices, mounts and devices do not count: they are only
 * compared by name.
 */
export const MAX_PULLED_IN_UNITS = 16;
export const REACH_READ_TIMEOUT_MS = 8_000;

/**
 * The dependencies whose units a start of the unit starts too (OnSuccess=: once it has succeeded).
 * Not Requisite= (it only checks), PartOf= or Conflicts= (they stop), nor OnFailure= (a recovery,
 * deliberately not refused).
 */
export const PULL_IN_PROPERTIES = ['Requires', 'Wants', 'BindsTo', 'Upholds', 'OnSuccess'] as const;
export type PullIn = (typeof PULL_IN_PROPERTIES)[number];

/** How a refusal's chain says each dependency: "a.service wants reboot.target". */
const PULL_IN_VERBS: Readonly<Record<PullIn, string>> = {
  Requires: 'requires',
  Wants: 'wants',
  BindsTo: 'binds to',
  Upholds: 'upholds',
  OnSuccess: 'is followed on success by',
};

/** What `systemctl show` says about where a unit's start leads. */
export interface UnitReach {
  /** The unit's own name once systemd has resolved any alias. */
  id: string;
  /** `none` unless the unit changes the host's state once its start has succeeded. */
  successAction: string;
  /** The units its activation starts (a socket's service, a timer's or a path's unit). */
  triggers: string[];
  /** The units its start pulls in, with the property that names each, in PULL_IN_PROPERTIES order. */
  pullsIn: { property: PullIn; unit: string }[];
}

/**
 * The unit names of a list property as systemctl 252 prints it: separated by spaces, each as
 * systemd's shell_maybe_quote() leaves it. A name a shell would read anything into (a `\x2d`
 * escape, above all) comes in double quotes, with `\`, `"`, `` ` `` and `$` escaped by a
 * backslash: `"system-praxis\\x2dtpl.slice"` is system-praxis\x2dtpl.slice. Null for a list
 * that does not read that way.
 */
export function unitList(value: string): string[] | null {
  const names: string[] = [];
  let i = 0;
  while (i < value.length) {
    if (value[i] === ' ') {
      i += 1;
      continue;
    }
    if (value[i] !== '"') {
      const end = value.indexOf(' ', i);
      const stop = end < 0 ? value.length : end;
      names.push(value.slice(i, stop));
      i = stop;
      continue;
    }
    let name = '';
    for (i += 1; ; ) {
      if (i >= value.length) return null;
      const ch = value[i]!;
      if (ch === '"') break;
      if (ch === '\\') {
        if (i + 1 >= value.length) return null;
        name += value[i + 1];
        i += 2;
      } else {
        name += ch;
        i += 1;
      }
    }
    i += 1;
    if (i < value.length && value[i] !== ' ') return null;
    names.push(name);
  }
  return names;
}

/**
 * The reach in systemd's `Key=Value` answer, or null when it lacks Id or SuccessAction or holds
 * a list it cannot read. A list property that is not printed at all counts as empty: systemd
 * prints an empty list (`Wants=`), and one older than 249 knows no Upholds= or OnSuccess=.
 */
export function reachOf(showOutput: string): UnitReach | null {
  const properties = parseShowOutput(showOutput);
  const id = properties.get('Id');
  const successAction = properties.get('SuccessAction');
  if (!id || successAction === undefined) return null;
  const triggers = unitList(properties.get('Triggers') ?? '');
  if (triggers === null) return null;
  const pullsIn: UnitReach['pullsIn'] = [];
  for (const property of PULL_IN_PROPERTIES) {
    const units = unitList(properties.get(property) ?? '');
    if (units === null) return null;
    for (const unit of units) pullsIn.push({ property, unit });
  }
  return { id, successAction, triggers, pullsIn };
}

/** Why starting the unit `name` (read as `reach`) changes the whole host's state, or null. */
export function hostStateReason(name: string, reach: UnitReach): string | null {
  if (HOST_STATE_SERVICES.has(reach.id)) {
    const what = reach.id === name ? name : `${name} is an alias of ${reach.id}, which`;
    return `${what} changes the state of the whole host (power, boot or rescue mode)`;
  }
  // systemd prints `none` for the default; every other value (exit, reboot, poweroff, halt,
  // kexec, soft-reboot and their -force/-immediate forms) acts on the host or the manager.
  if (reach.successAction !== '' && reach.successAction !== 'none') {
    return `${name} has SuccessAction=${reach.successAction}: once started, it takes the whole host (or its service manager) with it`;
  }
  return null;
}

/**
 * Why a unit that a start pulls in changes the whole host's state, judged by its name alone
 * (systemd prints a dependency under its resolved Id), or null.
 */
export function pulledInHostState(unit: string): string | null {
  if (HOST_STATE_TARGETS.has(unit) || HOST_STATE_SERVICES.has(unit)) {
    return `${unit} changes the state of the whole host (power, sleep, boot or rescue mode)`;
  }
  return null;
}

/**
 * True when a pulled-in unit is read before the restart: a service, socket, timer or path. The
 * other types are only compared by name (see the module comment).
 */
export function isReadWhenPulledIn(unit: string): boolean {
  const type = unit.slice(unit.lastIndexOf('.') + 1);
  return (RESTARTABLE_UNIT_TYPES as readonly string[]).includes(type);
}

/**
 * Why a unit that the restarted unit triggers may not be started this way, or null. It must be
 * of a type service.restart takes itself: a timer or path may name a target
 * (`Unit=reboot.target`), and what a target pulls in is not read here. Its name is not compared
 * with HOST_STATE_SERVICES here: the read that follows resolves it, aliases included.
 */
export function triggeredUnitProblem(name: string): string | null {
  return checkUnitName(name, RESTARTABLE_UNIT_TYPES);
}

function refusal(unit: string, reason: string): CapabilityError {
  // Not retry-safe: the unit is what it is; asking again changes nothing until an operator does.
  return new CapabilityError('unit_changes_host_state', `refused to restart ${unit}: ${reason}`, false);
}

/**
 * An alias is restarted by the unit's own name only. Policy rules, grants, commitments and the
 * approval an operator read all name the unit as the caller wrote it: `sshd.service`, an alias
 * of `ssh.service`, would restart ssh past a `deny` rule for `ssh.service`.
 */
function aliasRefusal(unit: string, id: string): CapabilityError {
  return new CapabilityError('unit_is_alias', `refused to restart ${unit}: it is an alias of ${id}, and rules, grants and approvals cover a unit by its own name; restart ${id} instead`, false);
}

/** One unit on the way from the unit asked for, and how the unit before it leads there. */
interface Step {
  unit: string;
  /** "triggers", "wants", …; null for the unit asked for. */
  via: string | null;
}

/** How the unit asked for leads to the last: "a.timer triggers b.service, which wants c.service". */
function chainOf(path: readonly Step[]): string {
  return path.map(({ unit, via }, i) => (i === 0 ? unit : i === 1 ? ` ${via} ${unit}` : `, which ${via} ${unit}`)).join('');
}

export interface ReachCheckOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Reads `unit` and every unit its restart would start (breadth first, each once): the units it
 * triggers, at most MAX_TRIGGERED_UNITS of them, and the services, sockets, timers and paths it
 * pulls in, at most MAX_PULLED_IN_UNITS, and what those trigger and pull in in turn. Throws
 * `unit_changes_host_state` when any of them changes the host's state, or pulls in a unit that
 * does by name. A failed read throws too, marked safe to retry: nothing has been restarted yet.
 */
export async function checkRestartReach(runner: CommandRunner, unit: string, { signal, timeoutMs = REACH_READ_TIMEOUT_MS }: ReachCheckOptions = {}): Promise<void> {
  const queue: Step[][] = [[{ unit, via: null }]];
  const seen = new Set([unit]);
  let triggered = 0;
  let pulledIn = 0;
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const name = path.at(-1)!.unit;
    const result = await runner.run({ program: 'systemctl', operation: 'show', unit: name }, { signal, timeoutMs });
    if (result.exitCode !== 0 || result.truncated) throw commandFailure(`reading ${name} before restarting ${unit}`, result, true);
    const reach = reachOf(result.stdout);
    if (reach === null) {
      throw new CapabilityError('command_failed', `systemd answered without a readable Id, SuccessAction and unit lists for ${name}, which the restart needs to check`, true);
    }
    const reason = hostStateReason(name, reach);
    if (reason !== null) throw refusal(unit, path.length === 1 ? reason : `${chainOf(path)}: ${reason}`);
    if (path.length === 1 && reach.id !== unit) throw aliasRefusal(unit, reach.id);

    // Every name first, before anything more is read.
    for (const { property, unit: next } of reach.pullsIn) {
      const why = pulledInHostState(next);
      if (why !== null) throw refusal(unit, `${chainOf([...path, { unit: next, via: PULL_IN_VERBS[property] }])}: ${why}`);
    }
    for (const next of reach.triggers) {
      if (seen.has(next)) continue;
      seen.add(next);
      triggered += 1;
      if (triggered > MAX_TRIGGERED_UNITS) throw refusal(unit, `${unit} triggers more than ${MAX_TRIGGERED_UNITS} units (directly or through the units it starts), too many to check one by one`);
      const step = { unit: next, via: 'triggers' };
      const problem = triggeredUnitProblem(next);
      if (problem !== null) throw refusal(unit, `${chainOf([...path, step])}, which service.restart may not start: ${problem}`);
      queue.push([...path, step]);
    }
    for (const { property, unit: next } of reach.pullsIn) {
      if (!isReadWhenPulledIn(next) || seen.has(next)) continue;
      seen.add(next);
      pulledIn += 1;
      if (pulledIn > MAX_PULLED_IN_UNITS) {
        throw refusal(unit, `${unit} pulls in more than ${MAX_PULLED_IN_UNITS} services, sockets, timers and paths (directly or through the units it starts), too many to check one by one`);
      }
      const step = { unit: next, via: PULL_IN_VERBS[property] };
      const problem = checkUnitName(next, RESTARTABLE_UNIT_TYPES);
      if (problem !== null) throw refusal(unit, `${chainOf([...path, step])}, which cannot be read to check it: ${problem}`);
      queue.push([...path, step]);
    }
  }
}
