// Daemon configuration: precedence flags > environment > file > defaults, and every bad value
// refused with a problem naming where it came from.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError, type Problem } from '../../src/core/errors.ts';
import { Command } from 'commander';
import { daemonOptions } from '../../src/cli/commands/serve.ts';
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_TICK_MS, consoleAt, readConfigFile, resolveDaemonConfig, type ConfigFile, type DaemonFlags } from '../../src/daemon/config.ts';
import { praxis } from './process.ts';

const around = { defaultConsoleDir: null, defaultExecutorHost: 'node-a', consoleAt: (p: string) => (p === '/srv/console' ? p : null) };

function resolve(flags: DaemonFlags = {}, env: Record<string, string> = {}, file: ConfigFile | null = null) {
  return resolveDaemonConfig(flags, env, file, around);
}

function problems(flags: DaemonFlags = {}, env: Record<string, string> = {}, file: ConfigFile | null = null): Problem[] {
  try {
    resolve(flags, env, file);
  } catch (error) {
    assert.ok(error instanceof InputError, `a typed error, not ${String(error)}`);
    return error.problems;
  }
  assert.fail('the configuration was accepted');
}

describe('daemon configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'praxis-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to 127.0.0.1:7300 on the default SQLite file, tokens required', () => {
    const config = resolve();
    assert.equal(config.host, DEFAULT_HOST);
    assert.equal(config.port, DEFAULT_PORT);
    assert.equal(DEFAULT_PORT, 7300);
    assert.deepEqual(config.store, { kind: 'sqlite', path: './.praxis/praxis.db' });
    assert.equal(config.anonymousRole, null);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.executorHost, 'node-a');
    assert.equal(config.tickMs, DEFAULT_TICK_MS);
  });

  it("says the defaults it applies in praxis serve's help", () => {
    const options = daemonOptions(new Command('serve')).options;
    const help = (flag: string) => options.find((o) => o.long === flag)?.description ?? '';
    assert.match(help('--tick-ms'), new RegExp(`default ${DEFAULT_TICK_MS}\\b`));
    assert.match(help('--port'), new RegExp(`default ${DEFAULT_PORT}\\b`));
    assert.match(help('--host'), new RegExp(`default ${DEFAULT_HOST.replaceAll('.', '\\.')}\\b`));
  });

  it('takes flags over the environment over the file', () => {
    const file: ConfigFile = { path: 'praxis.yaml', values: { host: '10.0.0.1', port: 7000, anonymousRole: 'viewer', logLevel: 'debug', database: '/var/lib/praxis.db', tickMs: 500 } };
    const fromFile = resolve({}, {}, file);
    assert.deepEqual([fromFile.host, fromFile.port, fromFile.anonymousRole, fromFile.logLevel, fromFile.tickMs], ['10.0.0.1', 7000, 'viewer', 'debug', 500]);
    assert.deepEqual(fromFile.store, { kind: 'sqlite', path: '/var/lib/praxis.db' });

    const env = { PRAXIS_HOST: '0.0.0.0', PRAXIS_PORT: '7100', PRAXIS_ANONYMOUS_ROLE: 'operator', PRAXIS_DATABASE_URL: 'postgres://db.internal/praxis', PRAXIS_LOG_LEVEL: 'warn' };
    const fromEnv = resolve({}, env, file);
    assert.deepEqual([fromEnv.host, fromEnv.port, fromEnv.anonymousRole, fromEnv.logLevel], ['0.0.0.0', 7100, 'operator', 'warn']);
    assert.equal(fromEnv.store.kind, 'postgres');

    const fromFlags = resolve({ host: 'localhost', port: '0', anonymous: 'none', db: '/tmp/x.db', logLevel: 'error' }, env, file);
    assert.deepEqual([fromFlags.host, fromFlags.port, fromFlags.anonymousRole, fromFlags.logLevel], ['localhost', 0, null, 'error']);
    assert.deepEqual(fromFlags.store, { kind: 'sqlite', path: '/tmp/x.db' });
  });

  it('names each bad value and where it came from, all at once', () => {
    const found = problems({ port: '70000', host: 'not a host!', anonymous: 'root', logLevel: 'loud', tickMs: '5' }, { PRAXIS_DATABASE_URL: 'mysql://x' });
    assert.deepEqual(
      found.map((p) => [p.code, p.path]),
      [
        ['invalid_host', '--host'],
        ['invalid_port', '--port'],
        ['invalid_role', '--anonymous'],
        ['invalid_log_level', '--log-level'],
        ['invalid_tick_ms', '--tick-ms'],
        ['invalid_store_config', 'PRAXIS_DATABASE_URL'],
      ],
    );
    assert.match(found[1]!.message, /"70000" is not a port/);
    assert.deepEqual(
      problems({}, { PRAXIS_PORT: 'http' }).map((p) => [p.code, p.path]),
      [['invalid_port', 'PRAXIS_PORT']],
    );
    assert.deepEqual(
      problems({}, { PRAXIS_ANONYMOUS_ROLE: 'agent' }).map((p) => p.code),
      ['invalid_role'],
      'anonymous requests cannot be an agent',
    );
    assert.deepEqual(
      problems({ console: '/nowhere' }).map((p) => [p.code, p.path]),
      [['invalid_console_dir', '--console']],
    );
  });

  it('refuses an OTLP endpoint that is not an http(s) URL when traces are wanted, and ignores it when they are off', () => {
    assert.deepEqual(
      problems({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' }).map((p) => [p.code, p.path]),
      [
        ['invalid_otlp_endpoint', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
        ['invalid_otlp_endpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
      ],
    );
    assert.match(problems({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })[0]!.message, /"not a url" is not the http\(s\) URL of an OTLP collector/);
    assert.doesNotThrow(() => resolve({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318' }));
    assert.doesNotThrow(() => resolve({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url', OTEL_SDK_DISABLED: 'true' }));
    assert.doesNotThrow(() => resolve({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url', OTEL_TRACES_EXPORTER: 'none' }));
  });

  it('refuses model variables that name no usable model, each named, and takes none or a whole set', () => {
    assert.deepEqual(
      problems({}, { PRAXIS_MODEL_BASE_URL: 'not a url', PRAXIS_MODEL_TIMEOUT_MS: '30s' }).map((p) => [p.code, p.path]),
      [
        ['invalid_model_config', 'PRAXIS_MODEL'],
        ['invalid_model_config', 'PRAXIS_MODEL_BASE_URL'],
        ['invalid_model_config', 'PRAXIS_MODEL_TIMEOUT_MS'],
      ],
    );
    const [missing] = problems({}, { PRAXIS_MODEL: 'qwen2.5', PRAXIS_MODEL_API_KEY: 'sk-x' });
    assert.equal(missing!.path, 'PRAXIS_MODEL_BASE_URL');
    assert.match(missing!.message, /PRAXIS_MODEL_BASE_URL is not set while PRAXIS_MODEL, PRAXIS_MODEL_API_KEY are/);
    assert.deepEqual(
      problems({}, { PRAXIS_MODEL_BASE_URL: 'file:///etc/passwd', PRAXIS_MODEL: 'm', PRAXIS_MODEL_TIMEOUT_MS: '0' }).map((p) => p.path),
      ['PRAXIS_MODEL_BASE_URL', 'PRAXIS_MODEL_TIMEOUT_MS'],
    );
    // Past 2^31 - 1 ms a Node timer fires at once: every call would time out.
    assert.deepEqual(
      problems({}, { PRAXIS_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1', PRAXIS_MODEL: 'm', PRAXIS_MODEL_TIMEOUT_MS: '3000000000' }).map((p) => p.path),
      ['PRAXIS_MODEL_TIMEOUT_MS'],
    );
    assert.doesNotThrow(() => resolve({}, { PRAXIS_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1', PRAXIS_MODEL: 'm', PRAXIS_MODEL_TIMEOUT_MS: '2147483647' }));
    assert.doesNotThrow(() => resolve({}, {}));
    assert.doesNotThrow(() => resolve({}, { PRAXIS_MODEL_BASE_URL: ' ', PRAXIS_MODEL: '' }));
    assert.doesNotThrow(() => resolve({}, { PRAXIS_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1', PRAXIS_MODEL: 'qwen2.5', PRAXIS_MODEL_TIMEOUT_MS: '30000' }));
  });

  it("a terminal's default level (warn) sits below the flag, the variable and the file", () => {
    const quiet = { ...around, defaultLogLevel: 'warn' as const };
    assert.equal(resolveDaemonConfig({}, {}, null, quiet).logLevel, 'warn');
    // A configuration file that names no level keeps the terminal's default (it made it info).
    assert.equal(resolveDaemonConfig({}, {}, { path: 'q.json', values: { port: 7395 } }, quiet).logLevel, 'warn');
    assert.equal(resolveDaemonConfig({}, {}, { path: 'q.json', values: { logLevel: 'debug' } }, quiet).logLevel, 'debug');
    assert.equal(resolveDaemonConfig({}, { PRAXIS_LOG_LEVEL: 'info' }, null, quiet).logLevel, 'info');
    assert.equal(resolveDaemonConfig({ logLevel: 'error' }, {}, null, quiet).logLevel, 'error');
  });

  it('serves as the console only a directory holding a built console, made absolute (all of it is public)', () => {
    const place = mkdtempSync(join(tmpdir(), 'praxis-console-'));
    try {
      // A store directory: the database and the daemon secret, never to be served.
      writeFileSync(join(place, 'praxis.db'), 'db');
      writeFileSync(join(place, 'praxis.db.secret'), 'secret');
      assert.equal(consoleAt(place), null);
      assert.equal(consoleAt(join(place, 'praxis.db')), null, 'a file is no console');
      assert.equal(consoleAt(join(place, 'nowhere')), null);
      const built = join(place, 'dist');
      mkdirSync(built);
      writeFileSync(join(built, 'index.html'), '<!doctype html>');
      assert.equal(consoleAt(built), built);
      const cwd = process.cwd();
      process.chdir(place);
      try {
        assert.equal(consoleAt('dist'), built, 'a relative path is made absolute');
      } finally {
        process.chdir(cwd);
      }
    } finally {
      rmSync(place, { recursive: true, force: true });
    }
  });

  it('refuses unknown keys and bad values in the file, naming the file and the key', () => {
    const file: ConfigFile = { path: 'praxis.yaml', values: { prot: 7300, port: '7300x', host: 12, database: 'ftp://x' } };
    assert.deepEqual(
      problems({}, {}, file).map((p) => [p.code, p.path]),
      [
        ['unknown_setting', 'praxis.yaml: prot'],
        ['invalid_host', 'praxis.yaml: host'],
        ['invalid_port', 'praxis.yaml: port'],
        ['invalid_store_config', 'praxis.yaml: database'],
      ],
    );
    const unknown = problems({}, {}, file)[0]!.message;
    for (const known of ['port', 'database', 'webhooks', 'publicUrl']) assert.match(unknown, new RegExp(`\\b${known}\\b`), `the message names ${known} among the known settings`);
  });

  it('reads JSON and YAML files, and refuses unreadable or malformed ones', () => {
    const yaml = join(dir, 'praxis.yaml');
    writeFileSync(yaml, 'host: 127.0.0.2\nport: 7301\n');
    assert.deepEqual(readConfigFile(yaml).values, { host: '127.0.0.2', port: 7301 });
    const json = join(dir, 'praxis.json');
    writeFileSync(json, '{"port": 7302}');
    assert.deepEqual(readConfigFile(json).values, { port: 7302 });
    writeFileSync(json, '{"port": ');
    assert.throws(
      () => readConfigFile(json),
      (e: unknown) => e instanceof InputError && e.problems[0]!.code === 'malformed_config',
    );
    writeFileSync(yaml, '- a list\n');
    assert.throws(
      () => readConfigFile(yaml),
      (e: unknown) => e instanceof InputError && e.problems[0]!.code === 'malformed_config',
    );
    assert.throws(
      () => readConfigFile(join(dir, 'missing.yaml')),
      (e: unknown) => e instanceof InputError && e.problems[0]!.path === '--config',
    );
  });

  it('praxis serve exits 2 with every problem and starts nothing', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'colour: blue\n');
    const db = join(dir, 'never.db');
    const run = await praxis(['serve', '--port', 'abc', '--anonymous', 'root', '--config', file, '--db', db]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /invalid_port at --port/);
    assert.match(run.stderr, /invalid_role at --anonymous/);
    assert.match(run.stderr, /unknown_setting at .*bad.yaml: colour/);
    assert.equal(run.stdout, '', 'nothing started, nothing logged');
    assert.equal(await import('node:fs').then((fs) => fs.existsSync(db)), false, 'no store was opened');
  });

  it('praxis intend and praxis demo refuse model variables that name no usable model, as serve does, before anything is made', async () => {
    const cwd = mkdtempSync(join(dir, 'model-'));
    const env = { PRAXIS_MODEL_BASE_URL: 'not a url', PRAXIS_MODEL: 'm', PRAXIS_MODEL_TIMEOUT_MS: '' };
    const db = join(cwd, 'intend.db');
    const intend = await praxis(['intend', '--mind', 'web', '--db', db, 'restart nginx.service'], env, { cwd });
    assert.equal(intend.code, 2, intend.stderr);
    assert.match(intend.stderr, /invalid_model_config at PRAXIS_MODEL_BASE_URL: "not a url"/);
    const demo = await praxis(['demo', '--port', '0'], env, { cwd });
    assert.equal(demo.code, 2, demo.stderr);
    assert.match(demo.stderr, /invalid_model_config at PRAXIS_MODEL_BASE_URL/);
    assert.deepEqual(readdirSync(cwd), [], 'no store, no demo database');
  });
});
