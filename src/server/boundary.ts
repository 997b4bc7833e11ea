// What every route under /api/v1 shares at the boundary, set once for the whole prefix so that no
// route can forget it:
// - A query string is checked like a body: a route without query parameters of its own refuses
//   any (`?bogus=1` is a 400 at `query.bogus`), rather than ignoring what it was sent.
// - A request that changes state must say `Content-Type: application/json`. A web page on another
//   origin can send a "simple" POST (no body, or a form or text body) without asking first; it
//   cannot send this content type without a CORS preflight, which this server never approves. So
//   a page the operator happens to visit cannot approve, grant or cancel anything through a
//   daemon that trusts the operator's machine (anonymous mode) or the browser's credentials.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpRefusal } from './errors.ts';
import { strictObject } from './schemas.ts';

const NO_QUERY = strictObject({});
const CHANGES_STATE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True when the request's media type is JSON (parameters such as charset are allowed). */
function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** Call on the /api/v1 scope before its routes are declared. */
export function guardApiBoundary(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    if (route.schema?.querystring === undefined) route.schema = { ...route.schema, querystring: NO_QUERY };
  });

  // Runs after authentication (a hook of the parent), so an unknown caller still hears 401 first.
  scope.addHook('onRequest', async (request) => {
    if (!CHANGES_STATE.has(request.method) || isJson(request)) return;
    const message = 'a request that changes anything must be sent with Content-Type: application/json (send {} when there are no fields)';
    throw new HttpRefusal(415, 'unsupported_media_type', message, [{ code: 'unsupported_media_type', path: 'headers.content-type', message }]);
  });

  // With the content type required, a POST whose fields are all optional may still come without
  // a body: an empty JSON body means "no fields" (Fastify's own parser refuses it).
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body as string, done);
  });
}
