// What every route under /api/v1 shares at the boundary, set once for the whole prefix so that no
// route can forget it:
// - A query string is checked like a body: a route without query parameters of its own refuses
//   any (`?bogus=1` is a 400 at `query.bogus`), rather than ignoring what it was sent.
// - A request that changes state must say `Content-Type: application/json`. A web page on another
//   origin can send a "simple" POST (no body, or a form or text body) without asking first; it
//   cannot send this content type without a CORS preflight, which this server never approves. So
//   a page the operator happens to visit cannot approve, grant or cancel anything through a
//   daemon that trusts the operator's machine (anonymous mode) or the browser's credentials.
// - Every string, array and nested value in the path, the query and the body meets the input
//   rule (src/core/input-limits.ts) before the schema is even consulted: a NUL, a control
//   character, a string or array over its limit or a value nested too deep is a 400 naming the
//   field, and nothing is stored.
// - A query number is written in decimal digits. The schema's coercion would read `0x10` as 16,
//   `1e1` as 10 and ` 5` as 5; here each is a 400 at `query.<field>`.
// - A route that takes a plan (`config.acceptsYaml`) also takes `application/yaml`, the format of
//   most plan files. A page on another origin cannot send that type without a preflight either.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Problem } from '../core/errors.ts';
import { INPUT_LIMITS, inputProblems } from '../core/input-limits.ts';
import { parsePlanText } from '../operations/plan-text.ts';
import { HttpRefusal } from './errors.ts';
import { strictObject } from './schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Query fields the schema types as numbers (set for every route of the scope). */
    numericQuery?: readonly { name: string; integer: boolean }[];
    /** The body may be sent as `application/yaml` (plan drafts). */
    acceptsYaml?: boolean;
  }
}

const NO_QUERY = strictObject({});
const CHANGES_STATE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Media types read as YAML on a route that accepts it; `application/yaml` is the registered one. */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'] as const;

function mediaType(request: FastifyRequest): string {
  const type = request.headers['content-type'];
  return typeof type === 'string' ? type.split(';')[0]!.trim().toLowerCase() : '';
}

/** True when the request's media type is JSON (parameters such as charset are allowed), or YAML where the route takes it. */
function isAccepted(request: FastifyRequest): boolean {
  const type = mediaType(request);
  if (type === 'application/json') return true;
  return request.routeOptions.config.acceptsYaml === true && (YAML_MEDIA_TYPES as readonly string[]).includes(type);
}

function numericFields(schema: unknown): { name: string; integer: boolean }[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) => (property.type === 'integer' || property.type === 'number' ? [{ name, integer: property.type === 'integer' }] : []));
}

/** The input rule over a request's path parameters, query and body, with their parts' names. */
export function requestInputProblems(request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): Problem[] {
  const problems = [...inputProblems(request.params, 'params'), ...inputProblems(request.query, 'query'), ...inputProblems(request.body, 'body')];
  return problems.length > INPUT_LIMITS.maxProblems + 1 ? problems.slice(0, INPUT_LIMITS.maxProblems + 1) : problems;
}

const DECIMAL = /^-?\d{1,15}$/;
const DECIMAL_FRACTION = /^-?\d{1,15}(?:\.\d{1,15})?$/;

function queryNumberProblems(request: FastifyRequest): Problem[] {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return (request.routeOptions.config.numericQuery ?? []).flatMap(({ name, integer }) => {
    const value = query[name];
    if (value === undefined || (typeof value === 'string' && (integer ? DECIMAL : DECIMAL_FRACTION).test(value))) return [];
    const message = integer ? 'must be a whole number written in decimal digits' : 'must be a number written in decimal digits';
    return [{ code: 'invalid_type', path: `query.${name}`, message }];
  });
}

/** Refuses a request whose input breaks the input rule, or whose query numbers are not plain decimals. */
export async function checkRequestInput(request: FastifyRequest): Promise<void> {
  const problems = [...requestInputProblems(request), ...queryNumberProblems(request)];
  if (problems.length === 0) return;
  throw new HttpRefusal('invalid_input', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
}

/** Call on the /api/v1 scope before its routes are declared. */
export function guardApiBoundary(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    if (route.schema?.querystring === undefined) route.schema = { ...route.schema, querystring: NO_QUERY };
    route.config = { ...route.config, numericQuery: numericFields(route.schema.querystring) };
  });
  // Before the schemas (validation) and long before any handler.
  scope.addHook('preValidation', checkRequestInput);

  // Runs after authentication (a hook of the parent), so an unknown caller still hears 401 first.
  scope.addHook('onRequest', async (request) => {
    if (!CHANGES_STATE.has(request.method) || isAccepted(request)) return;
    const yaml = request.routeOptions.config.acceptsYaml === true ? ' or application/yaml' : '';
    const message = `a request that changes anything must be sent with Content-Type: application/json${yaml} (send {} when there are no fields)`;
    throw new HttpRefusal('unsupported_media_type', message, [{ code: 'unsupported_media_type', path: 'headers.content-type', message }]);
  });

  // With the content type required, a POST whose fields are all optional may still come without
  // a body: an empty JSON body means "no fields" (Fastify's own parser refuses it).
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, (error, value) => {
      // Fastify refuses a key that could reach an object's prototype as "not valid JSON"; the
      // JSON is valid, so say which key it was and where.
      const key = error ? prototypeKey(body as string) : null;
      if (key) done(new HttpRefusal('malformed_request', `${key}: this key is not accepted`, [{ code: 'malformed_request', path: key, message: 'this key is not accepted in any body' }]));
      else done(error, value);
    });
  });
  // Only routes with `acceptsYaml` get this far with a YAML type (the hook above refuses others).
  // The plan text parser reads plain data only: no tags, aliases, merge keys or duplicate keys.
  scope.addContentTypeParser([...YAML_MEDIA_TYPES], { parseAs: 'string' }, (_request, body, done) => {
    const parsed = parsePlanText(body as string, 'yaml');
    if (parsed.ok) done(null, parsed.value);
    else
      done(
        new HttpRefusal(
          'malformed_input',
          parsed.errors[0]!.message,
          parsed.errors.map((e) => ({ ...e, path: 'body' })),
        ),
        undefined,
      );
  });
}

/**
 * The path of the first key in a JSON text that could reach an object's prototype (`__proto__`,
 * or `constructor` holding `prototype`), as `body.a.__proto__`; null when the text is not valid
 * JSON or holds none (pure).
 */
export function prototypeKey(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const walk = (node: unknown, path: string): string | null => {
    if (node === null || typeof node !== 'object') return null;
    for (const [key, child] of Object.entries(node)) {
      const here = Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}`;
      if (key === '__proto__' || (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'))) return here;
      const found = walk(child, here);
      if (found) return found;
    }
    return null;
  };
  return walk(value, 'body');
}
