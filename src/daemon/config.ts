// The daemon's configuration. Each setting comes from, strongest first: a command-line flag, an
// environment variable, the optional configuration file (`--config`, JSON or YAML), a default.
// Everything is checked before anything starts, and every problem is reported at once, each
// naming where the bad value came from, so an operator fixes the lot in one go.

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Yaml from 'yaml';
import { InputError, type Problem } from '../core/errors.ts';
import { AccessRoles, type AccessRole } from '../core/vocabulary.ts';
import { resolveStoreConfig, type StoreConfig } from '../store/index.ts';
import { NOTIFICATION_FILE_KEYS, resolveNotifications, type NotificationSettings } from '../notify/targets.ts';
import { tracingEndpointProblems } from '../telemetry/start.ts';
import { modelRoleProblems } from '../drafting/model-role.ts';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7300;
/**
 * The executor's tick, as the specification has it: events wake it earlier, and it sleeps no
 * longer than until the next step falls due (Executor: the store's next due time), so a verify
 * step due in ten seconds is looked at on time without a shorter tick. The same value as the
 * executor's own default (DEFAULT_TICK_INTERVAL_MS), not imported so reading the configuration
 * loads no executor.
 */
export const DEFAULT_TICK_MS = 15_000;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const MIN_TICK_MS = 100;
const MAX_TICK_MS = 600_000;

export interface DaemonConfig {
  /** Address the HTTP server listens on. */
  host: string;
  /** 0 picks a free port (the daemon logs the one it got). */
  port: number;
  store: StoreConfig;
  /** Token-less requests act as "anonymous" with this role; null requires a token for everything. */
  anonymousRole: AccessRole | null;
  logLevel: LogLevel;
  /** Longest sleep of the executor loop between ticks when nothing wakes it. */
  tickMs: number;
  /** The name minds are bound to for affinity: this daemon runs unbound minds and minds bound to it. */
  executorHost: string;
  /** The built console, served at `/`; null serves none. */
  consoleDir: string | null;
  /**
   * Host names (or addresses) the HTTP server answers to besides loopback, `localhost` and the
   * address a connection reached; any other `Host` is refused (DNS rebinding, src/server/hosts.ts).
   */
  allowedHosts?: string[];
  /** Webhook targets and the console's public address for their links (docs/notifications.md). */
  notifications?: NotificationSettings;
  /**
   * The daemon secret file approval digests are keyed with (src/access/daemon-secret.ts); null
   * keeps it beside the SQLite file, or in ./.praxis/ for PostgreSQL.
   */
  secretFile?: string | null;
}

/** Flags as commander hands them over: strings, or undefined when not given. */
export interface DaemonFlags {
  host?: string | undefined;
  port?: string | undefined;
  db?: string | undefined;
  anonymous?: string | undefined;
  logLevel?: string | undefined;
  tickMs?: string | undefined;
  executorHost?: string | undefined;
  console?: string | undefined;
  allowedHosts?: string | undefined;
  secretFile?: string | undefined;
  config?: string | undefined;
}

/** A parsed configuration file: where it came from and what it held. */
export interface ConfigFile {
  path: string;
  values: Record<string, unknown>;
}

/** Keys a configuration file may hold, with the flag and the variables (strongest first) that override each. */
const SETTINGS = {
  host: { flag: '--host', env: ['PRAXIS_HOST'] },
  port: { flag: '--port', env: ['PRAXIS_PORT'] },
  database: { flag: '--db', env: ['PRAXIS_DATABASE_URL', 'PRAXIS_DB'] },
  anonymousRole: { flag: '--anonymous', env: ['PRAXIS_ANONYMOUS_ROLE'] },
  logLevel: { flag: '--log-level', env: ['PRAXIS_LOG_LEVEL'] },
  tickMs: { flag: '--tick-ms', env: ['PRAXIS_TICK_MS'] },
  executorHost: { flag: '--executor-host', env: ['PRAXIS_EXECUTOR_HOST'] },
  consoleDir: { flag: '--console', env: ['PRAXIS_CONSOLE_DIR'] },
  allowedHosts: { flag: '--allowed-hosts', env: ['PRAXIS_ALLOWED_HOSTS'] },
  secretFile: { flag: '--secret-file', env: ['PRAXIS_SECRET_FILE'] },
} as const satisfies Record<string, { flag: string; env: readonly string[] }>;
type SettingKey = keyof typeof SETTINGS;
export const CONFIG_FILE_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The console the repository builds (`npm run build:console`), if it has been built. */
export function builtConsoleDir(): string | null {
  return consoleAt(fileURLToPath(new URL('../../web/dist', import.meta.url)));
}

/**
 * `path` made absolute when it is a directory holding a built console (its index.html), else
 * null. Everything under the console directory is served without a token, so any other
 * directory is refused: `--console .praxis` served the store and the daemon secret to anyone.
 */
export function consoleAt(path: string): string | null {
  const dir = resolve(path);
  try {
    return statSync(join(dir, 'index.html')).isFile() ? dir : null;
  } catch {
    return null;
  }
}

/** Reads `--config` (I/O), then resolves; throws an InputError listing every problem. */
export function loadDaemonConfig(flags: DaemonFlags, env: Record<string, string | undefined> = process.env, defaultLogLevel?: LogLevel): DaemonConfig {
  const file = flags.config !== undefined ? readConfigFile(flags.config) : null;
  return resolveDaemonConfig(flags, env, file, { defaultConsoleDir: builtConsoleDir(), defaultExecutorHost: hostname(), consoleAt, ...(defaultLogLevel ? { defaultLogLevel } : {}) });
}

export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError([{ code: 'unreadable_config', path: '--config', message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }]);
  }
  let parsed: unknown;
  try {
    // The YAML parser is loaded only for a YAML file: a daemon without one never needs it.
    parsed = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : (createRequire(import.meta.url)('yaml') as typeof Yaml).parse(text);
  } catch (error) {
    throw new InputError([{ code: 'malformed_config', path: path, message: `not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}` }]);
  }
  if (parsed === null || parsed === undefined) return { path, values: {} };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InputError([{ code: 'malformed_config', path, message: 'the configuration must be a mapping of setting names to values' }]);
  }
  return { path, values: parsed as Record<string, unknown> };
}

export interface ResolveEnvironment {
  defaultConsoleDir: string | null;
  defaultExecutorHost: string;
  /** The absolute directory of a built console at `path`, or null (consoleAt). */
  consoleAt(path: string): string | null;
  /** The level when no flag, variable or file names one; `info` if absent. */
  defaultLogLevel?: LogLevel;
}

/** Pure: merges flags, environment and file, and checks every value. */
export function resolveDaemonConfig(flags: DaemonFlags, env: Record<string, string | undefined>, file: ConfigFile | null, around: ResolveEnvironment): DaemonConfig {
  const problems: Problem[] = [];
  const fileValues = file?.values ?? {};
  const filePath = (key: string) => `${file?.path ?? 'config'}: ${key}`;
  for (const key of Object.keys(fileValues)) {
    if (!([...CONFIG_FILE_KEYS, ...NOTIFICATION_FILE_KEYS] as string[]).includes(key)) {
      problems.push({ code: 'unknown_setting', path: filePath(key), message: `unknown setting "${key}"; known: ${[...CONFIG_FILE_KEYS, ...NOTIFICATION_FILE_KEYS].join(', ')}` });
    }
  }

  /** The strongest source that gives the setting a value, as text, with its name for messages. */
  const pick = (key: SettingKey, flag: string | undefined): { value: unknown; from: string } | null => {
    if (flag !== undefined) return { value: flag, from: SETTINGS[key].flag };
    const envName = SETTINGS[key].env.find((name) => env[name] !== undefined && env[name] !== '');
    if (envName !== undefined) return { value: env[envName], from: envName };
    if (key in fileValues) return { value: fileValues[key], from: filePath(key) };
    return null;
  };

  const hostValue = pick('host', flags.host);
  let host = DEFAULT_HOST;
  if (hostValue) {
    if (typeof hostValue.value === 'string' && isHostAddress(hostValue.value)) host = hostValue.value;
    else problems.push({ code: 'invalid_host', path: hostValue.from, message: `${show(hostValue.value)} is not an IP address or host name to listen on` });
  }

  const portValue = pick('port', flags.port);
  let port = DEFAULT_PORT;
  if (portValue) {
    const n = wholeNumber(portValue.value);
    if (n !== null && n >= 0 && n <= 65535) port = n;
    else problems.push({ code: 'invalid_port', path: portValue.from, message: `${show(portValue.value)} is not a port: give a whole number from 0 (any free port) to 65535` });
  }

  const roleValue = pick('anonymousRole', flags.anonymous);
  let anonymousRole: AccessRole | null = null;
  if (roleValue && roleValue.value !== 'none' && roleValue.value !== null) {
    if (typeof roleValue.value === 'string' && AccessRoles.has(roleValue.value)) anonymousRole = roleValue.value as AccessRole;
    else problems.push({ code: 'invalid_role', path: roleValue.from, message: `${show(roleValue.value)} is not a role: use one of ${[...AccessRoles.values, 'none'].join(', ')}` });
  }
  if (anonymousRole === 'agent') {
    problems.push({ code: 'invalid_role', path: roleValue!.from, message: 'anonymous requests cannot act as an agent, which speaks for one mind; use viewer, operator or admin' });
    anonymousRole = null;
  }

  const levelValue = pick('logLevel', flags.logLevel);
  let logLevel: LogLevel = around.defaultLogLevel ?? 'info';
  if (levelValue) {
    if (typeof levelValue.value === 'string' && (LOG_LEVELS as readonly string[]).includes(levelValue.value)) logLevel = levelValue.value as LogLevel;
    else problems.push({ code: 'invalid_log_level', path: levelValue.from, message: `${show(levelValue.value)} is not a log level: use one of ${LOG_LEVELS.join(', ')}` });
  }

  const tickValue = pick('tickMs', flags.tickMs);
  let tickMs = DEFAULT_TICK_MS;
  if (tickValue) {
    const n = wholeNumber(tickValue.value);
    if (n !== null && n >= MIN_TICK_MS && n <= MAX_TICK_MS) tickMs = n;
    else problems.push({ code: 'invalid_tick_ms', path: tickValue.from, message: `${show(tickValue.value)} is not a tick interval: give milliseconds from ${MIN_TICK_MS} to ${MAX_TICK_MS}` });
  }

  const executorValue = pick('executorHost', flags.executorHost);
  let executorHost = around.defaultExecutorHost;
  if (executorValue) {
    if (typeof executorValue.value === 'string' && executorValue.value.trim() !== '' && executorValue.value.length <= 253) executorHost = executorValue.value.trim();
    else problems.push({ code: 'invalid_executor_host', path: executorValue.from, message: `${show(executorValue.value)} is not a host name minds can be bound to` });
  }

  const consoleValue = pick('consoleDir', flags.console);
  let consoleDir = around.defaultConsoleDir;
  if (consoleValue) {
    if (consoleValue.value === 'none' || consoleValue.value === null) consoleDir = null;
    else if (typeof consoleValue.value === 'string' && around.consoleAt(consoleValue.value) !== null) consoleDir = around.consoleAt(consoleValue.value);
    else problems.push({ code: 'invalid_console_dir', path: consoleValue.from, message: `${show(consoleValue.value)} is not a directory holding the built console (or "none")` });
  }

  const allowedValue = pick('allowedHosts', flags.allowedHosts);
  let allowedHosts: string[] = [];
  if (allowedValue) {
    // A comma-separated list (flag, variable) or a list of names (file).
    const raw = allowedValue.value;
    const entries = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : null;
    const names = entries?.map((e) => (typeof e === 'string' ? e.trim().toLowerCase() : e)).filter((e) => e !== '');
    const bad = names === undefined ? [raw] : names.filter((e) => typeof e !== 'string' || !isAllowedHost(e));
    if (bad.length === 0) allowedHosts = names as string[];
    else {
      problems.push({
        code: 'invalid_allowed_hosts',
        path: allowedValue.from,
        message: `${bad.map(show).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not a host name or address; give names separated by commas (a file may give a list)`,
      });
    }
  }

  const secretValue = pick('secretFile', flags.secretFile);
  let secretFile: string | null = null;
  if (secretValue) {
    if (typeof secretValue.value === 'string' && secretValue.value.trim() !== '' && !secretValue.value.includes('\0')) secretFile = secretValue.value;
    else problems.push({ code: 'invalid_secret_file', path: secretValue.from, message: `${show(secretValue.value)} is not a file path for the daemon secret` });
  }

  let store: StoreConfig | null = null;
  try {
    store = resolveStore(flags, env, fileValues, filePath('database'));
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problems.push(...error.problems);
  }

  const notifications = resolveNotifications(env, fileValues, filePath);
  problems.push(...notifications.problems);
  problems.push(...tracingEndpointProblems(env));
  problems.push(...modelRoleProblems(env));

  if (problems.length > 0 || store === null) throw new InputError(problems);
  return { host, port, store, notifications: notifications.settings, anonymousRole, logLevel, tickMs, executorHost, consoleDir, allowedHosts, secretFile };
}

/** `--db`, then the store's own variables (resolveStoreConfig), then the file's `database`. */
function resolveStore(flags: DaemonFlags, env: Record<string, string | undefined>, fileValues: Record<string, unknown>, fromFile: string): StoreConfig {
  const fromEnv = SETTINGS.database.env.some((name) => env[name]);
  if (flags.db !== undefined || fromEnv || !('database' in fileValues)) return resolveStoreConfig({ db: flags.db }, env);
  const value = fileValues.database;
  if (typeof value !== 'string') {
    throw new InputError([{ code: 'invalid_store_config', path: fromFile, message: `${show(value)} is not an SQLite file path or a postgres:// URL` }]);
  }
  try {
    return resolveStoreConfig({ db: value }, {});
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new InputError(error.problems.map((p) => ({ ...p, path: fromFile })));
  }
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function isHostAddress(value: string): boolean {
  return isIP(value) !== 0 || HOST_NAME.test(value);
}

/** A host name or an IP address (IPv6 optionally in brackets), with no port: ports are not told apart for these. */
function isAllowedHost(value: string): boolean {
  const unbracketed = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  return isHostAddress(unbracketed.replace(/\.$/, ''));
}

/** A whole number given as a number (file) or as decimal digits (flag, variable). */
function wholeNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^\d{1,9}$/.test(value.trim())) return Number(value.trim());
  return null;
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
}
