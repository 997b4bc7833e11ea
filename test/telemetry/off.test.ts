// Traces are off unless OTEL_* says where to send them, and then nothing of OpenTelemetry is
// loaded at all: a daemon started in a child process (processes/daemon-modules.ts) is asked
// which modules it loaded.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { tracingWanted } from '../../src/telemetry/start.ts';
import { programArgs } from '../support/programs.ts';

const run = promisify(execFile);

async function openTelemetryModules(env: Record<string, string>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'praxis-otel-off-'));
  try {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    const { stdout } = await run(process.execPath, programArgs(new URL('./processes/daemon-modules.ts', import.meta.url)), { env: { ...clean, ...env, DB_PATH: join(dir, 'p.db') }, timeout: 60_000 });
    return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { loaded: number }).loaded;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('traces off by default', () => {
  it('are wanted only with an OTLP endpoint, and never with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none', () => {
    assert.equal(tracingWanted({}), false);
    assert.equal(tracingWanted({ OTEL_SERVICE_NAME: 'praxis' }), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
  });

  it('a daemon without OTEL_* loads no OpenTelemetry SDK or exporter module; with an endpoint it does', { timeout: 120_000 }, async () => {
    assert.equal(await openTelemetryModules({}), 0);
    // Nothing listens there: the exporter is loaded and started, and stops cleanly.
    assert.ok((await openTelemetryModules({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })) > 0);
  });
});
