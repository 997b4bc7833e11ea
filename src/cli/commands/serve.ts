// `praxis serve`: the daemon in the foreground until SIGTERM or SIGINT. Configuration problems
// are all reported before anything starts (exit 2); a store that cannot be reached is a failure
// (exit 3); a clean stop after a signal exits 0.

import type { Command } from 'commander';
import type { DaemonFlags } from '../../daemon/config.ts';
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
    .option('--tick-ms <ms>', 'longest executor sleep between passes (default 2000; env PRAXIS_TICK_MS)')
    .option('--executor-host <name>', 'host name for mind affinity (default this machine; env PRAXIS_EXECUTOR_HOST)')
    .option('--console <dir>', 'the built web console to serve, or "none" (default web/dist when built; env PRAXIS_CONSOLE_DIR)')
    .option('--allowed-hosts <names>', 'host names served besides localhost and its addresses, comma-separated (env PRAXIS_ALLOWED_HOSTS)');
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

export function serveCommand(program: Command): void {
  daemonOptions(program.command('serve'))
    .description('run the daemon: executor loop, HTTP API and web console')
    .action(
      action(async (options: DaemonFlags) => {
        const { loadDaemonConfig } = await import('../../daemon/config.ts');
        const config = loadDaemonConfig(options);
        const daemon = await (await loadDaemon()).startDaemon({ config });
        await stopOnSignal(daemon);
        return EXIT.ok;
      }),
    );
}
