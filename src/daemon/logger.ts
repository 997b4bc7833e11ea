// The daemon's structured log: pino, one JSON object per line on stdout, ISO timestamps. The
// executor logs through a thin adapter so the execution layer never imports pino.

import { pino, type Logger } from 'pino';
import type { ExecutorLog } from '../execution/context.ts';
import type { TickReport } from '../execution/tick.ts';
import type { LogLevel } from './config.ts';

export type DaemonLogger = Logger;

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): DaemonLogger {
  const options: pino.LoggerOptions = { level, base: { pid: process.pid, service: 'praxis' }, timestamp: pino.stdTimeFunctions.isoTime };
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
