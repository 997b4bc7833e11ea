// The daemon's structured log: pino, one JSON object per line on stdout, ISO timestamps. The
// executor logs through a thin adapter so the execution layer never imports pino.
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

const QUERY_CREDENTIAL =
  /([?&;][A-Za-z0-9_.-]*?(?:token|key|secret|password|passwd|pwd|auth|authorization|signature|sig|code|session|credentials?)=)[^&#\s"\\]*/gi;
// A private key inside a JSON string ends at its END line or, cut short, at the string's end.
const PRIVATE_KEY_IN_JSON = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----END)[^"])*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[^"]*)/g;

/** One serialised log line with credentials in query strings and credential shapes hidden. */
export function redactLogLine(line: string): string {
  return maskCredentialShapes(line.replace(QUERY_CREDENTIAL, '$1[secret]').replace(PRIVATE_KEY_IN_JSON, '[private-key]'));
}

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): DaemonLogger {
  const options: pino.LoggerOptions = {
    level,
    base: { pid: process.pid, service: 'praxis' },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: redactLogLine },
  };
  return destination ? pino(options, destination) : pino(options);
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
  const moved = report.startedPlans + report.settled + report.movedSteps + report.resumedReplans + report.replannedForCommitments + report.expiredApprovals;
  const line = { component: 'executor', event: 'tick', seconds: Number(seconds.toFixed(4)), ...report };
  if (moved > 0 || report.errors > 0) logger.info(line, 'tick moved work');
  else logger.trace(line, 'idle tick');
}
