// MCP over streamable HTTP at /mcp, authenticated with the API's bearer tokens. Stateless: each
// POST gets a fresh server bound to the caller the token names, so no session outlives a
// request and no caller's identity can leak into another's. Without sessions there is no
// server-initiated stream to open (GET) or session to end (DELETE): both answer 405.
// The MCP SDK and the tools are loaded by the first POST, so a daemon nobody speaks MCP to
// never spends the time or memory on them.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, bearerToken } from '../access/tokens.ts';
import type { Principal } from '../access/permissions.ts';
import type { Services } from '../operations/services.ts';
import { ERROR_CODES } from '../core/error-codes.ts';
import { errorBody } from '../core/errors.ts';

export const MCP_PATH = '/mcp';

const callers = new WeakMap<FastifyRequest, Principal>();

let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./server.ts')]> | null = null;
const loadMcp = () => (mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.ts')]));

export function registerMcpRoutes(app: FastifyInstance, deps: Services): void {
  // The token is checked when the request arrives, before its body is read, so a caller without
  // one hears 401 whatever it sent (an empty body, no content type, a DELETE).
  const authenticated = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = await callerOf(deps, request);
    if (!principal) return unauthorised(reply);
    callers.set(request, principal);
  };

  app.post(MCP_PATH, { onRequest: authenticated }, async (request, reply) => {
    const principal = callers.get(request)!;
    const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
    const server = createMcpServer({ ...deps, principal });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The transport writes the response itself; Fastify must not answer as well.
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'this MCP endpoint is stateless: only POST is served' }, id: null });
  app.get(MCP_PATH, { onRequest: authenticated }, notAllowed);
  app.delete(MCP_PATH, { onRequest: authenticated }, notAllowed);
}

async function callerOf(deps: Services, request: FastifyRequest): Promise<Principal | null> {
  const token = bearerToken(request.headers.authorization);
  return token ? authenticate(deps.store, token) : null;
}

function unauthorised(reply: FastifyReply) {
  return reply.code(ERROR_CODES.unauthenticated.status).header('www-authenticate', 'Bearer').send(errorBody('unauthenticated', 'a valid bearer token is required: Authorization: Bearer <token>'));
}
