// The daemon's HTTP server: the API under /api/v1 (see docs/api.md), its OpenAPI description at
// /docs, health and readiness probes, Prometheus metrics and the operator console. It holds no
// state of its own beyond open event streams: every answer is read from the store.

import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { AccessRole } from '../core/vocabulary.ts';
import type { Services } from '../operations/services.ts';
import { registerAuth } from './auth.ts';
import { guardApiBoundary } from './boundary.ts';
import { guardHosts } from './hosts.ts';
import { registerConsole } from './console.ts';
import { handleError } from './errors.ts';
import type { Api } from './routes/context.ts';
import { decisionRoutes } from './routes/decisions.ts';
import { mindRoutes } from './routes/minds.ts';
import { mindCopyRoutes } from './routes/mind-copies.ts';
import { mindPlanRoutes } from './routes/mind-plans.ts';
import { planPauseRoutes } from './routes/plan-pauses.ts';
import { wantRoutes } from './routes/wants.ts';
import { workRoutes } from './routes/work.ts';
import { webhookDeliveryRoutes } from './routes/webhook-deliveries.ts';
import { StreamRegistry, streamRoute } from './stream.ts';
import { validatorCompiler } from './validation.ts';

export interface ServerOptions extends Services {
  /** A pino logger from the daemon, or false in tests. */
  logger: FastifyBaseLogger | false;
  /**
   * null: every /api request needs a bearer token. Otherwise requests without one act as
   * operator "anonymous" with this role: an explicit opt-in for local use.
   */
  anonymousRole: AccessRole | null;
  /** The built console (web/dist), or null to serve none. */
  consoleDir: string | null;
  /** Served at GET /metrics in Prometheus text format, without a token. */
  metrics: MetricsRegistry | null;
  /** GET /readyz answers 200 while this is true, 503 otherwise. */
  isReady: () => boolean;
  /**
   * Host names served besides loopback addresses, `localhost` and the address a connection
   * reached (src/server/hosts.ts); any other Host is refused. From `allowedHosts` in the config.
   */
  allowedHosts?: readonly string[];
  /**
   * Other surfaces served beside the API, with the same services and before the console's
   * catch-all (the daemon mounts MCP over HTTP here: docs/mcp.md). The API never imports them.
   */
  mounts?: readonly ServerMount[];
}

export type ServerMount = (app: FastifyInstance, services: Services) => void;

/** Requests with bodies larger than this are refused: plan drafts are the largest inputs. */
const BODY_LIMIT = 1024 * 1024;

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  if (options.anonymousRole === 'agent') {
    // An agent is bound to one mind; an anonymous caller has none to be bound to.
    throw new TypeError('the anonymous role cannot be agent: agent access is always bound to a mind by its token');
  }
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    // Open event streams must not hold the daemon up when it shuts down; idle keep-alive
    // connections are closed too.
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(handleError);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Praxis API', version: '1', description: 'Plans, approvals, grants and events of a Praxis daemon. See docs/api.md.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'a token from `praxis token create`' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });

  // Before anything else, authentication included: a rebound name or a foreign page gets nothing.
  guardHosts(app, { allowedHosts: options.allowedHosts ?? [] });
  registerAuth(app, options.store, options.anonymousRole);
  // A POST without a body means "no fields"; the schema then decides whether that is enough. On
  // a route that takes a plan it means no plan at all (null, as an empty YAML body reads): "no
  // fields" would be read as a plan with every field missing, kept as a draft with its intention.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) request.body = request.routeOptions.config.acceptsYaml === true ? null : {};
  });

  const streams = new StreamRegistry();
  app.addHook('preClose', async () => {
    streams.closeAll();
  });

  const publicRoute = { security: [] as { bearer: string[] }[], tags: ['probes'] };
  app.get('/healthz', { schema: { ...publicRoute, summary: 'the process serves HTTP' } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { ...publicRoute, summary: 'the daemon is ready for work' } }, async (_request, reply) =>
    options.isReady() ? { status: 'ready' } : reply.code(503).send({ status: 'starting' }),
  );
  const metrics = options.metrics;
  if (metrics) {
    app.get('/metrics', { schema: { ...publicRoute, summary: 'Prometheus metrics' } }, async (_request, reply) => reply.type(metrics.contentType).send(await metrics.metrics()));
  }

  const ctx: Services = { store: options.store, registry: options.registry, capabilities: options.capabilities, planning: options.planning };
  await app.register(
    async (scope) => {
      guardApiBoundary(scope);
      const api = scope as unknown as Api;
      mindRoutes(api, ctx);
      mindCopyRoutes(api, ctx);
      mindPlanRoutes(api, ctx);
      planPauseRoutes(api, ctx);
      wantRoutes(api, ctx);
      workRoutes(api, ctx);
      decisionRoutes(api, ctx);
      webhookDeliveryRoutes(api, ctx);
      streamRoute(api, ctx, streams, app.log);
    },
    { prefix: '/api/v1' },
  );

  for (const mount of options.mounts ?? []) mount(app, ctx);
  await registerConsole(app, options.consoleDir);
  await app.ready();
  return app;
}
