// `praxis serve`: the daemon in the foreground until SIGTERM or SIGINT. Configuration problems
// are all reported before anything starts (exit 2); a store that cannot be reached is a failure
// (exit 3); a clean stop after a signal exits 0.

import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import type { DaemonFlags } from '../../daemon/config.ts';
import type { LogFormat } from '../../daemon/logger.ts';
import type { Daemon } from '../../daemon/serve.ts';
import { EXIT } from '../exit-codes.ts';
import { action, withDbOption } from '../context.ts';

export function daemonOptions(command: Command): Command {
  return withDbOption(command)
    .option('--host <address>', 'address to listen on (default 127.0.0.1; env PRAXIS_HOST)')
    .option('--port <port>', 'port to listen on, 0 for any free one (default 7300; env PRAXIS_PORT)')
    .option('--config <file>', 'a JSON or YAML file of settings (flags and environment override it)')
    .option('--anonymous <role>', 'let token-less requests act with this role (viewer, operator, admin; env PRAXIS_ANONYMOUS_ROLE); for local use only')
    .option('--log-level <level>', 'fatal, error, warn, info (default), debug, trace or silent (env PRAXIS_LOG_LEVEL)')
    .option('--tick-ms <ms>', 'longest executor sleep between passes (default 15000; env PRAXIS_TICK_MS)')
    .option('--executor-host <name>', 'host name for mind affinity (default this machine; env PRAXIS_EXECUTOR_HOST)')
    .option('--console <dir>', 'the built web console to serve, or "none" (default web/dist when built; env PRAXIS_CONSOLE_DIR)')
    .option('--allowed-hosts <names>', 'host names served besides localhost and its addresses, comma-separated (env PRAXIS_ALLOWED_HOSTS)')
    .option(
      '--secret-file <file>',
      'the daemon secret approvals are signed with, made on first start (default beside the SQLite file, ./.praxis/daemon.secret for PostgreSQL; env PRAXIS_SECRET_FILE)',
    );
}

/**
 * The daemon (HTTP server, console, MCP) is loaded only by the commands that run it, so the
 * store commands start fast and keep working whatever the server's modules need.
 */
export function loadDaemon(): Promise<typeof import('../../daemon/serve.ts')> {
  return import('../../daemon/serve.ts');
}

/** Resolves once the daemon has stopped after SIGTERM or SIGINT; a second signal forces the exit. */
export function stopOnSignal(daemon: Daemon, beforeStop?: () => Promise<void> | void): Promise<void> {
  return new Promise((resolve, reject) => {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        daemon.logger.error({ event: 'forced_exit', signal }, 'second signal: exiting without waiting');
        process.exit(EXIT.failure);
      }
      signalled = true;
      void (async () => {
        await beforeStop?.();
        await daemon.stop(signal);
      })().then(resolve, reject);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

const LOG_FORMATS = ['json', 'text'] as const satisfies readonly LogFormat[];

/**
 * `json` unless asked otherwise, or `text` when stdout is a terminal: a person reads a terminal,
 * anything else (a pipe, a file, a service manager's journal) is a collector.
 */
export function logFormatOf(flag: string | undefined, env: string | undefined, terminal: boolean): LogFormat {
  const [value, source] = flag !== undefined ? [flag, '--log-format'] : env ? [env, 'PRAXIS_LOG_FORMAT'] : [terminal ? 'text' : 'json', ''];
  if ((LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormat;
  throw new InputError([{ code: 'invalid_log_format', path: source, message: `"${value}" is not a log format: use ${LOG_FORMATS.join(' or ')}` }]);
}

export function serveCommand(program: Command): void {
  daemonOptions(program.command('serve'))
    .description('run the daemon: executor loop, HTTP API and web console')
    .option('--log-format <format>', 'json (one object per line) or text; default text on a terminal, json otherwise (env PRAXIS_LOG_FORMAT)')
    .action(
      action(async (options: DaemonFlags & { logFormat?: string }) => {
        const { logFormat: flag, ...flags } = options;
        const format = logFormatOf(flag, process.env.PRAXIS_LOG_FORMAT, process.stdout.isTTY === true);
        const [{ builtConsoleDir, loadDaemonConfig }, { createLogger }] = await Promise.all([import('../../daemon/config.ts'), import('../../daemon/logger.ts')]);
        // A person at a terminal reads the banner first, then warnings and errors only, unless a
        // level was asked for (a flag, the variable, or the configuration file: the default sits
        // below all three); a collector gets every line from `info` up.
        const config = loadDaemonConfig(flags, process.env, format === 'text' ? 'warn' : undefined);
        const logger = createLogger(config.logLevel, undefined, format);
        // A stop asked while the daemon starts (a service manager stopping it during a long
        // migration) waits for the start to finish and then stops cleanly: the default handler
        // ended the process at once, in the middle of a migration SQLite runs without one
        // transaction around it.
        let stopAsked: NodeJS.Signals | null = null;
        const whileStarting = (signal: NodeJS.Signals) => {
          if (stopAsked) process.exit(EXIT.failure);
          stopAsked = signal;
          logger.warn({ event: 'stop_requested_during_start', signal }, 'stopping once the start (store migrations included) has finished; a second signal exits at once');
        };
        process.on('SIGTERM', whileStarting).on('SIGINT', whileStarting);
        let daemon: Daemon;
        try {
          daemon = await (await loadDaemon()).startDaemon({ config, logger });
        } finally {
          process.off('SIGTERM', whileStarting).off('SIGINT', whileStarting);
        }
        if (stopAsked) {
          await daemon.stop(stopAsked);
          return EXIT.ok;
        }
        // Taken over at once (no await since the start's handlers went), before the banner's imports.
        const stopped = stopOnSignal(daemon);
        if (format === 'text') {
          const [{ daemonBanner }, { PRAXIS_VERSION }] = await Promise.all([import('../../daemon/banner.ts'), import('../../daemon/version.ts')]);
          // The token command must reach this same store from wherever its shell stands.
          const dbFlag = config.store.kind === 'sqlite' ? resolve(config.store.path) : flags.db !== undefined ? '<the same postgres:// URL>' : null;
          process.stdout.write(
            daemonBanner({
              version: PRAXIS_VERSION,
              url: daemon.url,
              store: daemon.storeDescription,
              created: daemon.storeCreated,
              dbFlag,
              // Not served: turned off, or nothing built to serve (the default when web/dist is missing).
              console: config.consoleDir !== null ? 'served' : builtConsoleDir() === null ? 'not_built' : 'disabled',
              anonymousRole: config.anonymousRole,
              logNote: config.logLevel === 'warn' ? 'warnings and errors below (--log-level info for more, --log-format json for collectors)' : `from level ${config.logLevel} below`,
            }),
          );
        }
        await stopped;
        return EXIT.ok;
      }),
    );
}
