// MCP over streamable HTTP at /mcp, authenticated with the API's bearer tokens. Stateless: each
// POST gets a fresh server bound to the caller the token names, so no session outlives a
// request and no caller's identity can leak into another's. Without sessions there is no
// server-initiated stream to open (GET) or session to end (DELETE): both answer 405.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authenticate, bearerToken } from '../access/tokens.ts';
import type { Principal } from '../access/permissions.ts';
import type { Services } from '../operations/services.ts';
import { errorBody } from '../server/errors.ts';
import { createMcpServer } from './server.ts';

export const MCP_PATH = '/mcp';

export function registerMcpRoutes(app: FastifyInstance, deps: Services): void {
  app.post(MCP_PATH, async (request, reply) => {
    const principal = await callerOf(deps, request);
    if (!principal) return unauthorised(reply);
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

  const notAllowed = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await callerOf(deps, request))) return unauthorised(reply);
    return reply
      .code(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'this MCP endpoint is stateless: only POST is served' }, id: null });
  };
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
}

async function callerOf(deps: Services, request: FastifyRequest): Promise<Principal | null> {
  const token = bearerToken(request.headers.authorization);
  return token ? authenticate(deps.store, token) : null;
}

function unauthorised(reply: FastifyReply) {
  return reply
    .code(401)
    .header('www-authenticate', 'Bearer')
    .send(errorBody('unauthenticated', 'a valid bearer token is required: Authorization: Bearer <token>'));
}
