// One error shape for every refusal: { error: { code, message, problems: [{code, message, path}] } }.
// Problems from the application operations name the input field they were given (`id`, `uses`,
// `steps[0].kind`); here they are placed in the request part that carried it, so a client
// always reads `params.id`, `query.limit` or `body.uses`.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../core/error-codes.ts';
import { errorBody, InputError, joinPath, type Problem } from '../core/errors.ts';
import { NotStored } from '../operations/errors.ts';
import { problemsOf } from './validation.ts';

/** Thrown by hooks and handlers for a refusal of the request as a whole (401, 403, 415): its status is its code's in the catalogue. */
export class HttpRefusal extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
    this.name = 'HttpRefusal';
    this.statusCode = ERROR_CODES[code].status ?? 500;
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

/** The code the whole answer carries for each status a refusal of the input can have. */
const ENVELOPES: Readonly<Record<number, ErrorCode>> = { 400: 'invalid_input', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 422: 'not_stored' };

/**
 * The status and envelope code of a refused input: a plan that was not stored is 422; any other
 * takes its first problem's status from the catalogue (src/core/error-codes.ts), so a code means
 * the same status whichever operation refused with it.
 */
function statusOf(error: InputError): [number, ErrorCode] {
  if (error instanceof NotStored) return [422, 'not_stored'];
  const first = error.problems[0];
  const status = first ? ERROR_CODES[first.code].status : null;
  const envelope = status === null ? undefined : ENVELOPES[status];
  return status !== null && envelope ? [status, envelope] : [400, 'invalid_input'];
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
    const code: ErrorCode = fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'unsupported_media_type' : status === 413 ? 'too_large' : 'malformed_request';
    void reply.code(status).send(errorBody(code, error.message, [{ code, message: error.message, path: 'body' }]));
    return;
  }
  request.log.error({ err: error }, 'request failed');
  void reply.code(500).send(errorBody('internal', 'the request failed inside the daemon; see its log'));
}
