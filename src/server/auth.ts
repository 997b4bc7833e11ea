// Who is asking, and may they. Every /api request is authenticated before its input is even
// parsed, so an unknown caller learns nothing from validation errors; each route names the one
// permission it needs (in its config) and the role table in src/access decides.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { may, type Permission, type Principal } from '../access/permissions.ts';
import { authenticate, bearerToken } from '../access/tokens.ts';
import type { AccessRole } from '../core/vocabulary.ts';
import type { Services } from '../operations/index.ts';
import { HttpRefusal } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a route needs; routes without one are public (health, metrics, docs). */
    permission?: Permission;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const ANONYMOUS_OPERATOR = 'anonymous';

/** The principal behind a request: its token's, the anonymous one, or a 401. */
export async function principalOf(store: Services['store'], anonymousRole: AccessRole | null, request: FastifyRequest): Promise<Principal> {
  const bearer = bearerToken(request.headers.authorization);
  if (bearer === undefined) {
    if (anonymousRole) return { tokenId: null, operator: ANONYMOUS_OPERATOR, role: anonymousRole, mindId: null };
    throw new HttpRefusal('unauthenticated', 'send Authorization: Bearer <token>');
  }
  // A token that is presented is checked even in anonymous mode: a bad one is a mistake to report.
  const principal = bearer ? await authenticate(store, bearer) : null;
  if (!principal) throw new HttpRefusal('unauthenticated', 'the token is unknown, revoked or expired');
  return principal;
}

export function registerAuth(app: FastifyInstance, store: Services['store'], anonymousRole: AccessRole | null): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const permission = request.routeOptions.config.permission;
    const isApi = request.url === '/api' || request.url.startsWith('/api/');
    if (!permission && !isApi) return;
    request.principal = await principalOf(store, anonymousRole, request);
    if (permission && !may(request.principal.role, permission)) {
      throw new HttpRefusal('forbidden', `a ${request.principal.role} token may not ${permission}`);
    }
  });
}

/** The authenticated principal of a route that has a permission (the hook guarantees it). */
export function principal(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('a route with a permission ran without a principal');
  return request.principal;
}
