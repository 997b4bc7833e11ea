// One daemon: the store, the capability service, the executor loop and the HTTP server, started
// in that order and stopped in the reverse one. It is ready (`/readyz`) once the schema is
// migrated, the server listens and the executor loop runs; it stops being ready the moment it
// starts shutting down, so a load balancer stops sending work before anything closes.

import type { FastifyInstance } from 'fastify';
import type { CapabilityImplementations } from '../capabilities/implementation.ts';
import { builtinRegistry } from '../capabilities/registry.ts';
import { CapabilityService } from '../capabilities/service.ts';
import { existingDaemonKey, loadDaemonKey } from '../access/daemon-secret.ts';
import { WakeBus } from '../bus/wake-bus.ts';
import { startNotifications } from '../notify/start.ts';
import { startTracing } from '../telemetry/start.ts';
import { Executor } from '../execution/executor.ts';
import { planningFromEnv } from '../drafting/plan-intention.ts';
import { registerMcpRoutes } from '../mcp/http.ts';
import { buildServer } from '../server/app.ts';
import type { Store } from '../store/index.ts';
import type { DaemonConfig } from './config.ts';
import { deferredBuiltins } from './implementations.ts';
import { createLogger, executorLog, logTick, type DaemonLogger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { closeServer } from './shutdown.ts';
import { describeStore, openAndMigrate } from './store-notice.ts';

export interface DaemonOptions {
  config: DaemonConfig;
  logger?: DaemonLogger;
  /** How capabilities act; defaults to the real host, loaded at the first call (the demo passes the simulated one). */
  implementations?: CapabilityImplementations;
  /** Runs after migration, before the executor starts (the demo seeds its story here). */
  prepare?(store: Store, capabilities: CapabilityService): Promise<void>;
  /** How long open connections (event streams) may linger once the server closes. */
  closeGraceMs?: number;
}

export interface Daemon {
  readonly store: Store;
  /** The store did not exist before this start (a new SQLite file, an unmigrated database). */
  readonly storeCreated: boolean;
  /** Which store, in words (describeStore). */
  readonly storeDescription: string;
  readonly capabilities: CapabilityService;
  readonly executor: Executor;
  readonly logger: DaemonLogger;
  /** Base address, e.g. http://127.0.0.1:7300 */
  readonly url: string;
  readonly port: number;
  ready(): boolean;
  /** Stops accepting, closes the server, lets the executor finish its pass, closes the store. Idempotent. */
  stop(reason: string): Promise<void>;
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  // An existing secret first: a daemon that cannot read it must not start, before it touches the
  // store. A missing one is made once the store has opened, not for a database never reached.
  const existing = existingDaemonKey(config.store, config.secretFile);
  // A daemon writes for as long as it runs: its SQLite checkpoints run on a thread of their own.
  const { store, created, applied, seconds } = await openAndMigrate(config.store, { backgroundCheckpoints: true });
  const storeDescription = describeStore(config.store);
  let server: FastifyInstance | null = null;
  let bus: WakeBus | null = null;
  try {
    // The migrations this start applied (none on most starts), so an upgrade that paused the start says why.
    logger.info(
      { event: 'store_ready', store: config.store.kind, location: storeDescription, created, migrations: applied, migration_seconds: seconds },
      created ? 'store created' : applied.length > 0 ? `store migrated: ${applied.join(', ')} in ${seconds} s` : 'store migrated',
    );

    const secret = existing ?? loadDaemonKey(config.store, config.secretFile);
    const registry = builtinRegistry();
    const capabilities = new CapabilityService(store, registry, options.implementations ?? deferredBuiltins(registry), { approvalKey: secret.key });
    logger.info({ event: 'daemon_secret', file: secret.path ?? '(in memory)', key_id: secret.key.id, created: secret.created }, secret.created ? 'daemon secret created' : 'daemon secret read');
    const foreign = await capabilities.unverifiableApprovals();
    if (foreign.otherKey + foreign.unkeyed > 0) {
      logger.warn(
        { event: 'daemon_secret_mismatch', key_id: secret.key.id, signed_with: foreign.keyIds, other_key: foreign.otherKey, unkeyed: foreign.unkeyed },
        `${foreign.otherKey} open approval request(s) were signed with another daemon secret (key ${foreign.keyIds.join(', ') || 'none'}) and ${foreign.unkeyed} carry an unkeyed digest; ` +
          `this daemon (key ${secret.key.id}) will refuse them. Every daemon of one database must read the same secret file (PRAXIS_SECRET_FILE, docs/daemon.md)`,
      );
    }
    const planning = planningFromEnv(registry);
    await options.prepare?.(store, capabilities);

    const metrics = createMetrics(store, (report, seconds) => logTick(logger, report, seconds));
    bus = new WakeBus(store, {
      ...(config.store.kind === 'postgres' ? { postgres: config.store } : {}),
      onError: (error) => logger.warn({ component: 'wake-bus', error: error.message }, 'wake-up listener lost its connection; reconnecting'),
    });
    const executor = new Executor({
      store,
      capabilities,
      registry,
      planning,
      host: config.executorHost,
      bus,
      intervalMs: config.tickMs,
      // A pass waits on PostgreSQL's server for much of its time; a second one works meanwhile.
      // On SQLite every statement runs in this thread, so a second pass would only take turns.
      passes: config.store.kind === 'postgres' ? 2 : 1,
      log: executorLog(logger),
      observer: metrics.observer,
    });

    let ready = false;
    let stopping: Promise<void> | null = null;
    const http: FastifyInstance = await buildServer({
      store,
      registry,
      capabilities,
      planning,
      logger: logger.child({ component: 'http' }),
      anonymousRole: config.anonymousRole,
      consoleDir: config.consoleDir,
      metrics: metrics.registry,
      isReady: () => ready && executor.running,
      // The name it was told to listen on is one it serves, whatever it resolves to.
      allowedHosts: [config.host, ...(config.allowedHosts ?? [])],
      // MCP for agents: the same tokens, and no tool that decides anything (docs/mcp.md).
      mounts: [registerMcpRoutes],
    });
    server = http;
    await http.listen({ host: config.host, port: config.port });
    const port = listeningPort(http);
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    // Consumers of the event log: webhooks when configured, traces when OTEL_* says where to.
    const notifier = await startNotifications(store, capabilities, config, { name: executor.name, url, logger });
    const tracing = await startTracing(store, { name: executor.name, logger });
    executor.start();
    ready = true;
    logger.info(
      { event: 'listening', url, executor: executor.name, executor_host: config.executorHost, anonymous_role: config.anonymousRole, console: config.consoleDir !== null },
      'praxis daemon ready',
    );

    const wake = bus;
    return {
      store,
      storeCreated: created,
      storeDescription,
      capabilities,
      executor,
      logger,
      url,
      port,
      ready: () => ready && executor.running,
      stop(reason) {
        stopping ??= (async () => {
          ready = false;
          logger.info({ event: 'stopping', reason }, 'praxis daemon stopping');
          // The server and the executor wind down side by side; the store outlives both, since
          // an approval being handled by the server may still be acting through it.
          await Promise.all([closeServer(http, options.closeGraceMs ?? 2_000), executor.stop()]);
          await Promise.all([notifier?.stop(), tracing?.stop()]);
          await wake.close();
          await store.close();
          logger.info({ event: 'stopped' }, 'praxis daemon stopped');
        })();
        return stopping;
      },
    };
  } catch (error) {
    await server?.close().catch(() => {});
    await bus?.close().catch(() => {});
    await store.close().catch(() => {});
    throw error;
  }
}

function listeningPort(server: FastifyInstance): number {
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error(`the server is not listening on a TCP port (${String(address)})`);
  return address.port;
}
