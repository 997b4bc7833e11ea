// What a restart would really start, read from systemd before service.restart asks for it.
// The name check (HOST_STATE_SERVICES) only sees the name a caller wrote, and systemd acts on
// more than that name: it resolves an alias (`shutdown-now.service` linked to
// systemd-poweroff.service restarts systemd-poweroff.service), a unit of any name can power the
// host off once it has started (`SuccessAction=poweroff`, exactly how systemd's own
// systemd-poweroff.service does it), and a socket, timer or path starts the units it triggers
// (a timer with OnActiveSec= fires right after its restart). So the unit, and every unit it
// triggers, is read with the one `systemctl show` shape, and the restart is refused when any of
// them changes the state of the whole host.
//
// The decisions on what was read are pure (reachOf, hostStateReason, triggeredUnitProblem);
// checkRestartReach is the shell that reads and walks.
//
// An alias of an ordinary unit is refused too, by its own code: policy, grants and approvals
// name the unit as the caller wrote it, so an alias would get past a rule for the real unit.
//
// What is deliberately not refused: FailureAction=, OnFailure=, StartLimitAction= and
// JobTimeoutAction= are what the operator configured to happen when the unit goes wrong, a
// recovery; refusing them would leave the units that matter most unrestartable
// (docs/host-capabilities.md, "What a restart may reach").

import { CapabilityError } from '../implementation.ts';
import { HOST_STATE_SERVICES, RESTARTABLE_UNIT_TYPES, checkUnitName } from '../unit-name.ts';
import { commandFailure } from './failures.ts';
import type { CommandRunner } from './runner.ts';
import { parseShowOutput } from './service-status.ts';

/** More triggered units than this (over the whole walk) is refused rather than read one by one. */
export const MAX_TRIGGERED_UNITS = 8;
export const REACH_READ_TIMEOUT_MS = 8_000;

/** What `systemctl show` says about where a unit's start leads. */
export interface UnitReach {
  /** The unit's own name once systemd has resolved any alias. */
  id: string;
  /** `none` unless the unit changes the host's state once its start has succeeded. */
  successAction: string;
  /** The units its activation starts (a socket's service, a timer's or a path's unit). */
  triggers: string[];
}

/** The reach in systemd's `Key=Value` answer, or null when it lacks Id or SuccessAction. */
export function reachOf(showOutput: string): UnitReach | null {
  const properties = parseShowOutput(showOutput);
  const id = properties.get('Id');
  const successAction = properties.get('SuccessAction');
  if (!id || successAction === undefined) return null;
  const triggers = (properties.get('Triggers') ?? '').split(/\s+/).filter((name) => name !== '');
  return { id, successAction, triggers };
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

/** How the unit asked for leads to `name`: "a.timer triggers b.path, which triggers c.service". */
function chainOf(path: readonly string[]): string {
  return path.map((name, i) => (i === 0 ? name : i === 1 ? ` triggers ${name}` : `, which triggers ${name}`)).join('');
}

export interface ReachCheckOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Reads `unit` and every unit it triggers (breadth first, each once, at most
 * MAX_TRIGGERED_UNITS of them) and throws `unit_changes_host_state` when any of them changes the
 * host's state. A failed read throws too, marked safe to retry: nothing has been restarted yet.
 */
export async function checkRestartReach(runner: CommandRunner, unit: string, { signal, timeoutMs = REACH_READ_TIMEOUT_MS }: ReachCheckOptions = {}): Promise<void> {
  const queue: string[][] = [[unit]];
  const seen = new Set([unit]);
  let triggered = 0;
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const name = path.at(-1)!;
    const result = await runner.run({ program: 'systemctl', operation: 'show', unit: name }, { signal, timeoutMs });
    if (result.exitCode !== 0 || result.truncated) throw commandFailure(`reading ${name} before restarting ${unit}`, result, true);
    const reach = reachOf(result.stdout);
    if (reach === null) {
      throw new CapabilityError('command_failed', `systemd answered without the Id and SuccessAction of ${name}, which the restart needs to check`, true);
    }
    const reason = hostStateReason(name, reach);
    if (reason !== null) throw refusal(unit, path.length === 1 ? reason : `${chainOf(path)}: ${reason}`);
    if (path.length === 1 && reach.id !== unit) throw aliasRefusal(unit, reach.id);
    for (const next of reach.triggers) {
      if (seen.has(next)) continue;
      seen.add(next);
      triggered += 1;
      if (triggered > MAX_TRIGGERED_UNITS) throw refusal(unit, `${unit} triggers more than ${MAX_TRIGGERED_UNITS} units (directly or through the units it triggers), too many to check one by one`);
      const problem = triggeredUnitProblem(next);
      if (problem !== null) throw refusal(unit, `${chainOf([...path, next])}, which service.restart may not start: ${problem}`);
      queue.push([...path, next]);
    }
  }
}
