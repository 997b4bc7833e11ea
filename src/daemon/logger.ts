// The daemon's structured log: pino, one JSON object per line on stdout, ISO timestamps; or, for
// a person at a terminal, the same records as short text lines. The executor logs through a thin
// adapter so the execution layer never imports pino.
//
// Every line is redacted as it is written, whatever wrote it (the request log, an error, the
// executor): a query parameter that carries a credential (`?token=`, `&api_key=`,
// `access_token`, …) keeps its name and loses its value, and anything shaped like a credential
// (a Praxis token, a model provider key, a JWT, a private key, …) is masked.

import { pino, type Logger } from 'pino';
import { maskCredentialShapes } from '../capabilities/host/masking.ts';
import type { ExecutorLog } from '../execution/context.ts';
import type { TickReport } from '../execution/tick.ts';
import type { LogLevel } from './config.ts';

export type DaemonLogger = Logger;

const QUERY_CREDENTIAL = /([?&;][A-Za-z0-9_.-]*?(?:token|key|secret|password|passwd|pwd|auth|authorization|signature|sig|code|session|credentials?)=)[^&#\s"\\]*/gi;
// A private key inside a JSON string ends at its END line or, cut short, at the string's end.
const PRIVATE_KEY_IN_JSON = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----END)[^"])*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[^"]*)/g;

/** One serialised log line with credentials in query strings and credential shapes hidden. */
export function redactLogLine(line: string): string {
  return maskCredentialShapes(line.replace(QUERY_CREDENTIAL, '$1[secret]').replace(PRIVATE_KEY_IN_JSON, '[private-key]'));
}

/** `json`: one JSON object per line (for collectors, and whenever stdout is not a terminal); `text`: lines for a person at a terminal. */
export type LogFormat = 'json' | 'text';

export function createLogger(level: LogLevel, destination?: pino.DestinationStream, format: LogFormat = 'json'): DaemonLogger {
  const options: pino.LoggerOptions = {
    level,
    base: { pid: process.pid, service: 'praxis' },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: redactLogLine },
  };
  if (format === 'text') {
    const out = destination ?? process.stdout;
    return pino(options, { write: (line: string) => void out.write(textLogLine(line)) });
  }
  return destination ? pino(options, destination) : pino(options);
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const QUIET_KEYS = new Set(['level', 'time', 'pid', 'hostname', 'service', 'msg']);

/**
 * One (already redacted) JSON log line as a person reads it: local time, level, message, then
 * the other fields as key=value. `13:02:11 warn  wake-up listener lost its connection component=wake-bus`
 */
export function textLogLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof record.time === 'string' ? new Date(record.time).toLocaleTimeString('en-GB', { hour12: false }) : '';
  const level = (LEVEL_NAMES[record.level as number] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key, value]) => !QUIET_KEYS.has(key) && value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? (/\s/.test(value) ? JSON.stringify(value) : value) : JSON.stringify(value)}`);
  return `${[time, level, String(record.msg ?? ''), ...fields].filter(Boolean).join(' ')}\n`;
}

export function executorLog(logger: DaemonLogger): ExecutorLog {
  const child = logger.child({ component: 'executor' });
  return {
    debug: (message, data) => child.debug(data ?? {}, message),
    warn: (message, data) => child.warn(data ?? {}, message),
    error: (message, data) => child.error(data ?? {}, message),
  };
}

/** A pass that moved something is worth a line; an idle one only at trace level. */
export function logTick(logger: DaemonLogger, report: TickReport, seconds: number): void {
  const moved =
    report.startedPlans + report.settled + report.movedSteps + report.resumedReplans + report.replannedForCommitments + report.expiredApprovals + report.expiredGrants + report.recoveredApprovals;
  const line = { component: 'executor', event: 'tick', seconds: Number(seconds.toFixed(4)), ...report };
  if (moved > 0 || report.errors > 0) logger.info(line, 'tick moved work');
  else logger.trace(line, 'idle tick');
}
