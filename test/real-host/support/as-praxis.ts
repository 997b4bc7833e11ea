// Run as the unprivileged praxis user (polkit.host.ts starts it with systemd-run): Praxis's real
// runner restarting a unit the polkit rule allows, one it does not, and reading a journal.
// Prints one JSON object of outcomes.

import { hostImplementations } from '../../../src/capabilities/host/index.ts';
import { CapabilityError } from '../../../src/capabilities/implementation.ts';
import { execFileRunner } from '../../../src/capabilities/host/runner.ts';

const host = hostImplementations({ runner: execFileRunner() });
const context = { signal: new AbortController().signal };

async function outcome(name: string, params: Record<string, string | number>) {
  try {
    const { observation } = await host[name]!(params, context);
    return { ok: true, observation };
  } catch (error) {
    if (error instanceof CapabilityError) return { ok: false, code: error.code, message: error.message, retrySafe: error.retrySafe };
    throw error;
  }
}

const [allowed, other] = process.argv.slice(2);
process.stdout.write(
  `${JSON.stringify({
    uid: process.getuid?.(),
    allowed: await outcome('service.restart', { unit: allowed! }),
    other: await outcome('service.restart', { unit: other! }),
    status: await outcome('service.status', { unit: other! }),
    logs: await outcome('logs.query', { unit: 'praxis-flaky.service', lines: 5 }),
  })}\n`,
);
