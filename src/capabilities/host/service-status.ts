// service.status: one `systemctl show` of a fixed set of properties, parsed into a structured
// observation. A bounded read, so every failure of it is safe to retry.

import type { JsonObject } from '../../core/plan.ts';
import { CapabilityError } from '../implementation.ts';
import type { CapabilityImplementation } from '../implementation.ts';
import { checkedUnit, commandFailure } from './failures.ts';
import type { CommandRunner } from './runner.ts';

export const SERVICE_STATUS_TIMEOUT_MS = 8_000;

export interface ServiceStatus extends JsonObject {
  unit: string;
  load_state: string;
  active_state: string;
  sub_state: string;
  /** When the unit entered its current state (ISO-8601, UTC), or null when systemd does not say. */
  since: string | null;
  /** The main process, or null when there is none. */
  main_pid: number | null;
}

/** `Key=Value` lines as systemctl show prints them; later lines win, unknown keys are kept. */
export function parseShowOutput(text: string): Map<string, string> {
  const properties = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    properties.set(line.slice(0, eq), line.slice(eq + 1).replace(/\r$/, ''));
  }
  return properties;
}

const SYSTEMD_TIMESTAMP = /^(?:[A-Z][a-z]{2} )?(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})? (UTC|GMT|[+-]\d{2}:?\d{2})$/;

/**
 * A systemd timestamp (`Wed 2026-12-02 11:00:00 UTC`) as ISO-8601 in UTC. The runner sets
 * TZ=UTC, so the zone is UTC; a numeric offset is honoured, and any other zone name (which
 * could be ambiguous) gives null rather than a guess. Empty and `n/a` mean "never": null.
 */
export function parseSystemdTimestamp(value: string | undefined): string | null {
  if (value === undefined) return null;
  const m = SYSTEMD_TIMESTAMP.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction, zone] = m as unknown as string[];
  let offsetMinutes = 0;
  if (zone !== 'UTC' && zone !== 'GMT') {
    const digits = zone!.replace(':', '');
    offsetMinutes = (digits.startsWith('-') ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offsetMinutes * 60_000;
  if (Number.isNaN(ms)) return null;
  const millis = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  return new Date(ms + millis).toISOString();
}

export interface ServiceStatusOptions {
  runner: CommandRunner;
  timeoutMs?: number;
}

export function serviceStatusImplementation({ runner, timeoutMs = SERVICE_STATUS_TIMEOUT_MS }: ServiceStatusOptions): CapabilityImplementation {
  return async (params, { signal }) => {
    const unit = checkedUnit(params.unit);
    const result = await runner.run({ program: 'systemctl', operation: 'show', unit }, { signal, timeoutMs });
    if (result.exitCode !== 0 || result.truncated) throw commandFailure('reading the unit state', result, true);

    const properties = parseShowOutput(result.stdout);
    const loadState = properties.get('LoadState');
    const activeState = properties.get('ActiveState');
    const subState = properties.get('SubState');
    if (!loadState || !activeState || !subState) {
      throw new CapabilityError('command_failed', 'systemd answered without the unit states it was asked for', true);
    }
    if (loadState === 'not-found') {
      throw new CapabilityError('unit_not_found', `no unit named ${unit} is known to systemd`, true);
    }
    const pid = Number(properties.get('MainPID'));
    const observation: ServiceStatus = {
      unit,
      load_state: loadState,
      active_state: activeState,
      sub_state: subState,
      since: parseSystemdTimestamp(properties.get('StateChangeTimestamp')),
      main_pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null,
    };
    const since = observation.since ? ` since ${observation.since}` : '';
    return { observation, summary: `${unit} is ${activeState} (${subState})${since}` };
  };
}
