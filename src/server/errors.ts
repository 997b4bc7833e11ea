// One error shape for every refusal: { error: { code, message, problems: [{code, message, path}] } }.
// Problems from the application operations name the input field they were given (`id`, `uses`,
// `steps[0].kind`); here they are placed in the request part that carried it, so a client
// always reads `params.id`, `query.limit` or `body.uses`.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, InputError, joinPath, type Problem } from '../core/errors.ts';
import { Conflict, Forbidden, NotFound, NotStored } from '../operations/errors.ts';
import { problemsOf } from './validation.ts';

/** Thrown by hooks and handlers for a refusal of the request as a whole (401, 403, 415). */
export class HttpRefusal extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
    this.name = 'HttpRefusal';
  }
}

function propertiesOf(schema: unknown): Set<string> {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return new Set(properties ? Object.keys(properties) : []);
}

/** Prefixes an operation's problem path with the request part that carried the field. */
function placeProblems(request: FastifyRequest, problems: readonly Problem[]): Problem[] {
  const schema = request.routeOptions.schema ?? {};
  const params = propertiesOf(schema.params);
  const query = propertiesOf(schema.querystring);
  const hasBody = schema.body !== undefined;
  return problems.map((p) => {
    const head = p.path.split(/[.[]/)[0] ?? '';
    if (params.has(head)) return { ...p, path: joinPath('params', p.path) };
    if (query.has(head)) return { ...p, path: joinPath('query', p.path) };
    if (hasBody) return { ...p, path: joinPath('body', p.path) };
    return p;
  });
}

function statusOf(error: InputError): [number, string] {
  if (error instanceof NotFound) return [404, 'not_found'];
  if (error instanceof Forbidden) return [403, 'forbidden'];
  if (error instanceof Conflict) return [409, 'conflict'];
  if (error instanceof NotStored) return [422, 'not_stored'];
  return [400, 'invalid_input'];
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof HttpRefusal) {
    void reply.code(error.statusCode).send(errorBody(error.code, error.message, error.problems));
    return;
  }
  if (error instanceof InputError) {
    const [status, code] = statusOf(error);
    const problems = placeProblems(request, error.problems);
    const message = status === 422 ? 'the plan was not stored' : problems.map((p) => `${p.path || '(input)'}: ${p.message}`).join('; ');
    void reply.code(status).send(errorBody(code, message, problems));
    return;
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const problems = problemsOf(fastifyError.validation as never, fastifyError.validationContext ?? 'body');
    void reply.code(400).send(errorBody('invalid_input', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems));
    return;
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // Fastify's own refusals: malformed JSON, unsupported media type, body too large.
    const code = fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'unsupported_media_type' : status === 413 ? 'too_large' : 'malformed_request';
    void reply.code(status).send(errorBody(code, error.message, [{ code, message: error.message, path: 'body' }]));
    return;
  }
  request.log.error({ err: error }, 'request failed');
  void reply.code(500).send(errorBody('internal', 'the request failed inside the daemon; see its log'));
}
