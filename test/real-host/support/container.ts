// What the real-host tests share: the guard that they run inside the suite's booted container
// (never on a machine's own systemd), Praxis's real runner and host implementations, and a few
// helpers that set a scene with systemctl directly (test set-up only; what is tested always goes
// through Praxis's runner).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CapabilityError } from '../../../src/capabilities/implementation.ts';
import type { CapabilityImplementation } from '../../../src/capabilities/implementation.ts';
import { builtinImplementations } from '../../../src/capabilities/builtin-implementations.ts';
import { execFileRunner } from '../../../src/capabilities/host/runner.ts';
import type { CommandRunner } from '../../../src/capabilities/host/runner.ts';

/** The value scripts/host-root.sh gives systemd's `container=`; systemd writes it to /run/systemd/container. */
export const CONTAINER_NAME = 'praxis-host-test';

function containerName(): string | null {
  try {
    return readFileSync('/run/systemd/container', 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Refuses to go on anywhere but inside the suite's container: these tests restart units, freeze
 * PID 1 and flood the journal. A failure, not a skip, so a misrouted run is never green.
 */
export function assertInsideContainer(): void {
  assert.equal(process.env.PRAXIS_REAL_HOST, '1', 'run the real-host suite with `npm run test:host` (scripts/host-root.sh)');
  assert.equal(containerName(), CONTAINER_NAME, 'not inside the real-host suite container');
  assert.equal(readFileSync('/proc/1/comm', 'utf8').trim(), 'systemd', 'PID 1 of this namespace is not systemd');
}

assertInsideContainer();

/** Praxis's real runner, with its defaults: /usr/bin/systemctl and /usr/bin/journalctl, no shims. */
export const runner: CommandRunner = execFileRunner();

export const host: Record<string, CapabilityImplementation> = builtinImplementations({ runner });

export function capability(name: string): CapabilityImplementation {
  const implementation = host[name];
  assert.ok(implementation, name);
  return implementation;
}

export const context = () => ({ signal: new AbortController().signal });

export function failsWith(expected: string, retrySafe?: boolean) {
  return (error: unknown) => {
    assert.ok(error instanceof CapabilityError, `expected a CapabilityError, got ${String(error)}`);
    assert.equal(error.code, expected, error.message);
    if (retrySafe !== undefined) assert.equal(error.retrySafe, retrySafe, 'retrySafe');
    return true;
  };
}

/** systemctl for setting a scene (never for what is tested). */
export function systemctl(...args: string[]): string {
  return execFileSync('/usr/bin/systemctl', ['--no-pager', ...args], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', TZ: 'UTC' } });
}

/** One unit property, read directly for set-up and cross-checks. */
export function property(unit: string, name: string): string {
  return systemctl('show', `--property=${name}`, '--value', '--', unit).trim();
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function status(unit: string): Promise<Record<string, unknown>> {
  const { observation } = await capability('service.status')({ unit }, context());
  return observation;
}

/** Waits until a unit's ActiveState is one of `states` (read through Praxis). */
export async function settle(unit: string, states: string[], timeoutMs = 15_000): Promise<Record<string, unknown>> {
  return waitFor(
    `${unit} to be ${states.join(' or ')}`,
    async () => {
      const observation = await status(unit);
      return states.includes(observation.active_state as string) ? observation : undefined;
    },
    timeoutMs,
  );
}
